//! One game of Go as the server plays it: the rules library's [`Game`] plus what surrounds the
//! board — handicap placement, undo requests, the dead-stone phase and its disputes, the result
//! under the game's own rules and the table of every rule set. Every action is checked here, by
//! the library, and nowhere else.

use crate::room::ActError;
use baduk_go::life::{self, Bound, ChainStatus, EstimateConfig, Mode, Status};
use baduk_go::scoring::{self, GameFacts, PointSet, Settled};
use baduk_go::{Board, Color, End, Game, GameEnd, Life, LossRule, Move, Placement, Point, Rules};
use serde_json::{json, Value};

/// Where a Go game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Black places free handicap stones (this many still to place).
    Handicap(u32),
    /// Moves are played.
    Play,
    /// The dead-stone phase after the game's ending moves.
    Marking,
    /// Over.
    Finished,
}

impl Phase {
    /// The phase's name in the API.
    pub fn word(self) -> &'static str {
        match self {
            Phase::Handicap(_) => "handicap",
            Phase::Play => "play",
            Phase::Marking => "marking",
            Phase::Finished => "finished",
        }
    }
}

/// The dead-stone phase: the estimator's proposal, the marks as the players left them, and who
/// accepted them.
#[derive(Clone, Debug)]
pub struct Marking {
    /// The estimator's dead stones.
    pub proposed: PointSet,
    /// The dead stones as marked now.
    pub dead: PointSet,
    /// Chains the estimator could not settle.
    pub unsettled: Vec<Point>,
    /// Who accepted the current marks (Black, White).
    pub accepted: [bool; 2],
}

/// The end of a game: its result and everything shown beside it.
#[derive(Clone, Debug)]
pub struct GoResult {
    /// SGF `RE` form (`B+3.5`, `W+R`, `B+T`, `0`, `Void`) or `disputed`.
    pub text: String,
    /// The winner, if any.
    pub winner: Option<Color>,
    /// `score`, `resignation`, `time`, `rule`, `disputed`, `void`.
    pub reason: &'static str,
    /// A sentence explaining it.
    pub detail: String,
    /// The table of every rule set (scored endings only).
    pub rows: Vec<Value>,
}

/// A game of Go on the server.
#[derive(Clone, Debug)]
pub struct GoRoom {
    /// The rules in force.
    pub rules: Rules,
    /// The library's game (history, ko, passes, ending).
    pub game: Game,
    /// Handicap stones.
    pub handicap: u32,
    /// The phase.
    pub phase: Phase,
    /// Who asked to take back a move (seat), if anyone.
    pub undo_request: Option<usize>,
    /// The dead-stone phase, once reached (kept after the end).
    pub marking: Option<Marking>,
    /// Lines of verification play or art. 7 confirmation, when a dispute ran one.
    pub verification: Vec<String>,
    /// The result, once over.
    pub result: Option<GoResult>,
    /// Free handicap stones placed so far.
    setup: Board,
}

fn color_of(seat: usize) -> Color {
    if seat == 0 {
        Color::Black
    } else {
        Color::White
    }
}

fn seat_of(c: Color) -> usize {
    c.index()
}

/// Seat names of a Go game.
pub const SEATS: [&str; 2] = ["black", "white"];

/// Star points for `n` fixed handicap stones (the GTP order), or an error naming the limit.
pub fn fixed_handicap_points(cols: u32, rows: u32, n: u32) -> Result<Vec<Point>, String> {
    let s = cols.min(rows);
    let max = if cols != rows || s < 7 {
        0
    } else if s == 7 || s.is_multiple_of(2) {
        4
    } else {
        9
    };
    if n > max {
        return Err(format!(
            "handicap {n}: fixed placement on a {cols}x{rows} board allows at most {max} stones (use handicap=free in the rules)"
        ));
    }
    let d = if s >= 13 { 3 } else { 2 };
    let (lo, hi, mid) = (d, s - 1 - d, s / 2);
    let mut pts = vec![
        Point::new(lo, lo),
        Point::new(hi, hi),
        Point::new(lo, hi),
        Point::new(hi, lo),
    ];
    pts.truncate(n.min(4) as usize);
    if (6..=9).contains(&n) {
        pts.push(Point::new(lo, mid));
        pts.push(Point::new(hi, mid));
    }
    if matches!(n, 8 | 9) {
        pts.push(Point::new(mid, lo));
        pts.push(Point::new(mid, hi));
    }
    if matches!(n, 5 | 7 | 9) {
        pts.push(Point::new(mid, mid));
    }
    Ok(pts)
}

impl GoRoom {
    /// A new game under `rules` with `handicap` stones (fixed on star points or placed by
    /// Black, as the rules say).
    pub fn new(rules: Rules, handicap: u32) -> Result<GoRoom, String> {
        let size = rules.size;
        let mut room = GoRoom {
            rules,
            game: Game::new(rules),
            handicap,
            phase: Phase::Play,
            undo_request: None,
            marking: None,
            verification: Vec::new(),
            result: None,
            setup: Board::new(size),
        };
        if handicap == 1 || handicap as usize >= size.area() {
            return Err(format!(
                "handicap {handicap}: give 0 or 2 or more stones, fewer than the board's points"
            ));
        }
        if handicap >= 2 {
            match rules.handicap {
                Placement::Fixed => {
                    let mut board = Board::new(size);
                    for p in fixed_handicap_points(size.cols(), size.rows(), handicap)? {
                        board
                            .set(p, Some(Color::Black))
                            .map_err(|e| e.to_string())?;
                    }
                    room.start_after_handicap(board);
                }
                Placement::Free => room.phase = Phase::Handicap(handicap),
            }
        }
        Ok(room)
    }

    fn start_after_handicap(&mut self, board: Board) {
        self.game = Game::from_position(self.rules, board, Color::White);
        self.game.set_handicap(self.handicap);
        self.phase = Phase::Play;
    }

    /// The seat to act, if one is to act now (the dead-stone phase waits for both).
    pub fn to_move(&self) -> Option<usize> {
        match self.phase {
            Phase::Handicap(_) => Some(0),
            Phase::Play => Some(seat_of(self.game.to_move())),
            Phase::Marking | Phase::Finished => None,
        }
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// Number of moves on the board (the move number for replays).
    pub fn move_count(&self) -> usize {
        self.game.move_count()
    }

    fn point(&self, s: &str) -> Result<Point, ActError> {
        Point::from_gtp(s, self.rules.size)
            .map_err(|e| ActError::bad_request(format!("`{s}`: {e}")))
    }

    /// Applies one action of `seat` (`ing` gives the Ing extensions used so far, for scoring).
    pub fn act(&mut self, seat: usize, action: &str, ing: [u32; 2]) -> Result<(), ActError> {
        let action = action.trim();
        let lower = action.to_ascii_lowercase();
        let mut words = lower.split_whitespace();
        let verb = words.next().unwrap_or("");
        let arg = words.next();
        if words.next().is_some() {
            return Err(ActError::bad_request(format!(
                "`{action}`: too many words for a Go action"
            )));
        }
        if self.phase == Phase::Finished {
            return Err(ActError::conflict("the game is over"));
        }
        if verb == "resign" {
            self.game.resign(color_of(seat));
            self.finish(ing);
            return Ok(());
        }
        if verb == "timeout" {
            // Stored by the server's clock, never sent by a client.
            self.game.lose_on_time(color_of(seat));
            self.finish(ing);
            return Ok(());
        }
        if let Some(done) = self.server_ending(seat, verb, ing) {
            return done;
        }
        match self.phase {
            Phase::Handicap(left) => {
                if seat != 0 {
                    return Err(ActError::conflict(
                        "not your turn: Black is placing handicap stones",
                    ));
                }
                if arg.is_some() {
                    return Err(ActError::bad_request(format!(
                        "`{action}`: place a handicap stone by its point, e.g. D4"
                    )));
                }
                let p = self.point(verb)?;
                if self.setup.get(p).is_some() {
                    return Err(ActError::illegal(format!(
                        "handicap stone {}: point is occupied",
                        p
                    )));
                }
                self.setup
                    .set(p, Some(Color::Black))
                    .map_err(|e| ActError::illegal(e.to_string()))?;
                if left == 1 {
                    let board = self.setup.clone();
                    self.start_after_handicap(board);
                } else {
                    self.phase = Phase::Handicap(left - 1);
                }
                Ok(())
            }
            Phase::Play => self.act_play(seat, verb, arg, action, ing),
            Phase::Marking => self.act_marking(seat, verb, arg, action, ing),
            Phase::Finished => unreachable!("checked above"),
        }
    }

    fn act_play(
        &mut self,
        seat: usize,
        verb: &str,
        arg: Option<&str>,
        action: &str,
        ing: [u32; 2],
    ) -> Result<(), ActError> {
        let me = color_of(seat);
        match (verb, arg) {
            ("undo", None) => {
                if self.undo_request.is_some() {
                    return Err(ActError::conflict("an undo request is already waiting"));
                }
                if self.game.last_mover() != Some(me) {
                    return Err(ActError::conflict(
                        "undo: you may ask to take back only your own last move",
                    ));
                }
                self.undo_request = Some(seat);
                Ok(())
            }
            ("undo-accept", None) | ("undo-decline", None) => {
                match self.undo_request {
                    Some(s) if s != seat => {}
                    _ => {
                        return Err(ActError::conflict(
                            "no undo request from your opponent is waiting",
                        ))
                    }
                }
                self.undo_request = None;
                if verb == "undo-accept" {
                    self.game.undo();
                }
                Ok(())
            }
            ("pass", None) | (_, None) => {
                if self.game.to_move() != me {
                    return Err(ActError::conflict("not your turn"));
                }
                let mv = if verb == "pass" {
                    Move::Pass
                } else {
                    Move::Play(self.point(verb)?)
                };
                self.game
                    .play(mv)
                    .map_err(|e| ActError::illegal(e.to_string()))?;
                self.undo_request = None;
                self.after_move(ing);
                Ok(())
            }
            _ => Err(ActError::bad_request(format!(
                "`{action}`: not a Go action during play (a point such as D4, pass, resign, undo, undo-accept, undo-decline)"
            ))),
        }
    }

    /// After a move: the ending the rules define leads to the dead-stone phase, or straight to
    /// the count where the rules have none (life=as-is, JK art. 4.3 endings).
    fn after_move(&mut self, ing: [u32; 2]) {
        match self.game.end() {
            None => {}
            Some(GameEnd::Passes) if self.rules.life != Life::AsIs => self.start_marking(),
            Some(_) => self.finish(ing),
        }
    }

    fn start_marking(&mut self) {
        let board = self.game.board();
        let cfg = EstimateConfig {
            seed: EstimateConfig::default().seed ^ self.game.move_count() as u64,
            ..EstimateConfig::default()
        };
        let est = life::estimate(board, &cfg);
        let unsettled = est
            .chains
            .iter()
            .filter(|c| c.status == ChainStatus::Unsettled)
            .map(|c| c.anchor)
            .collect();
        self.marking = Some(Marking {
            proposed: est.settled.dead,
            dead: est.settled.dead,
            unsettled,
            accepted: [false; 2],
        });
        self.phase = Phase::Marking;
    }

    fn act_marking(
        &mut self,
        seat: usize,
        verb: &str,
        arg: Option<&str>,
        action: &str,
        ing: [u32; 2],
    ) -> Result<(), ActError> {
        let board = self.game.board().clone();
        match (verb, arg) {
            ("dead", Some(p)) | ("alive", Some(p)) => {
                let p = self.point(p)?;
                if board.get(p).is_none() {
                    return Err(ActError::illegal(format!(
                        "{verb} {p}: no stone there to mark"
                    )));
                }
                let m = self.marking.as_mut().expect("marking phase has marks");
                for s in board.chain_stones(p) {
                    if verb == "dead" {
                        m.dead.insert(s);
                    } else {
                        m.dead.remove(s);
                    }
                }
                m.accepted = [false; 2];
                Ok(())
            }
            ("accept", None) => {
                let m = self.marking.as_mut().expect("marking phase has marks");
                m.accepted[seat] = true;
                if m.accepted == [true, true] {
                    self.finish(ing);
                }
                Ok(())
            }
            ("dispute", None) => {
                self.dispute(ing);
                Ok(())
            }
            _ => Err(ActError::bad_request(format!(
                "`{action}`: not an action of the dead-stone phase (dead D4, alive D4, accept, dispute, resign)"
            ))),
        }
    }

    /// A dispute over life and death, settled as the game's rules say.
    fn dispute(&mut self, ing: [u32; 2]) {
        let m = self.marking.clone().expect("marking phase has marks");
        let board = self.game.board().clone();
        let mode = match self.rules.life {
            Life::Resume | Life::AsIs => {
                // Area rules: play on; captures settle it.
                self.game.resume();
                self.marking = None;
                self.phase = Phase::Play;
                return;
            }
            Life::Verify => Mode::Verify,
            Life::Japanese => Mode::Japanese,
        };
        // The disputed chains: those whose marks differ from the proposal, and the ones the
        // estimator could not settle.
        let mut targets: Vec<Point> = Vec::new();
        let mut seen = PointSet::new();
        let mut add = |p: Point, targets: &mut Vec<Point>| {
            if !seen.contains(p) {
                for s in board.chain_stones(p) {
                    seen.insert(s);
                }
                targets.push(p);
            }
        };
        for p in board.points() {
            if board.get(p).is_some() && m.dead.contains(p) != m.proposed.contains(p) {
                add(p, &mut targets);
            }
        }
        for &p in &m.unsettled {
            add(p, &mut targets);
        }
        targets.truncate(8);
        let mut dead = m.dead;
        let mut disputed = Vec::new();
        self.verification.clear();
        for &t in &targets {
            let v = life::verify(
                &board,
                t,
                mode,
                Bound {
                    depth: 10,
                    nodes: 3_000,
                },
            );
            self.verification.push(format!(
                "{} {t}: {} (opponent first: {}; owner first: {})",
                if mode == Mode::Verify {
                    "verification play"
                } else {
                    "art. 7 confirmation"
                },
                v.status,
                v.opponent_first.text(),
                v.owner_first.text()
            ));
            match v.status {
                Status::Dead => board.chain_stones(t).for_each(|s| dead.insert(s)),
                Status::Alive | Status::Seki => board.chain_stones(t).for_each(|s| dead.remove(s)),
                Status::Undecided(r) | Status::Disputed(r) => {
                    // Undecided within the bound: the estimator's verdict stands for the chain.
                    for s in board.chain_stones(t) {
                        if m.proposed.contains(s) {
                            dead.insert(s);
                        } else {
                            dead.remove(s);
                        }
                    }
                    disputed.push(format!("{t}: {r}"));
                }
            }
        }
        if let Some(mm) = self.marking.as_mut() {
            mm.dead = dead;
        }
        if mode == Mode::Japanese {
            // Japanese 1989 art. 9: a dispute is not settled by play; the game is disputed.
            let detail = if targets.is_empty() {
                "the players disagree over life and death (Japanese 1989 art. 9: a dispute is referred, not played out)".to_string()
            } else {
                format!(
                    "the players disagree over life and death; art. 7 confirmation: {}",
                    self.verification.join("; ")
                )
            };
            let rows = self.rows(&dead, ing);
            self.result = Some(GoResult {
                text: "disputed".into(),
                winner: None,
                reason: "disputed",
                detail,
                rows,
            });
            self.phase = Phase::Finished;
            return;
        }
        // Verification play decides; the board is restored and counted with its verdicts.
        self.finish_scored(&dead, ing, Some(disputed));
    }

    fn facts(&self, ing: [u32; 2]) -> GameFacts {
        let mut passes = [0u32; 2];
        for r in self.game.history() {
            if r.mv == Move::Pass {
                passes[r.color.index()] += 1;
            }
        }
        GameFacts {
            captures: [
                self.game.captures(Color::Black),
                self.game.captures(Color::White),
            ],
            passes,
            last_mover: self.game.last_mover(),
            handicap: self.game.handicap(),
            time_extensions: ing,
            void: matches!(self.game.end(), Some(GameEnd::NoResult { .. })),
            moves: self.game.move_count() as u32,
        }
    }

    fn settled(&self, dead: &PointSet) -> Settled {
        let board = self.game.board();
        let seki = life::find_seki(board, dead, &life::benson(board)).points;
        match Settled::imposed_by_end(self.game.end(), seki) {
            Some((s, _)) => s,
            None => Settled { dead: *dead, seki },
        }
    }

    /// The table of every rule set, each with the game's komi (the objects of `go score --json`).
    fn rows(&self, dead: &PointSet, ing: [u32; 2]) -> Vec<Value> {
        let facts = self.facts(ing);
        let settled = self.settled(dead);
        Rules::presets()
            .map(|r| {
                let mut r = r.with_size(self.rules.size);
                r.komi = self.rules.komi;
                // A rule set without a dead-stone phase counts every stone as it stands.
                let st = if r.life == Life::AsIs {
                    Settled {
                        dead: PointSet::new(),
                        seki: settled.seki,
                    }
                } else {
                    settled
                };
                let s = scoring::score(self.game.board(), &facts, &st, &r);
                let mut row = s.to_json(&r);
                row["rules_name"] = json!(r.name());
                row["dead_from"] = json!(if r.life == Life::AsIs {
                    "none"
                } else {
                    "players"
                });
                row
            })
            .collect()
    }

    fn finish_scored(&mut self, dead: &PointSet, ing: [u32; 2], undecided: Option<Vec<String>>) {
        let settled = self.settled(dead);
        let s = scoring::score(self.game.board(), &self.facts(ing), &settled, &self.rules);
        let mut detail = format!(
            "counted under {}: Black {}, White {}",
            self.rules.name(),
            s.black,
            s.white
        );
        if let Some(u) = undecided.filter(|u| !u.is_empty()) {
            detail.push_str(&format!(
                "; verification undecided, the estimate counted: {}",
                u.join("; ")
            ));
        }
        self.result = Some(GoResult {
            text: s.outcome.to_string(),
            winner: s.outcome.winner(),
            reason: match s.outcome {
                scoring::Outcome::Time { .. } => "time",
                scoring::Outcome::Void => "void",
                _ => "score",
            },
            detail,
            rows: self.rows(dead, ing),
        });
        self.phase = Phase::Finished;
    }

    /// Ends the game as the library's ending says.
    fn finish(&mut self, ing: [u32; 2]) {
        let end = self.game.end();
        let marks = self.marking.as_ref().map(|m| m.dead).unwrap_or_default();
        let (text, winner, reason, detail) = match end {
            Some(GameEnd::Resignation { loser }) => (
                format!("{}+R", loser.opponent().letter()),
                Some(loser.opponent()),
                "resignation",
                format!("{} resigned", SEATS[seat_of(loser)]),
            ),
            Some(GameEnd::Loss { loser, rule, .. }) => (
                format!(
                    "{}+{}",
                    loser.opponent().letter(),
                    if rule == LossRule::Time { "T" } else { "F" }
                ),
                Some(loser.opponent()),
                if rule == LossRule::Time {
                    "time"
                } else {
                    "rule"
                },
                end.map(|e| e.to_string()).unwrap_or_default(),
            ),
            Some(GameEnd::JkRepetition { winner, .. }) => (
                winner.map_or("0".to_string(), |w| format!("{}+", w.letter())),
                winner,
                "rule",
                end.map(|e| e.to_string()).unwrap_or_default(),
            ),
            Some(GameEnd::NoResult { .. }) => (
                "Void".to_string(),
                None,
                "void",
                end.map(|e| e.to_string()).unwrap_or_default(),
            ),
            _ => {
                self.finish_scored(&marks, ing, None);
                if let (Some(r), Some(e)) = (self.result.as_mut(), end) {
                    if !matches!(e, GameEnd::Passes) {
                        r.detail = format!("{e}; {}", r.detail);
                    }
                }
                return;
            }
        };
        self.result = Some(GoResult {
            text,
            winner,
            reason,
            detail,
            rows: Vec::new(),
        });
        self.phase = Phase::Finished;
    }

    /// The endings only the server stores (the room refuses them from clients): `abandon` (the
    /// seat to move made no move in the server's limit and loses, SGF `+F`), `cancel` (nobody
    /// joined: no result) and `marks-timeout` (the dead-stone phase's clock ran out: the marks
    /// as they stand are counted).
    fn server_ending(
        &mut self,
        seat: usize,
        verb: &str,
        ing: [u32; 2],
    ) -> Option<Result<(), ActError>> {
        let (text, winner, reason, detail) = match verb {
            "abandon" => {
                let loser = color_of(seat);
                (
                    format!("{}+F", loser.opponent().letter()),
                    Some(loser.opponent()),
                    "abandonment",
                    format!(
                        "{} made no move within the server's limit and loses by abandonment",
                        SEATS[seat]
                    ),
                )
            }
            "cancel" => (
                "Void".to_string(),
                None,
                "cancelled",
                "nobody took a seat within the server's limit: the game is cancelled".to_string(),
            ),
            "marks-timeout" => {
                if self.phase != Phase::Marking {
                    return Some(Err(ActError::conflict("not in the dead-stone phase")));
                }
                self.finish(ing);
                if let Some(r) = self.result.as_mut() {
                    r.detail = format!(
                        "the dead-stone phase ran out of time: the marks as they stood were counted; {}",
                        r.detail
                    );
                }
                return Some(Ok(()));
            }
            _ => return None,
        };
        self.result = Some(GoResult {
            text,
            winner,
            reason,
            detail,
            rows: Vec::new(),
        });
        self.phase = Phase::Finished;
        Some(Ok(()))
    }

    /// Legal actions of the side to move, in the action notation.
    pub fn legal(&self) -> Vec<String> {
        match self.phase {
            Phase::Handicap(_) => self.setup.empty_points().map(|p| p.to_string()).collect(),
            Phase::Play => self
                .game
                .legal_moves()
                .into_iter()
                .map(|m| match m {
                    Move::Pass => "pass".to_string(),
                    Move::Play(p) => p.to_string(),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The board part of the state.
    pub fn state(&self) -> Value {
        let size = self.rules.size;
        let board = match self.phase {
            Phase::Handicap(_) => &self.setup,
            _ => self.game.board(),
        };
        let columns: String = (0..size.cols())
            .map(|x| {
                Point::new(x, 0)
                    .to_gtp()
                    .chars()
                    .next()
                    .expect("a point has a column letter")
            })
            .collect();
        let rows: Vec<String> = (0..size.rows())
            .rev()
            .map(|y| {
                (0..size.cols())
                    .map(|x| match board.get(Point::new(x, y)) {
                        Some(Color::Black) => 'B',
                        Some(Color::White) => 'W',
                        None => '.',
                    })
                    .collect()
            })
            .collect();
        let moves: Vec<String> = self
            .game
            .history()
            .iter()
            .map(|r| r.mv.to_string())
            .collect();
        let marking = self.marking.as_ref().map(|m| {
            let settled = self.settled(&m.dead);
            let (black, white) = territory(self.game.board(), &settled);
            json!({
                "dead": m.dead.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                "proposed": m.proposed.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                "unsettled": m.unsettled.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                "accepted": {"black": m.accepted[0], "white": m.accepted[1]},
                "territory": {"black": black, "white": white},
                "seki": settled.seki.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                "dispute": match self.rules.life {
                    Life::Resume | Life::AsIs => "resume",
                    Life::Verify => "verify",
                    Life::Japanese => "disputed",
                },
            })
        });
        json!({
            "size": {"cols": size.cols(), "rows": size.rows()},
            "columns": columns,
            "board": rows,
            "rules": self.rules.to_string(),
            "rules_name": self.rules.name(),
            "komi": self.rules.komi.as_f64(),
            "handicap": self.handicap,
            "captures": {
                "black": self.game.captures(Color::Black),
                "white": self.game.captures(Color::White),
            },
            "moves": moves,
            "last_move": self.game.history().last().map(|r| r.mv.to_string()),
            "undo_request": self.undo_request.map(|s| SEATS[s]),
            "phase": self.phase.word(),
            "handicap_left": match self.phase { Phase::Handicap(n) => n, _ => 0 },
            "ended_by": self.game.end().map(|e| e.to_string()),
            "marking": marking,
            "verification": self.verification,
            "dead_stone_phase": self.rules.life != Life::AsIs && self.rules.end != End::Jk,
        })
    }

    /// The result as JSON (null while playing).
    pub fn result_json(&self) -> Value {
        match &self.result {
            None => Value::Null,
            Some(r) => json!({
                "text": r.text,
                "winner": r.winner.map(|c| SEATS[seat_of(c)]),
                "reason": r.reason,
                "detail": r.detail,
                "rows": r.rows,
            }),
        }
    }
}

/// Territory points of each colour with the dead stones removed (empty regions reached by one
/// colour only; seki points excluded).
fn territory(board: &Board, settled: &Settled) -> (Vec<String>, Vec<String>) {
    let mut seen = PointSet::new();
    let (mut black, mut white) = (Vec::new(), Vec::new());
    let alive = |p: Point| -> Option<Color> { board.get(p).filter(|_| !settled.dead.contains(p)) };
    for p in board.points() {
        if seen.contains(p) || alive(p).is_some() {
            continue;
        }
        let mut region = vec![p];
        seen.insert(p);
        let mut touches = [false; 2];
        let mut i = 0;
        while i < region.len() {
            let q = region[i];
            i += 1;
            for n in board.neighbours(q) {
                match alive(n) {
                    Some(c) => touches[c.index()] = true,
                    None if !seen.contains(n) => {
                        seen.insert(n);
                        region.push(n);
                    }
                    None => {}
                }
            }
        }
        let names = region
            .iter()
            .filter(|q| !settled.seki.contains(**q))
            .map(|q| q.to_string());
        match touches {
            [true, false] => black.extend(names),
            [false, true] => white.extend(names),
            _ => {}
        }
    }
    (black, white)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(rules: &str) -> GoRoom {
        GoRoom::new(Rules::parse(rules).unwrap(), 0).unwrap()
    }

    #[test]
    fn two_passes_open_the_dead_stone_phase_and_both_accepts_end_it() {
        let mut r = room("japanese,size=5");
        r.act(0, "C3", [0; 2]).unwrap();
        r.act(1, "pass", [0; 2]).unwrap();
        r.act(0, "pass", [0; 2]).unwrap();
        assert_eq!(r.phase, Phase::Marking);
        r.act(0, "accept", [0; 2]).unwrap();
        assert_eq!(r.phase, Phase::Marking);
        r.act(1, "accept", [0; 2]).unwrap();
        assert_eq!(r.phase, Phase::Finished);
        let res = r.result.unwrap();
        assert_eq!(res.reason, "score");
        assert_eq!(res.rows.len(), Rules::presets().count());
    }

    #[test]
    fn tromp_taylor_has_no_dead_stone_phase() {
        let mut r = room("tromp-taylor,size=5");
        r.act(0, "C3", [0; 2]).unwrap();
        r.act(1, "pass", [0; 2]).unwrap();
        r.act(0, "pass", [0; 2]).unwrap();
        assert_eq!(r.phase, Phase::Finished);
    }

    #[test]
    fn an_illegal_move_names_the_rule_and_changes_nothing() {
        let mut r = room("chinese,size=5");
        r.act(0, "C3", [0; 2]).unwrap();
        let e = r.act(1, "C3", [0; 2]).unwrap_err();
        assert_eq!(e.status, 422);
        assert!(e.message.contains("occupied"), "{}", e.message);
        assert_eq!(r.game.move_count(), 1);
        assert_eq!(r.act(0, "D4", [0; 2]).unwrap_err().status, 409);
    }

    #[test]
    fn undo_needs_the_opponents_consent() {
        let mut r = room("chinese,size=5");
        r.act(0, "C3", [0; 2]).unwrap();
        assert_eq!(r.act(1, "undo", [0; 2]).unwrap_err().status, 409);
        r.act(0, "undo", [0; 2]).unwrap();
        assert_eq!(r.act(0, "undo-accept", [0; 2]).unwrap_err().status, 409);
        r.act(1, "undo-accept", [0; 2]).unwrap();
        assert_eq!(r.game.move_count(), 0);
        assert_eq!(r.to_move(), Some(0));
    }

    #[test]
    fn a_dispute_under_area_rules_resumes_play() {
        let mut r = room("chinese,size=5");
        r.act(0, "pass", [0; 2]).unwrap();
        r.act(1, "pass", [0; 2]).unwrap();
        r.act(1, "dispute", [0; 2]).unwrap();
        assert_eq!(r.phase, Phase::Play);
        r.act(0, "C3", [0; 2]).unwrap();
    }

    #[test]
    fn a_dispute_under_japanese_rules_is_a_disputed_result() {
        let mut r = room("japanese,size=5");
        r.act(0, "pass", [0; 2]).unwrap();
        r.act(1, "pass", [0; 2]).unwrap();
        r.act(1, "dispute", [0; 2]).unwrap();
        assert_eq!(r.result.unwrap().text, "disputed");
    }

    #[test]
    fn fixed_handicap_stones_stand_on_star_points_and_white_moves_first() {
        let r = GoRoom::new(Rules::parse("japanese,size=9").unwrap(), 2).unwrap();
        assert_eq!(r.to_move(), Some(1));
        assert_eq!(r.game.board().stone_count(Color::Black), 2);
        assert!(GoRoom::new(Rules::parse("japanese,size=5").unwrap(), 2).is_err());
    }

    #[test]
    fn free_handicap_black_places_then_white_moves() {
        let mut r = GoRoom::new(Rules::parse("chinese,size=9,handicap=free").unwrap(), 2).unwrap();
        assert_eq!(r.to_move(), Some(0));
        r.act(0, "A1", [0; 2]).unwrap();
        assert_eq!(r.act(0, "A1", [0; 2]).unwrap_err().status, 422);
        r.act(0, "J9", [0; 2]).unwrap();
        assert_eq!(r.to_move(), Some(1));
        assert_eq!(r.game.handicap(), 2);
    }
}
