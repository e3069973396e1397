//! The record (game file) format of the spec: read and write, with line-numbered errors.
//!
//! ```text
//! wallgo 1
//! variant placement=ABAB stay=out-and-back tiebreak=none
//! A B2 F6
//! B F2 B6
//! place A D4
//! turn B F2-F4/W
//! turn A B2 pass
//! result A 24 B 21 neutral 4
//! ```
//!
//! Blank lines and lines starting with `#` are ignored. The `variant` line and the fixed-piece
//! lines may be left out (the defaults apply) but must precede the first action; the `result`
//! line, if present, is the last line and must match the board.

use crate::action::Action;
use crate::geom::{Cell, NotationError};
use crate::position::{ActionError, Position, Score, FIXED_A, FIXED_B};
use crate::variant::{Player, Variant, VariantError};
use std::fmt;

/// What is wrong with a record line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordErrorKind {
    /// The text has no lines at all.
    Empty,
    /// The first line is not `wallgo 1`.
    BadHeader(String),
    /// A line that is none of the known kinds.
    UnknownLine(String),
    /// A `variant` line that does not read.
    Variant(VariantError),
    /// A header line (`variant`, fixed pieces) after the first action, or given twice.
    MisplacedHeader(String),
    /// A fixed-piece line that differs from the fixed set-up.
    FixedPieces(Player, String),
    /// A cell, wall or action that does not read.
    Notation(NotationError),
    /// A `place` line whose action is not a placement, or a `turn` line that is one.
    WrongKind(String),
    /// An action by the player who is not to move.
    OutOfTurn {
        /// The player the line names.
        line: Player,
        /// The player to move.
        to_move: Player,
    },
    /// An action the rules forbid.
    Illegal(ActionError),
    /// A malformed `result` line.
    BadResult(String),
    /// A `result` line before the game is over.
    ResultBeforeEnd,
    /// A `result` line that differs from the board's score.
    ResultMismatch {
        /// What the line says.
        claimed: String,
        /// What the board gives.
        actual: Score,
    },
    /// A line after the `result` line.
    AfterResult,
}

impl fmt::Display for RecordErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RecordErrorKind::*;
        match self {
            Empty => write!(f, "the record is empty; it must start with 'wallgo 1'"),
            BadHeader(s) => write!(f, "expected the header 'wallgo 1', found '{s}'"),
            UnknownLine(s) => write!(
                f,
                "'{s}' is not a record line (variant, A, B, place, turn, result)"
            ),
            Variant(e) => write!(f, "bad variant: {e}"),
            MisplacedHeader(s) => write!(f, "'{s}' must come once, before the first action"),
            FixedPieces(p, s) => {
                let fixed = match p {
                    Player::A => FIXED_A,
                    Player::B => FIXED_B,
                };
                write!(
                    f,
                    "the fixed pieces of {p} are {} {}, not '{s}'",
                    fixed[0], fixed[1]
                )
            }
            Notation(e) => write!(f, "{e}"),
            WrongKind(s) => write!(f, "{s}"),
            OutOfTurn { line, to_move } => {
                write!(
                    f,
                    "out of turn: the line is for {line}, but {to_move} is to act"
                )
            }
            Illegal(e) => write!(f, "{e}"),
            BadResult(s) => write!(
                f,
                "'{s}' is not a result line (result A <n> B <n> neutral <n>)"
            ),
            ResultBeforeEnd => write!(f, "a result line, but the game is not over"),
            ResultMismatch { claimed, actual } => {
                write!(
                    f,
                    "the result says '{claimed}' but the board gives '{actual}'"
                )
            }
            AfterResult => write!(f, "a line after the result line"),
        }
    }
}

/// A rejected record: the 1-based line number and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// 1-based line number (0 for an empty record).
    pub line: usize,
    /// The reason.
    pub kind: RecordErrorKind,
}

impl RecordError {
    /// Whether the line reads but breaks a rule (an illegal action, out of turn, a wrong
    /// result), as opposed to malformed text.
    pub fn is_illegal(&self) -> bool {
        matches!(
            self.kind,
            RecordErrorKind::Illegal(_)
                | RecordErrorKind::OutOfTurn { .. }
                | RecordErrorKind::ResultBeforeEnd
                | RecordErrorKind::ResultMismatch { .. }
        )
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind)
    }
}

impl std::error::Error for RecordError {}

/// A game: the variant, the actions from the start, and the position they lead to.
#[derive(Clone, Debug)]
pub struct Game {
    actions: Vec<Action>,
    position: Position,
}

impl Game {
    /// A new game at the start of the placement phase.
    pub fn new(variant: Variant) -> Game {
        Game {
            actions: Vec::new(),
            position: Position::new(variant),
        }
    }

    /// The variant being played.
    pub fn variant(&self) -> Variant {
        self.position.variant()
    }

    /// The actions so far.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Plays `a` if legal.
    pub fn play(&mut self, a: Action) -> Result<(), ActionError> {
        self.position.apply(a)?;
        self.actions.push(a);
        Ok(())
    }

    /// The record text (with a `result` line once the game is over).
    pub fn to_record(&self) -> String {
        let v = self.variant();
        let mut s = format!(
            "wallgo 1\nvariant {v}\nA {} {}\nB {} {}\n",
            FIXED_A[0], FIXED_A[1], FIXED_B[0], FIXED_B[1]
        );
        let mut p = Position::new(v);
        for &a in &self.actions {
            s.push_str(&record_line(p.to_move(), a));
            s.push('\n');
            p.apply_unchecked(a);
        }
        if p.is_over() {
            s.push_str(&format!("result {}\n", p.score()));
        }
        s
    }

    /// Reads and replays a record; any malformed or illegal line is an error with its number.
    pub fn from_record(text: &str) -> Result<Game, RecordError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let (n, first) = lines.next().ok_or(RecordError {
            line: 0,
            kind: RecordErrorKind::Empty,
        })?;
        let err = |line: usize, kind: RecordErrorKind| RecordError { line, kind };
        if first.split_whitespace().collect::<Vec<_>>() != ["wallgo", "1"] {
            return Err(err(n, RecordErrorKind::BadHeader(first.to_string())));
        }
        let mut game = Game::new(Variant::default());
        let mut seen_variant = false;
        let mut seen_fixed = [false; 2];
        let mut result_seen = false;
        for (n, line) in lines {
            if result_seen {
                return Err(err(n, RecordErrorKind::AfterResult));
            }
            let (word, rest) = match line.split_once(char::is_whitespace) {
                Some((w, r)) => (w, r.trim()),
                None => (line, ""),
            };
            let started = !game.actions.is_empty();
            match word {
                "variant" => {
                    if started || seen_variant || seen_fixed.iter().any(|&x| x) {
                        return Err(err(n, RecordErrorKind::MisplacedHeader(line.to_string())));
                    }
                    let v: Variant = rest
                        .parse()
                        .map_err(|e| err(n, RecordErrorKind::Variant(e)))?;
                    game = Game::new(v);
                    seen_variant = true;
                }
                "A" | "B" | "a" | "b" => {
                    let p: Player = word.parse().unwrap_or(Player::A);
                    if started || seen_fixed[p.index()] {
                        return Err(err(n, RecordErrorKind::MisplacedHeader(line.to_string())));
                    }
                    let fixed = match p {
                        Player::A => FIXED_A,
                        Player::B => FIXED_B,
                    };
                    let mut got = Vec::new();
                    for w in rest.split_whitespace() {
                        got.push(
                            w.parse::<Cell>()
                                .map_err(|e| err(n, RecordErrorKind::Notation(e)))?,
                        );
                    }
                    got.sort();
                    let mut want = fixed.to_vec();
                    want.sort();
                    if got != want {
                        return Err(err(n, RecordErrorKind::FixedPieces(p, rest.to_string())));
                    }
                    seen_fixed[p.index()] = true;
                }
                "place" | "turn" => {
                    let (who, act) = match rest.split_once(char::is_whitespace) {
                        Some((w, a)) => (w, a.trim()),
                        None => return Err(err(n, RecordErrorKind::UnknownLine(line.to_string()))),
                    };
                    let who: Player = who
                        .parse()
                        .map_err(|_| err(n, RecordErrorKind::UnknownLine(line.to_string())))?;
                    let a: Action = act
                        .parse()
                        .map_err(|e| err(n, RecordErrorKind::Notation(e)))?;
                    let is_place = matches!(a, Action::Place(_));
                    if is_place != (word == "place") {
                        let why = if is_place {
                            format!("'{act}' is a placement; write 'place {who} {act}'")
                        } else {
                            format!("'{act}' is a turn; write 'turn {who} {act}'")
                        };
                        return Err(err(n, RecordErrorKind::WrongKind(why)));
                    }
                    let p = &game.position;
                    if !p.is_over() && who != p.to_move() {
                        return Err(err(
                            n,
                            RecordErrorKind::OutOfTurn {
                                line: who,
                                to_move: p.to_move(),
                            },
                        ));
                    }
                    game.play(a)
                        .map_err(|e| err(n, RecordErrorKind::Illegal(e)))?;
                }
                "result" => {
                    let claimed = parse_result(rest)
                        .ok_or_else(|| err(n, RecordErrorKind::BadResult(line.to_string())))?;
                    if !game.position.is_over() {
                        return Err(err(n, RecordErrorKind::ResultBeforeEnd));
                    }
                    let actual = game.position.score();
                    if claimed != (actual.a, actual.b, actual.neutral) {
                        return Err(err(
                            n,
                            RecordErrorKind::ResultMismatch {
                                claimed: rest.to_string(),
                                actual,
                            },
                        ));
                    }
                    result_seen = true;
                }
                _ => return Err(err(n, RecordErrorKind::UnknownLine(line.to_string()))),
            }
        }
        Ok(game)
    }
}

/// One action as a record line: `place A D4`, `turn B F2-F4/W`, `turn A B2 pass`.
pub fn record_line(player: Player, a: Action) -> String {
    match a {
        Action::Place(_) => format!("place {player} {a}"),
        _ => format!("turn {player} {a}"),
    }
}

/// Reads `A <n> B <n> neutral <n>`.
fn parse_result(s: &str) -> Option<(u8, u8, u8)> {
    let w: Vec<&str> = s.split_whitespace().collect();
    match w.as_slice() {
        ["A", a, "B", b, "neutral", n] => Some((a.parse().ok()?, b.parse().ok()?, n.parse().ok()?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::ActionList;

    fn random_game(seed: u64) -> Game {
        let mut rng = baduk_rng::Rng::new(seed);
        let mut g = Game::new(Variant::default());
        let mut l = ActionList::new();
        while !g.position().is_over() {
            g.position().legal_actions(&mut l);
            g.play(l[rng.below(l.len())]).unwrap();
        }
        g
    }

    const START: &str = "wallgo 1\nvariant placement=ABAB stay=out-and-back tiebreak=none\n\
                         A B2 F6\nB F2 B6\nplace A D4\nplace B C3\nplace A E5\nplace B D2\n";

    #[test]
    fn wallgo_spec_record_round_trips() {
        for seed in 0..20 {
            let g = random_game(seed);
            let text = g.to_record();
            let h = Game::from_record(&text).unwrap();
            assert_eq!(h.actions(), g.actions());
            assert_eq!(h.position(), g.position());
            assert!(text.starts_with("wallgo 1\nvariant placement=ABAB"));
            assert!(text.lines().last().unwrap().starts_with("result A "));
        }
    }

    #[test]
    fn wallgo_spec_record_example_opening_reads() {
        let text = format!("{START}turn B F2-F4/W\nturn A B2-C2/E\n");
        let g = Game::from_record(&text).unwrap();
        assert_eq!(g.actions().len(), 6);
        assert_eq!(g.position().to_move(), Player::B);
        assert_eq!(g.position().walls().len(), 2);
    }

    fn error_of(text: &str) -> RecordError {
        Game::from_record(text).unwrap_err()
    }

    #[test]
    fn wallgo_spec_reader_rejects_with_line_number_and_reason() {
        assert_eq!(error_of("").kind, RecordErrorKind::Empty);
        assert_eq!(error_of("wallgo 2\n").line, 1);
        let e = error_of(&format!("{START}turn A B2-B3/S\n"));
        assert_eq!(e.line, 9);
        assert!(e.is_illegal());
        assert_eq!(
            e.to_string(),
            "line 9: out of turn: the line is for A, but B is to act"
        );
        let e = error_of(&format!("{START}turn B F2-F1/N\n"));
        assert_eq!(e.line, 9);
        assert!(matches!(
            e.kind,
            RecordErrorKind::Notation(NotationError::BoundaryWall(_))
        ));
        assert!(!e.is_illegal());
        let e = error_of(&format!("{START}turn B Q2-F3/N\n"));
        assert!(matches!(
            e.kind,
            RecordErrorKind::Notation(NotationError::BadCell(_))
        ));
        let e = error_of(&format!(
            "{START}turn B F2-F3/S\nturn A B2-B3/N\nturn B F3-F4/N\n"
        ));
        assert_eq!(e.line, 11);
        assert_eq!(
            e.to_string(),
            "line 11: turn 3 B F3-F4/N: path crosses the wall F3/S"
        );
        let e = error_of(&format!(
            "{START}turn B F2-F3/S\nturn A B2-B3/N\nturn B F3-F2/S\nturn A B3-B3/N\n"
        ));
        assert_eq!(
            e.to_string(),
            "line 12: turn 4 A B3-B3/N: the wall B2/S is already there"
        );
        let e = error_of(&format!("{START}turn B A1\n"));
        assert!(matches!(e.kind, RecordErrorKind::WrongKind(_)));
        let e = error_of(&format!("{START}place B A1\n"));
        assert_eq!(
            e.to_string(),
            "line 9: turn 1 B A1: the placement phase is over"
        );
        let e = error_of(&format!("{START}result A 1 B 1 neutral 47\n"));
        assert_eq!(e.kind, RecordErrorKind::ResultBeforeEnd);
        let e = error_of("wallgo 1\nplace A D4\nvariant placement=ABBA\n");
        assert_eq!(e.line, 3);
        let e = error_of("wallgo 1\nA B2 F7\n");
        assert!(e.to_string().contains("the fixed pieces of A are B2 F6"));
        let e = error_of("wallgo 1\nplace A D4\nhello\n");
        assert_eq!(e.line, 3);
        let e = error_of("wallgo 1\nplace A\n");
        assert_eq!(e.line, 2);
        // A truncated line.
        let e = error_of(&format!("{START}turn B F2-F"));
        assert_eq!(e.line, 9);
    }

    #[test]
    fn issue_6_example_error_turn_7_a_c3_c5_n_crosses_the_wall_c3_s() {
        let text = "wallgo 1\nvariant placement=ABBA stay=out-and-back tiebreak=none\n\
                    place A C3\nplace B E3\nplace B E5\nplace A D6\n\
                    turn A C3-C3/S\nturn B E3-E3/E\nturn A F6-F6/E\nturn B E5-E5/E\n\
                    turn A D6-D6/E\nturn B F2-F2/E\nturn A C3-C5/N\n";
        assert_eq!(
            error_of(text).to_string(),
            "line 13: turn 7 A C3-C5/N: path crosses the wall C3/S"
        );
    }

    #[test]
    fn wallgo_spec_result_line_must_match_the_board() {
        let g = random_game(5);
        let text = g.to_record();
        let s = g.position().score();
        let wrong = text.replace(
            &format!("result {s}"),
            &format!("result A {} B {} neutral {}", s.b, s.a, s.neutral),
        );
        if s.a != s.b {
            let e = error_of(&wrong);
            assert!(matches!(e.kind, RecordErrorKind::ResultMismatch { .. }));
        }
        let after = format!("{text}turn A B2-B3/S\n");
        assert_eq!(error_of(&after).kind, RecordErrorKind::AfterResult);
    }
}
