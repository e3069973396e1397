//! One game of Go as the server plays it: the rules library's [`Game`] plus what surrounds the
//! board — handicap placement, undo requests, the dead-stone phase and its disputes, the result
//! under the game's own rules and the table of every rule set. Every action is checked here, by
//! the library, and nowhere else.

use crate::game::room::ActError;
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
    /// The points players clicked (a chain is named by the point its marker chose).
    pub clicked: Vec<Point>,
    /// The last `restore`: who put which chains back to the proposal.
    pub restored: Option<(usize, Vec<Point>)>,
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
    /// The detail as a code and its arguments (`result.counted`, `{"black": 45, …}`).
    pub code: (&'static str, Value),
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
    /// How many moves the waiting undo request takes back (1: the asker's last; 2: the asker's
    /// last and the reply).
    pub undo_moves: usize,
    /// The dead-stone phase, once reached (kept after the end).
    pub marking: Option<Marking>,
    /// Lines of verification play or art. 7 confirmation, when a dispute ran one.
    pub verification: Vec<String>,
    /// The same checks as data (chain, owner, verdict, both lines), for pages in any language.
    pub checks: Vec<Value>,
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
            undo_moves: 0,
            marking: None,
            verification: Vec::new(),
            checks: Vec::new(),
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
        Point::from_gtp(s, self.rules.size).map_err(|e| {
            ActError::bad_request(format!("`{s}`: {e}")).with_code("point.bad", json!({"point": s}))
        })
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
            return Err(ActError::conflict("the game is over").with_code("game.over", Value::Null));
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
                    return Err(ActError::conflict("an undo request is already waiting")
                        .with_code("undo.waiting", Value::Null));
                }
                // One's own last move, or (on one's turn) one's last move and the reply, as
                // OGS allows: against a bot that answers at once only the second form is
                // ever possible.
                let hist = self.game.history();
                let n = hist.len();
                let moves = if n >= 1 && hist[n - 1].color == me {
                    1
                } else if n >= 2 && hist[n - 2].color == me {
                    2
                } else {
                    return Err(ActError::conflict(
                        "undo: you have no move on the board to take back",
                    )
                    .with_code("undo.nothing", Value::Null));
                };
                self.undo_request = Some(seat);
                self.undo_moves = moves;
                Ok(())
            }
            ("undo-accept", None) | ("undo-decline", None) => {
                match self.undo_request {
                    Some(s) if s != seat => {}
                    _ => {
                        return Err(ActError::conflict(
                            "no undo request from your opponent is waiting",
                        )
                        .with_code("undo.none", Value::Null))
                    }
                }
                self.undo_request = None;
                if verb == "undo-accept" {
                    for _ in 0..self.undo_moves.max(1) {
                        self.game.undo();
                    }
                }
                self.undo_moves = 0;
                Ok(())
            }
            ("dead", _) | ("alive", _) | ("accept", None) | ("dispute", _) | ("restore", None) => {
                Err(ActError::bad_request(format!(
                    "`{action}`: not an action during play: the dead-stone phase has not begun (it follows the game's ending passes)"
                ))
                .with_code("marking.not_now", json!({"action": action})))
            }
            ("pass", None) | (_, None) => {
                if self.game.to_move() != me {
                    return Err(ActError::conflict("not your turn").with_code("turn.not_yours", Value::Null));
                }
                let mv = if verb == "pass" {
                    Move::Pass
                } else {
                    Move::Play(self.point(verb)?)
                };
                self.game.play(mv).map_err(|e| illegal(&e, &self.rules))?;
                self.undo_request = None;
                self.undo_moves = 0;
                self.after_move(ing);
                Ok(())
            }
            _ => Err(ActError::bad_request(format!(
                "`{action}`: not a Go action during play (a point such as D4, pass, resign, undo, undo-accept, undo-decline)"
            ))
            .with_code("action.unknown", json!({"action": action}))),
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
        let est = crate::game::work::in_place(|| life::estimate(board, &cfg));
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
            clicked: Vec::new(),
            restored: None,
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
                    return Err(ActError::illegal(format!("{verb} {p}: no stone there to mark"))
                        .with_code("marking.empty", json!({"point": p.to_string()})));
                }
                let m = self.marking.as_mut().expect("marking phase has marks");
                for s in board.chain_stones(p) {
                    if verb == "dead" {
                        m.dead.insert(s);
                    } else {
                        m.dead.remove(s);
                    }
                }
                m.clicked.retain(|&q| !board.chain_stones(p).any(|s| s == q));
                m.clicked.push(p);
                m.accepted = [false; 2];
                m.restored = None;
                Ok(())
            }
            ("restore", None) => {
                let m = self.marking.as_mut().expect("marking phase has marks");
                let chains = differing_chains(&board, m);
                if chains.is_empty() {
                    return Err(ActError::conflict(
                        "restore: the marks already are the proposal; nothing to put back",
                    )
                    .with_code("marking.nothing_to_restore", Value::Null));
                }
                for &c in &chains {
                    for s in board.chain_stones(c) {
                        if m.proposed.contains(s) {
                            m.dead.insert(s);
                        } else {
                            m.dead.remove(s);
                        }
                    }
                }
                m.accepted = [false; 2];
                m.restored = Some((seat, chains));
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
            ("dispute", way) => self.dispute(seat, way, ing),
            ("undo", None) => Err(ActError::conflict(
                "undo: not during the dead-stone phase (dispute to resume play where the rules allow)",
            )
            .with_code("undo.not_now", Value::Null)),
            _ => Err(ActError::bad_request(format!(
                "`{action}`: not an action of the dead-stone phase (dead D4, alive D4, restore, accept, dispute, resign)"
            ))
            .with_code("action.unknown", json!({"action": action}))),
        }
    }

    /// What a bot answers in the dead-stone phase: `accept` when the marks agree with its own
    /// analysis (the estimator's proposal; a chain the estimator could not settle is the
    /// players' call), else `restore` (its marks back, the chains named). Never a dispute.
    pub fn bot_marking_answer(&self) -> &'static str {
        match &self.marking {
            Some(m) if !differing_chains(self.game.board(), m).is_empty() => "restore",
            _ => "accept",
        }
    }

    /// The ways a dispute can go under these rules (`resume`, `verify`, `confirm`).
    pub fn dispute_ways(&self) -> &'static [&'static str] {
        match self.rules.life {
            Life::Resume | Life::AsIs => &["resume"],
            Life::Verify => &["verify"],
            // Japanese 1989: art. 9 (resumption of play, the opponent first) or art. 7's
            // confirmation of the disputed chains.
            Life::Japanese => &["resume", "confirm"],
        }
    }

    /// A dispute over life and death, settled as the game's rules say (`way`: one of
    /// [`GoRoom::dispute_ways`]; none: the first).
    fn dispute(&mut self, seat: usize, way: Option<&str>, ing: [u32; 2]) -> Result<(), ActError> {
        let ways = self.dispute_ways();
        let way = way.unwrap_or(if self.rules.life == Life::Japanese {
            "confirm"
        } else {
            ways[0]
        });
        if !ways.contains(&way) {
            return Err(ActError::bad_request(format!(
                "dispute {way}: under these rules a dispute is {}",
                ways.join(" or ")
            ))
            .with_code("dispute.way", json!({"way": way, "ways": ways})));
        }
        let m = self.marking.clone().expect("marking phase has marks");
        let board = self.game.board().clone();
        if way == "resume" {
            // Area rules: play on, captures settle it. Japanese art. 9: play resumes with the
            // opponent of the player who asked moving first (their ending pass is taken back
            // when the asker would be to move).
            self.game.resume();
            if self.rules.life == Life::Japanese && self.game.to_move() == color_of(seat) {
                self.game.undo();
            }
            self.marking = None;
            self.verification.clear();
            self.checks.clear();
            self.phase = Phase::Play;
            return Ok(());
        }
        let mode = if way == "verify" {
            Mode::Verify
        } else {
            Mode::Japanese
        };
        // The disputed chains: those whose marks differ from the proposal, and the ones the
        // estimator could not settle.
        let mut targets = differing_chains(&board, &m);
        let mut seen = PointSet::new();
        for &t in &targets {
            board.chain_stones(t).for_each(|s| seen.insert(s));
        }
        for &p in &m.unsettled {
            if !seen.contains(p) {
                board.chain_stones(p).for_each(|s| seen.insert(s));
                targets.push(name_of(&board, &m, p));
            }
        }
        if targets.is_empty() {
            return Err(ActError::conflict(
                "dispute: no chain is in dispute (mark the chains you disagree about first)",
            )
            .with_code("dispute.nothing", Value::Null));
        }
        targets.truncate(8);
        let mut dead = m.dead;
        let mut undecided = Vec::new();
        self.verification.clear();
        self.checks.clear();
        for &t in &targets {
            let bound = Bound {
                depth: 10,
                nodes: 3_000,
            };
            let v = crate::game::work::in_place(|| life::verify(&board, t, mode, bound));
            let owner = board.get(t).expect("a target is a stone");
            let (line, check) = check_lines(mode, t, owner, board.chain_stones(t).count(), &v);
            self.verification.push(line);
            self.checks.push(check);
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
                    undecided.push((t, r));
                }
            }
        }
        if let Some(mm) = self.marking.as_mut() {
            mm.dead = dead;
        }
        if mode == Mode::Japanese && !undecided.is_empty() {
            // Japanese 1989: what art. 7's confirmation does not settle stays disputed: no
            // result (a referee's matter), not a draw.
            let chains: Vec<String> = undecided.iter().map(|(p, _)| p.to_string()).collect();
            let detail = format!(
                "no result (disputed): the art. 7 confirmation does not settle {} ({})",
                chains.join(", "),
                undecided
                    .iter()
                    .map(|(p, r)| format!("{p}: {r}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            let rows = self.rows(&dead, ing);
            self.result = Some(GoResult {
                text: "Void".into(),
                winner: None,
                reason: "disputed",
                detail,
                code: ("result.disputed", json!({"chains": chains})),
                rows,
            });
            self.phase = Phase::Finished;
            return Ok(());
        }
        // The verdicts decide; the board is counted with them.
        let undecided: Vec<String> = undecided.iter().map(|(p, r)| format!("{p}: {r}")).collect();
        self.finish_scored(&dead, ing, Some(undecided));
        Ok(())
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
        let label = rules_label(&self.rules);
        let mut detail = format!(
            "counted under {label}: Black {}, White {}",
            s.black, s.white
        );
        let mut args = json!({"rules": self.rules.preset.word(), "black": s.black.to_string(), "white": s.white.to_string()});
        if let Some(u) = undecided.filter(|u| !u.is_empty()) {
            detail.push_str(&format!(
                "; verification undecided, the estimate counted: {}",
                u.join("; ")
            ));
            args["undecided"] = json!(u);
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
            code: ("result.counted", args),
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
        let code = match end {
            Some(GameEnd::Resignation { loser }) => {
                ("result.resigned", json!({"seat": SEATS[seat_of(loser)]}))
            }
            Some(GameEnd::Loss {
                loser,
                rule: LossRule::Time,
                ..
            }) => ("result.time", json!({"seat": SEATS[seat_of(loser)]})),
            _ => ("result.other", json!({"text": detail})),
        };
        self.end_unscored(text, winner, reason, detail, code);
    }

    /// Ends the game with a result that no count made (resignation, time, the server's endings).
    fn end_unscored(
        &mut self,
        text: String,
        winner: Option<Color>,
        reason: &'static str,
        detail: String,
        code: (&'static str, Value),
    ) {
        self.result = Some(GoResult {
            text,
            winner,
            reason,
            detail,
            code,
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
        let (text, winner, reason, detail, code) = match verb {
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
                    ("result.abandoned", json!({"seat": SEATS[seat]})),
                )
            }
            "cancel" => (
                "Void".to_string(),
                None,
                "cancelled",
                "nobody took a seat within the server's limit: the game is cancelled".to_string(),
                ("result.cancelled", Value::Null),
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
                    if let Some(o) = r.code.1.as_object_mut() {
                        o.insert("marks_timeout".into(), json!(true));
                    }
                }
                return Some(Ok(()));
            }
            _ => return None,
        };
        self.end_unscored(text, winner, reason, detail, code);
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
        self.view(true)
    }

    /// The moves on the board from the `keep`-th on (the state's `moves` past its first `keep`).
    pub fn moves_from(&self, keep: usize) -> Vec<String> {
        let hist = self.game.history();
        hist[keep.min(hist.len())..]
            .iter()
            .map(|r| r.mv.to_string())
            .collect()
    }

    /// How many moves the state's `moves` holds.
    pub fn history_len(&self) -> usize {
        self.game.history().len()
    }

    /// The board part of the state; without `history` it leaves out `moves` (whose length
    /// grows with the game).
    pub fn view(&self, history: bool) -> Value {
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
                "dispute_ways": self.dispute_ways(),
                "clicked": m.clicked.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                "restored": m.restored.as_ref().map(|(s, c)| {
                    let chains: Vec<String> = c.iter().map(|p| p.to_string()).collect();
                    json!({
                        "seat": SEATS[*s],
                        "chains": chains,
                        "reason": format!("{} put back {}: by its reading the marks were not right", SEATS[*s], chains.join(", ")),
                    })
                }),
            })
        });
        let mut state = json!({
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
            "last_move": self.game.history().last().map(|r| r.mv.to_string()),
            "undo_request": self.undo_request.map(|s| SEATS[s]),
            "undo_moves": self.undo_moves,
            "ko": self.ko_point().map(|p| p.to_string()),
            "phase": self.phase.word(),
            "handicap_left": match self.phase { Phase::Handicap(n) => n, _ => 0 },
            "ended_by": self.game.end().map(|e| e.to_string()),
            "marking": marking,
            "verification": self.verification,
            "checks": self.checks,
            "rules_label": rules_label(&self.rules),
            "dead_stone_phase": self.rules.life != Life::AsIs && self.rules.end != End::Jk,
        });
        if history {
            state["moves"] = json!(self.moves_from(0));
        }
        state
    }

    /// The point a simple-ko rule forbids the side to move just now (after a ko capture), if any.
    pub fn ko_point(&self) -> Option<Point> {
        if self.phase != Phase::Play {
            return None;
        }
        let p = self.game.board().ko_point()?;
        let mv = Move::Play(p);
        (!self.game.legal_moves().contains(&mv)).then_some(p)
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
                "code": r.code.0,
                "args": r.code.1,
                "rows": r.rows,
            }),
        }
    }
}

/// The rules string without the clock (the clock has words of its own): what messages, results
/// and the record's `RU` name.
pub fn rules_label(r: &Rules) -> String {
    Rules {
        time: Rules::preset(r.preset).time,
        ..*r
    }
    .name()
}

/// An illegal move as a 422 with a code per rule: the library's sentence, the rules named
/// without their clock.
pub(crate) fn illegal(e: &baduk_go::IllegalMove, rules: &Rules) -> ActError {
    use baduk_go::IllegalReason as R;
    let (code, extra) = match &e.reason {
        R::Occupied => ("illegal.occupied", Value::Null),
        R::OffBoard => ("illegal.offboard", Value::Null),
        R::Suicide { .. } => ("illegal.suicide", Value::Null),
        R::Ko { .. } => ("illegal.ko", Value::Null),
        R::PositionalSuperko { after_move } | R::SituationalSuperko { after_move } => {
            ("illegal.superko", json!(after_move))
        }
        R::JkNoPass | R::JkNoNormalPass => ("illegal.jk_pass", Value::Null),
        R::GameOver { .. } => ("game.over", Value::Null),
        _ => ("illegal", Value::Null),
    };
    let message = e.to_string().replace(
        &format!("under {}", rules.name()),
        &format!("under {}", rules_label(rules)),
    );
    ActError::illegal(message).with_code(
        code,
        json!({"number": e.number, "color": SEATS[seat_of(e.color)], "point": e.mv.to_string(), "after": extra, "rules": rules.preset.word()}),
    )
}

/// The chains whose marks differ from the estimator's proposal, leaving out those it could not
/// settle; each named by the point a player clicked on it, if any.
fn differing_chains(board: &Board, m: &Marking) -> Vec<Point> {
    let mut seen = PointSet::new();
    for &u in &m.unsettled {
        board.chain_stones(u).for_each(|s| seen.insert(s));
    }
    let mut out = Vec::new();
    for p in board.points() {
        if board.get(p).is_some()
            && !seen.contains(p)
            && m.dead.contains(p) != m.proposed.contains(p)
        {
            board.chain_stones(p).for_each(|s| seen.insert(s));
            out.push(name_of(board, m, p));
        }
    }
    out
}

/// The name of `p`'s chain: the point a player clicked on it, else `p`.
fn name_of(board: &Board, m: &Marking, p: Point) -> Point {
    m.clicked
        .iter()
        .rev()
        .copied()
        .find(|&c| board.chain_stones(p).any(|s| s == c))
        .unwrap_or(p)
}

/// One verification as a sentence and as data: the chain, its owner, the verdict and both lines
/// with their moves ("no sequence captures it" when the owner's chain survives without one).
fn check_lines(
    mode: Mode,
    t: Point,
    owner: Color,
    stones: usize,
    v: &life::Verification,
) -> (String, Value) {
    use baduk_go::life::verify::Outcome;
    let word = |o: Outcome| match o {
        Outcome::Captured => "captured",
        Outcome::Survived => "survived",
        Outcome::Bound => "bound",
    };
    let seq = |l: &life::verify::Line| -> Vec<String> {
        l.sequence
            .iter()
            .map(|(c, m)| format!("{} {m}", c.letter()))
            .collect()
    };
    let line_text = |l: &life::verify::Line| {
        let moves = seq(l).join(" ");
        match (l.outcome, moves.is_empty()) {
            (Outcome::Survived, true) => "no sequence captures it".to_string(),
            (Outcome::Survived, false) => format!("{moves}, the chain survives"),
            (Outcome::Captured, _) => format!("{moves}, the chain is captured"),
            (Outcome::Bound, _) => format!("{moves} … (search limit reached)"),
        }
    };
    let line_json = |l: &life::verify::Line| {
        json!({
            "first": SEATS[seat_of(l.first)],
            "outcome": word(l.outcome),
            "moves": seq(l),
        })
    };
    let (status, reason) = match &v.status {
        Status::Alive => ("alive", None),
        Status::Dead => ("dead", None),
        Status::Seki => ("seki", None),
        Status::Undecided(r) => ("undecided", Some(r.clone())),
        Status::Disputed(r) => ("disputed", Some(r.clone())),
    };
    let label = if mode == Mode::Verify {
        "verification play"
    } else {
        "art. 7 confirmation"
    };
    let text = format!(
        "{label} {t} ({} chain, {stones} stones): {}; {} first: {}; {} first: {}",
        SEATS[seat_of(owner)],
        v.status,
        SEATS[seat_of(owner.opponent())],
        line_text(&v.opponent_first),
        SEATS[seat_of(owner)],
        line_text(&v.owner_first)
    );
    let data = json!({
        "mode": if mode == Mode::Verify { "verify" } else { "confirm" },
        "chain": t.to_string(),
        "owner": SEATS[seat_of(owner)],
        "stones": stones,
        "status": status,
        "reason": reason,
        "opponent_first": line_json(&v.opponent_first),
        "owner_first": line_json(&v.owner_first),
    });
    (text, data)
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
    fn a_japanese_dispute_needs_a_chain_in_dispute_and_an_undecided_one_is_no_result() {
        let mut r = room("japanese,size=5");
        r.act(0, "C3", [0; 2]).unwrap();
        r.act(1, "pass", [0; 2]).unwrap();
        r.act(0, "pass", [0; 2]).unwrap();
        let e = r.act(1, "dispute", [0; 2]).unwrap_err();
        assert_eq!((e.status, e.code), (409, "dispute.nothing"));
        assert_eq!(r.phase, Phase::Marking);
        r.act(1, "dead C3", [0; 2]).unwrap();
        assert_eq!(r.act(1, "dispute verify", [0; 2]).unwrap_err().status, 400);
        r.act(1, "dispute confirm", [0; 2]).unwrap();
        let res = r.result.clone().unwrap();
        eprintln!("{res:?} {:?}", r.verification);
        assert_eq!(r.checks[0]["chain"], "C3");
        assert!(r.verification[0].contains("C3"), "{:?}", r.verification);
        if res.winner.is_none() {
            assert_eq!((res.text.as_str(), res.reason), ("Void", "disputed"));
            assert!(res.detail.contains("C3"), "{}", res.detail);
        }
    }

    #[test]
    fn japanese_art_9_resumption_lets_the_opponent_move_first() {
        for (asker, first) in [(0, 1), (1, 0)] {
            let mut r = room("japanese,size=5");
            r.act(0, "C3", [0; 2]).unwrap();
            r.act(1, "pass", [0; 2]).unwrap();
            r.act(0, "pass", [0; 2]).unwrap();
            r.act(asker, "dispute resume", [0; 2]).unwrap();
            assert_eq!(r.phase, Phase::Play);
            assert_eq!(r.to_move(), Some(first), "asker {asker}");
        }
    }

    #[test]
    fn a_bot_restores_changed_marks_and_then_accepts_never_disputes() {
        let mut r = room("japanese,size=5");
        r.act(0, "C3", [0; 2]).unwrap();
        r.act(1, "pass", [0; 2]).unwrap();
        r.act(0, "pass", [0; 2]).unwrap();
        assert_eq!(r.bot_marking_answer(), "accept");
        r.act(0, "dead C3", [0; 2]).unwrap();
        assert_eq!(r.bot_marking_answer(), "restore");
        r.act(1, "restore", [0; 2]).unwrap();
        let m = r.marking.as_ref().unwrap();
        assert_eq!(m.dead, m.proposed);
        assert_eq!(
            m.restored.as_ref().unwrap().1,
            vec![Point::from_gtp("C3", r.rules.size).unwrap()]
        );
        assert_eq!(r.bot_marking_answer(), "accept");
    }

    #[test]
    fn marks_out_of_phase_and_on_empty_points_are_refused_with_codes() {
        let mut r = room("japanese,size=5");
        for a in ["dead C3", "accept", "dispute", "restore"] {
            let e = r.act(0, a, [0; 2]).unwrap_err();
            assert_eq!((e.status, e.code), (400, "marking.not_now"), "{a}");
        }
        r.act(0, "C3", [0; 2]).unwrap();
        r.act(1, "pass", [0; 2]).unwrap();
        r.act(0, "pass", [0; 2]).unwrap();
        let e = r.act(0, "dead D4", [0; 2]).unwrap_err();
        assert_eq!((e.status, e.code), (422, "marking.empty"));
        let e = r.act(0, "restore", [0; 2]).unwrap_err();
        assert_eq!((e.status, e.code), (409, "marking.nothing_to_restore"));
        let e = r.act(0, "undo", [0; 2]).unwrap_err();
        assert_eq!((e.status, e.code), (409, "undo.not_now"));
        assert!(r.marking.as_ref().unwrap().dead.is_empty());
    }

    #[test]
    fn undo_on_ones_turn_takes_back_ones_move_and_the_reply() {
        let mut r = room("chinese,size=5");
        let e = r.act(0, "undo", [0; 2]).unwrap_err();
        assert_eq!((e.status, e.code), (409, "undo.nothing"));
        r.act(0, "C3", [0; 2]).unwrap();
        r.act(1, "D4", [0; 2]).unwrap();
        r.act(0, "undo", [0; 2]).unwrap();
        assert_eq!(r.undo_moves, 2);
        r.act(1, "undo-accept", [0; 2]).unwrap();
        assert_eq!(r.game.move_count(), 0);
        assert_eq!(r.to_move(), Some(0));
    }

    #[test]
    fn an_illegal_ko_names_the_rules_without_the_clock() {
        let mut r = room("japanese,size=5,time=fischer:300:5");
        for m in ["B3", "C3", "A2", "D2", "B1", "C1", "C2", "B2"] {
            let seat = r.to_move().unwrap();
            r.act(seat, m, [0; 2]).unwrap();
        }
        let e = r.act(0, "C2", [0; 2]).unwrap_err();
        assert_eq!(e.code, "illegal.ko", "{e:?}");
        assert!(!e.message.contains("time="), "{}", e.message);
        assert_eq!(e.args["point"], "C2");
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
