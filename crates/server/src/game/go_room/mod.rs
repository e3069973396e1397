//! One game of Go as the server plays it: the rules library's [`Game`] plus what surrounds the
//! board — handicap placement, undo requests, the dead-stone phase and its disputes, the result
//! under the game's own rules and the table of every rule set. Every action is checked here, by
//! the library, and nowhere else. The dead-stone phase is in `marking`, apart from play.

mod marking;

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
    /// Who offered to pause the game for a review (seat), if an offer is waiting.
    pub review_offer: Option<usize>,
    /// Whether the game is paused for a review (both agreed; `resume` ends it).
    pub review_paused: bool,
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
            review_offer: None,
            review_paused: false,
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
        if let Some(done) = self.review_mode(seat, verb, arg) {
            return done;
        }
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
                self.review_offer = None;
                self.after_move(ing);
                Ok(())
            }
            _ => Err(ActError::bad_request(format!(
                "`{action}`: not a Go action during play (a point such as D4, pass, resign, undo, undo-accept, undo-decline, review, review-decline, resume)"
            ))
            .with_code("action.unknown", json!({"action": action}))),
        }
    }

    /// Review mode during play: `review` offers it (or accepts the opponent's offer: the game
    /// pauses), `review-decline` turns an offer down, `resume` ends the pause; while paused
    /// no other play action is taken (resigning still is). None: not a review-mode action.
    fn review_mode(
        &mut self,
        seat: usize,
        verb: &str,
        arg: Option<&str>,
    ) -> Option<Result<(), ActError>> {
        let refuse = |code: &'static str, msg: &str| {
            Some(Err(
                ActError::conflict(msg.to_string()).with_code(code, Value::Null)
            ))
        };
        match (verb, arg) {
            ("review", None) if self.review_paused => refuse(
                "review_mode.paused",
                "the game is already paused for a review",
            ),
            ("review", None) => match self.review_offer {
                Some(s) if s == seat => refuse(
                    "review_mode.waiting",
                    "your offer of a review is waiting for your opponent",
                ),
                Some(_) => {
                    self.review_offer = None;
                    self.review_paused = true;
                    Some(Ok(()))
                }
                None => {
                    self.review_offer = Some(seat);
                    Some(Ok(()))
                }
            },
            ("review-decline", None) => match self.review_offer {
                Some(s) if s != seat => {
                    self.review_offer = None;
                    Some(Ok(()))
                }
                _ => refuse(
                    "review_mode.none",
                    "no offer of a review from your opponent is waiting",
                ),
            },
            ("resume", None) if self.review_paused => {
                self.review_paused = false;
                Some(Ok(()))
            }
            ("resume", None) => refuse("review_mode.not_paused", "the game is not paused"),
            _ if self.review_paused => refuse(
                "review_mode.paused",
                "the game is paused for a review: resume it first",
            ),
            _ => None,
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
    /// seat to move made no move in the server's limit and loses, SGF `+F`), `forfeit` (a bot
    /// account's seat sent [`ILLEGAL_IN_ROW`](crate::game::room::ILLEGAL_IN_ROW) illegal moves
    /// in a row and loses, SGF `+F`), `cancel` (nobody
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
            "forfeit" => {
                let loser = color_of(seat);
                (
                    format!("{}+F", loser.opponent().letter()),
                    Some(loser.opponent()),
                    "forfeit",
                    format!(
                        "{} (a bot account) sent {} illegal moves in a row and forfeits",
                        SEATS[seat],
                        crate::game::room::ILLEGAL_IN_ROW
                    ),
                    (
                        "result.forfeit",
                        json!({"seat": SEATS[seat], "illegal": crate::game::room::ILLEGAL_IN_ROW}),
                    ),
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
            "review_mode": {
                "offered_by": self.review_offer.filter(|_| !self.is_over()).map(|s| SEATS[s]),
                "paused": self.review_paused && !self.is_over(),
            },
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
mod tests;
