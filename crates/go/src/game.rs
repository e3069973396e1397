//! A game: the board plus the history the rules need — repetition (simple ko, positional and
//! situational superko, the JK rule), suicide, passes and pass stones, and how the game ended.
//!
//! Superko checks are O(1) per candidate: every earlier position (and position + player to
//! move) is kept in a hash map keyed by its Zobrist hash, and a candidate's hash is computed by
//! [`Board::probe`] without playing it.

use crate::board::{situational, Board};
use crate::point::{Color, Move, Point};
use crate::rules::{Cycles, End, Ko, MoveLimit, Passes, Rules, Suicide};
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for keys that are already uniformly random (Zobrist hashes).
#[derive(Default, Clone, Copy)]
pub struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A hash map keyed by Zobrist hashes.
pub type ZobristMap<V> = HashMap<u64, V, BuildHasherDefault<ZobristHasher>>;

/// The JK move classes (art. 2.5–2.7), also recorded under other rule sets (no `E` there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveClass {
    /// `C`: a ko capture (a lone stone without liberties capturing exactly one lone stone).
    KoCapture,
    /// `N`: any other board play.
    Normal,
    /// `P`: a normal pass.
    NormalPass,
    /// `E`: an ending pass (JK).
    EndingPass,
}

impl MoveClass {
    /// The JK letter: `C`, `N`, `P` or `E`.
    pub fn letter(self) -> char {
        match self {
            MoveClass::KoCapture => 'C',
            MoveClass::Normal => 'N',
            MoveClass::NormalPass => 'P',
            MoveClass::EndingPass => 'E',
        }
    }
}

/// Which kind of pass a player makes (only JK distinguishes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassKind {
    /// A normal pass (`P`).
    Normal,
    /// An ending pass (`E`).
    Ending,
}

/// One move of the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// Who moved.
    pub color: Color,
    /// What was played.
    pub mv: Move,
    /// Its JK class.
    pub class: MoveClass,
    /// Position hash after the move.
    pub hash: u64,
    /// Opponent stones it captured.
    pub captured: u32,
    /// For a ko capture, the point of the stone it captured.
    pub ko_taken: Option<Point>,
    /// Captured prisoners of (Black, White) after the move (pass stones excluded).
    pub captures_after: [u32; 2],
    /// Pass stones received by (Black, White) before the move.
    pass_stones_before: [u32; 2],
    prev_pos: Option<Occurrence>,
    prev_sit: Option<u32>,
}

/// Where a position occurred: how often, the latest move number, and board-play occurrences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Occurrence {
    latest: u32,
    plays: u32,
    first_play: u32,
}

/// A rule that decided the game on the spot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LossRule {
    /// JK art. 2.4 (`suicide=loses`): a board play left one's own chain without liberties.
    Suicide,
    /// JK art. 3.2: the board play recreated the position of two plays ago.
    ImmediateRepetition,
    /// The player's time ran out (or, under Ing rules, a fourth extension was needed).
    Time,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GameEnd {
    /// Consecutive passes (two; or AGA's pass by White last); the board is scored.
    Passes,
    /// JK art. 4.3: the moves ended with `EE`, `ECCE` or `ECCCCE` (no dead stones remain).
    JkSequence {
        /// The ending sequence.
        sequence: &'static str,
    },
    /// The players agreed the game is over.
    Agreement,
    /// A player resigned.
    Resignation {
        /// Who resigned.
        loser: Color,
    },
    /// A player lost on the spot by a rule.
    Loss {
        /// Who lost.
        loser: Color,
        /// The rule.
        rule: LossRule,
        /// The move number.
        at: usize,
    },
    /// JK art. 3.3: a position occurred a third time by board plays; decided by the captured
    /// prisoners taken between the first and the third occurrence.
    JkRepetition {
        /// The winner, or `None` for a draw.
        winner: Option<Color>,
        /// Move after which the position first occurred.
        first: usize,
        /// Move after which it occurred the second time.
        second: usize,
        /// The move that made it occur the third time.
        third: usize,
        /// Captured prisoners taken by (Black, White) between the first and third occurrence.
        captured: [u32; 2],
    },
    /// A long cycle under a simple-ko rule set (triple ko, eternal life, …): no result.
    NoResult {
        /// Move after which the repeated position (same player to move) occurred before.
        from: usize,
        /// The move that repeated it.
        to: usize,
    },
    /// The move limit was reached (seed 001 appendix 4).
    MoveLimit {
        /// What the limit says happens.
        limit: MoveLimit,
    },
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: Color| c.letter();
        match *self {
            GameEnd::Passes => f.write_str("ended by passes"),
            GameEnd::JkSequence { sequence } => {
                write!(f, "ended by the sequence {sequence} (JK art. 4.3)")
            }
            GameEnd::Agreement => f.write_str("ended by agreement"),
            GameEnd::Resignation { loser } => write!(f, "{} resigned", side(loser)),
            GameEnd::Loss { loser, rule, at } => match rule {
                LossRule::Suicide => write!(
                    f,
                    "{} loses: suicide at move {at} (JK art. 2.4)",
                    side(loser)
                ),
                LossRule::ImmediateRepetition => write!(
                    f,
                    "{} loses: move {at} repeats the position of two plays ago (JK art. 3.2)",
                    side(loser)
                ),
                LossRule::Time => write!(f, "{} loses on time after move {at}", side(loser)),
            },
            GameEnd::JkRepetition {
                winner,
                first,
                second,
                third,
                captured,
            } => {
                write!(
                    f,
                    "the position after moves {first} and {second} occurred a third time at move {third} (JK art. 3.3); captured prisoners between the repetitions B {} W {}: ",
                    captured[0], captured[1]
                )?;
                match winner {
                    Some(c) => write!(f, "{} wins", side(c)),
                    None => f.write_str("draw"),
                }
            }
            GameEnd::NoResult { from, to } => {
                write!(f, "no result: moves {} to {to} form a cycle (", from + 1)?;
                if from == 0 {
                    f.write_str("the starting position")?;
                } else {
                    write!(f, "the position after move {from}")?;
                }
                f.write_str(" recurs with the same player to move)")
            }
            GameEnd::MoveLimit { limit } => write!(f, "move limit reached ({limit})"),
        }
    }
}

/// Why a move is illegal; each names the rule it breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IllegalReason {
    /// The point holds a stone.
    Occupied,
    /// The point is not on the board.
    OffBoard,
    /// Suicide is forbidden (`single_stone`: only single-stone suicide is).
    Suicide {
        /// The rules string in force.
        rules: String,
        /// Whether only single-stone suicide is forbidden (multi-stone allowed).
        single_stone: bool,
    },
    /// Simple ko: the ko may not be retaken at once.
    Ko {
        /// The rules string in force.
        rules: String,
    },
    /// Positional superko.
    PositionalSuperko {
        /// Move after which the position occurred (0: the start).
        after_move: usize,
    },
    /// Situational superko.
    SituationalSuperko {
        /// Move after which the position occurred with the same player to move (0: the start).
        after_move: usize,
    },
    /// JK art. 2.7.1: no pass just after `DP`, `DPCC` or `DPCCCC`.
    JkNoPass,
    /// JK art. 2.7.2: no normal pass just after `N`, `P`, `E`, `ECC` or `ECCCC` (not `ED`).
    JkNoNormalPass,
    /// The game is over.
    GameOver {
        /// How it ended.
        end: GameEnd,
    },
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let after = |n: usize| {
            if n == 0 {
                "the starting position".to_string()
            } else {
                format!("the position after move {n}")
            }
        };
        match self {
            IllegalReason::Occupied => f.write_str("point is occupied"),
            IllegalReason::OffBoard => f.write_str("point is off the board"),
            IllegalReason::Suicide {
                rules,
                single_stone: false,
            } => write!(f, "suicide is forbidden under {rules}"),
            IllegalReason::Suicide {
                rules,
                single_stone: true,
            } => write!(f, "single-stone suicide is forbidden under {rules}"),
            IllegalReason::Ko { rules } => {
                write!(f, "ko: retaking the ko at once is forbidden under {rules}")
            }
            IllegalReason::PositionalSuperko { after_move } => {
                write!(f, "positional superko (recreates {})", after(*after_move))
            }
            IllegalReason::SituationalSuperko { after_move } => write!(
                f,
                "situational superko (recreates {} with the same player to move)",
                after(*after_move)
            ),
            IllegalReason::JkNoPass => {
                f.write_str("no pass is allowed just after DP, DPCC or DPCCCC (JK art. 2.7.1)")
            }
            IllegalReason::JkNoNormalPass => f.write_str(
                "a normal pass is not allowed just after N, P, E, ECC or ECCCC (JK art. 2.7.2)",
            ),
            IllegalReason::GameOver { end } => write!(f, "the game is over ({end})"),
        }
    }
}

/// An illegal move: its number, player, the move and the rule it breaks.
///
/// Prints as `move 38 W C3: positional superko (recreates the position after move 34)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The number the move would have had (1 = the first move).
    pub number: usize,
    /// Who tried it.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// Why it is illegal.
    pub reason: IllegalReason,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move {} {} {}: {}",
            self.number,
            self.color.letter(),
            self.mv,
            self.reason
        )
    }
}

impl std::error::Error for IllegalMove {}

/// A checked candidate move, ready to apply.
#[derive(Clone, Copy, Debug)]
struct Checked {
    class: MoveClass,
}

/// A game of Go under one [`Rules`]: position, side to move, history and ending.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    board: Board,
    start: Board,
    start_to_move: Color,
    to_move: Color,
    handicap: u32,
    history: Vec<MoveRecord>,
    positions: ZobristMap<Occurrence>,
    situations: ZobristMap<u32>,
    pass_stones: [u32; 2],
    end: Option<GameEnd>,
}

impl Game {
    /// A new game on an empty board of the rules' size, Black to move.
    pub fn new(rules: Rules) -> Game {
        Game::from_position(rules, Board::new(rules.size), Color::Black)
    }

    /// A game from a set-up position (handicap stones, SGF `AB`/`AW`) with `to_move` to play.
    /// The rules' size is replaced by the board's.
    pub fn from_position(rules: Rules, board: Board, to_move: Color) -> Game {
        let rules = rules.with_size(board.size());
        let mut board = board;
        board.clear_undo();
        let mut g = Game {
            rules,
            start: board.clone(),
            board,
            start_to_move: to_move,
            to_move,
            handicap: 0,
            history: Vec::new(),
            positions: ZobristMap::default(),
            situations: ZobristMap::default(),
            pass_stones: [0; 2],
            end: None,
        };
        g.positions.insert(
            g.board.hash(),
            Occurrence {
                latest: 0,
                plays: 0,
                first_play: 0,
            },
        );
        g.situations.insert(situational(g.board.hash(), to_move), 0);
        g
    }

    /// Records the number of handicap stones (for the scoring's compensation to White).
    pub fn set_handicap(&mut self, stones: u32) {
        self.handicap = stones;
    }

    /// The number of handicap stones.
    pub fn handicap(&self) -> u32 {
        self.handicap
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The current position.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The position the game started from.
    pub fn start_board(&self) -> &Board {
        &self.start
    }

    /// Who moved first from the starting position.
    pub fn start_to_move(&self) -> Color {
        self.start_to_move
    }

    /// Who is to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// The moves so far.
    pub fn history(&self) -> &[MoveRecord] {
        &self.history
    }

    /// Number of moves played (passes included).
    pub fn move_count(&self) -> usize {
        self.history.len()
    }

    /// Who made the last move, if any.
    pub fn last_mover(&self) -> Option<Color> {
        self.history.last().map(|r| r.color)
    }

    /// How the game ended, if it has.
    pub fn end(&self) -> Option<GameEnd> {
        self.end
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Captured prisoners of `c` (stones taken by board plays; pass stones not included).
    pub fn captures(&self, c: Color) -> u32 {
        self.board.captures(c)
    }

    /// Pass stones `c` has received (the opponent's passes, plus JK art. 4.4's extra stone).
    pub fn pass_stones(&self, c: Color) -> u32 {
        self.pass_stones[c.index()]
    }

    /// Whether `mv` is legal for the side to move.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check(self.to_move, mv, None).is_ok()
    }

    /// Why `mv` would be illegal for the side to move, or `Ok` if it is legal.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        self.check(self.to_move, mv, None).map(|_| ())
    }

    /// Every legal move of the side to move: board plays sorted by column then row, then pass.
    /// Moves that are allowed but lose on the spot (JK art. 2.4 and 3.2) are listed.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out: Vec<Move> = self
            .board
            .points()
            .map(Move::Play)
            .filter(|&m| self.is_legal(m))
            .collect();
        if self.is_legal(Move::Pass) {
            out.push(Move::Pass);
        }
        out
    }

    /// Plays `mv` for the side to move (a pass is normal when the JK rule allows, else ending).
    pub fn play(&mut self, mv: Move) -> Result<Option<GameEnd>, IllegalMove> {
        self.play_as(self.to_move, mv)
    }

    /// Plays `mv` for `color` (SGF files may have one side move twice).
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<Option<GameEnd>, IllegalMove> {
        let checked = self.check(color, mv, None)?;
        self.apply(color, mv, checked);
        Ok(self.end)
    }

    /// Passes with an explicit JK kind (other rule sets treat both kinds alike).
    pub fn pass(&mut self, kind: PassKind) -> Result<Option<GameEnd>, IllegalMove> {
        let color = self.to_move;
        let checked = self.check(color, Move::Pass, Some(kind))?;
        self.apply(color, Move::Pass, checked);
        Ok(self.end)
    }

    /// `color` resigns.
    pub fn resign(&mut self, color: Color) {
        if self.end.is_none() {
            self.end = Some(GameEnd::Resignation { loser: color });
        }
    }

    /// `color` runs out of time (the clock lives outside the library) and loses.
    pub fn lose_on_time(&mut self, color: Color) {
        if self.end.is_none() {
            self.end = Some(GameEnd::Loss {
                loser: color,
                rule: LossRule::Time,
                at: self.history.len(),
            });
        }
    }

    /// The players agree the game is over (JK art. 4.4's extra pass stone applies).
    pub fn agree_end(&mut self) {
        if self.end.is_none() {
            self.finish(GameEnd::Agreement);
        }
    }

    /// Resumes play after consecutive passes ended the game (a life-and-death dispute settled
    /// by playing on); returns whether it did. Other endings are final.
    pub fn resume(&mut self) -> bool {
        if self.end == Some(GameEnd::Passes) {
            self.end = None;
            true
        } else {
            false
        }
    }

    /// Takes back the last move (or a resignation, a loss on time or an agreement); returns it.
    pub fn undo(&mut self) -> Option<MoveRecord> {
        if matches!(
            self.end,
            Some(GameEnd::Resignation { .. })
                | Some(GameEnd::Agreement)
                | Some(GameEnd::Loss {
                    rule: LossRule::Time,
                    ..
                })
        ) {
            if let Some(GameEnd::Agreement) = self.end {
                self.pass_stones = self.history.last().map_or([0; 2], |r| self.stones_after(r));
            }
            self.end = None;
            return self.history.last().copied();
        }
        let r = self.history.pop()?;
        if r.mv != Move::Pass {
            self.board.undo();
        }
        let n = self.history.len() as u32 + 1;
        match r.prev_pos {
            Some(o) => self.positions.insert(r.hash, o),
            None => self.positions.remove(&r.hash),
        };
        let sit = situational(r.hash, r.color.opponent());
        debug_assert!(self.situations.get(&sit) == Some(&n));
        match r.prev_sit {
            Some(o) => self.situations.insert(sit, o),
            None => self.situations.remove(&sit),
        };
        self.pass_stones = r.pass_stones_before;
        self.to_move = r.color;
        self.end = None;
        Some(r)
    }

    fn stones_after(&self, r: &MoveRecord) -> [u32; 2] {
        let mut s = r.pass_stones_before;
        if r.mv == Move::Pass && self.rules.pass_stones() {
            s[r.color.opponent().index()] += 1;
        }
        s
    }

    fn illegal(&self, color: Color, mv: Move, reason: IllegalReason) -> IllegalMove {
        IllegalMove {
            number: self.history.len() + 1,
            color,
            mv,
            reason,
        }
    }

    fn check(
        &self,
        color: Color,
        mv: Move,
        kind: Option<PassKind>,
    ) -> Result<Checked, IllegalMove> {
        if let Some(end) = self.end {
            return Err(self.illegal(color, mv, IllegalReason::GameOver { end }));
        }
        let p = match mv {
            Move::Pass => return self.check_pass(color, kind).map(|class| Checked { class }),
            Move::Play(p) => p,
        };
        if !self.board.contains(p) {
            return Err(self.illegal(color, mv, IllegalReason::OffBoard));
        }
        let probe = match self.board.probe(p, color) {
            Ok(pr) => pr,
            Err(_) => return Err(self.illegal(color, mv, IllegalReason::Occupied)),
        };
        let rules = &self.rules;
        if probe.suicide > 0 {
            let forbidden = match rules.suicide {
                Suicide::Forbidden => Some(false),
                Suicide::Multi if probe.suicide == 1 => Some(true),
                _ => None,
            };
            if let Some(single_stone) = forbidden {
                return Err(self.illegal(
                    color,
                    mv,
                    IllegalReason::Suicide {
                        rules: rules.name(),
                        single_stone,
                    },
                ));
            }
        }
        match rules.ko {
            Ko::Simple => {
                // The previous move was the opponent's ko capture and this retakes one stone.
                let last_was_play = self
                    .history
                    .last()
                    .is_some_and(|r| r.mv != Move::Pass && r.color != color);
                if last_was_play && self.board.ko_point() == Some(p) && probe.captured == 1 {
                    return Err(self.illegal(
                        color,
                        mv,
                        IllegalReason::Ko {
                            rules: rules.name(),
                        },
                    ));
                }
            }
            Ko::Positional => {
                if let Some(o) = self.positions.get(&probe.hash) {
                    return Err(self.illegal(
                        color,
                        mv,
                        IllegalReason::PositionalSuperko {
                            after_move: o.latest as usize,
                        },
                    ));
                }
            }
            Ko::Situational => {
                if let Some(&n) = self
                    .situations
                    .get(&situational(probe.hash, color.opponent()))
                {
                    return Err(self.illegal(
                        color,
                        mv,
                        IllegalReason::SituationalSuperko {
                            after_move: n as usize,
                        },
                    ));
                }
            }
            Ko::Jk => {}
        }
        let class = if probe.ko_capture {
            MoveClass::KoCapture
        } else {
            MoveClass::Normal
        };
        Ok(Checked { class })
    }

    /// The class of a pass, or why it is forbidden (JK art. 2.7).
    fn check_pass(&self, color: Color, kind: Option<PassKind>) -> Result<MoveClass, IllegalMove> {
        if self.rules.passes != Passes::Jk {
            return Ok(match kind {
                Some(PassKind::Ending) => MoveClass::EndingPass,
                _ => MoveClass::NormalPass,
            });
        }
        if self.jk_no_pass() {
            return Err(self.illegal(color, Move::Pass, IllegalReason::JkNoPass));
        }
        let normal_ok = !self.jk_no_normal_pass();
        match kind {
            Some(PassKind::Normal) if !normal_ok => {
                Err(self.illegal(color, Move::Pass, IllegalReason::JkNoNormalPass))
            }
            Some(PassKind::Normal) => Ok(MoveClass::NormalPass),
            Some(PassKind::Ending) => Ok(MoveClass::EndingPass),
            None if normal_ok => Ok(MoveClass::NormalPass),
            None => Ok(MoveClass::EndingPass),
        }
    }

    /// Whether the ko captures `from..=to` (all `C`, even in number) form a `D`: the last one
    /// removes the stone placed by the first.
    fn is_d(&self, from: usize, to: usize) -> bool {
        if to < from || (to - from + 1) & 1 != 0 {
            return false;
        }
        let h = &self.history;
        if !(from..=to).all(|i| h[i].class == MoveClass::KoCapture) {
            return false;
        }
        h[to].ko_taken.is_some() && h[to].ko_taken == h[from].mv.point()
    }

    /// Whether the history ends with `D` followed exactly by `tail` (JK letters, no `D`).
    fn ends_with_d_then(&self, tail: &str) -> bool {
        let h = &self.history;
        let n = h.len();
        let t = tail.len();
        if n < t + 2 {
            return false;
        }
        if !tail
            .chars()
            .zip(&h[n - t..])
            .all(|(c, r)| r.class.letter() == c)
        {
            return false;
        }
        let end = n - t - 1; // the last move of D
                             // Any even run of ko captures ending at `end` whose last capture removes the first's stone.
        let mut len = 2;
        while len <= end + 1 {
            if self.is_d(end + 1 - len, end) {
                return true;
            }
            if h[end + 1 - len].class != MoveClass::KoCapture
                || h[end + 2 - len].class != MoveClass::KoCapture
            {
                break;
            }
            len += 2;
        }
        false
    }

    /// JK art. 2.7.1: no pass just after `DP`, `DPCC`, `DPCCCC`.
    fn jk_no_pass(&self) -> bool {
        ["P", "PCC", "PCCCC"]
            .iter()
            .any(|t| self.ends_with_d_then(t))
    }

    /// JK art. 2.7.2: no normal pass just after `N`, `P`, `E`, `ECC`, `ECCCC` (not `ED`).
    fn jk_no_normal_pass(&self) -> bool {
        let h = &self.history;
        let n = h.len();
        let Some(last) = h.last() else {
            return false;
        };
        if matches!(
            last.class,
            MoveClass::Normal | MoveClass::NormalPass | MoveClass::EndingPass
        ) {
            return true;
        }
        for k in [2usize, 4] {
            if n > k
                && h[n - k - 1].class == MoveClass::EndingPass
                && h[n - k..].iter().all(|r| r.class == MoveClass::KoCapture)
                && !self.is_d(n - k, n - 1)
            {
                return true;
            }
        }
        false
    }

    fn apply(&mut self, color: Color, mv: Move, checked: Checked) {
        let number = self.history.len() + 1;
        let pass_stones_before = self.pass_stones;
        let mut captured = 0;
        let mut ko_taken = None;
        let mut suicide = 0;
        if let Move::Play(p) = mv {
            // Cannot fail: `check` found the point empty and on the board.
            if let Ok(out) = self.board.play(p, color) {
                captured = out.captured;
                suicide = out.suicide;
                if out.ko_capture {
                    ko_taken = self.board.last_captured().first().copied();
                }
            }
        } else if self.rules.pass_stones() {
            self.pass_stones[color.opponent().index()] += 1;
        }
        let hash = self.board.hash();
        let is_play = mv != Move::Pass;
        let prev_pos = self.positions.get(&hash).copied();
        let occ = match prev_pos {
            Some(o) if is_play => Occurrence {
                latest: number as u32,
                plays: o.plays + 1,
                first_play: if o.plays == 0 {
                    number as u32
                } else {
                    o.first_play
                },
            },
            Some(o) => Occurrence {
                latest: number as u32,
                ..o
            },
            None => Occurrence {
                latest: number as u32,
                plays: is_play as u32,
                first_play: if is_play { number as u32 } else { 0 },
            },
        };
        self.positions.insert(hash, occ);
        let sit = situational(hash, color.opponent());
        let prev_sit = self.situations.insert(sit, number as u32);
        let captures_after = [
            self.board.captures(Color::Black),
            self.board.captures(Color::White),
        ];
        self.history.push(MoveRecord {
            color,
            mv,
            class: checked.class,
            hash,
            captured,
            ko_taken,
            captures_after,
            pass_stones_before,
            prev_pos,
            prev_sit,
        });
        self.to_move = color.opponent();
        self.decide_end(color, is_play, suicide, prev_pos, prev_sit);
    }

    /// Applies the rules that end the game after the move just recorded.
    fn decide_end(
        &mut self,
        color: Color,
        is_play: bool,
        suicide: u32,
        prev_pos: Option<Occurrence>,
        prev_sit: Option<u32>,
    ) {
        let n = self.history.len();
        if is_play {
            if suicide > 0 && self.rules.suicide == Suicide::Loses {
                self.end = Some(GameEnd::Loss {
                    loser: color,
                    rule: LossRule::Suicide,
                    at: n,
                });
                return;
            }
            if self.rules.ko == Ko::Jk {
                let h = &self.history;
                if n >= 3 && h[n - 3].mv != Move::Pass && h[n - 3].hash == h[n - 1].hash {
                    self.end = Some(GameEnd::Loss {
                        loser: color,
                        rule: LossRule::ImmediateRepetition,
                        at: n,
                    });
                    return;
                }
                if let Some(o) = prev_pos {
                    if o.plays >= 2 {
                        let first = o.first_play as usize;
                        let second = o.latest as usize;
                        let before = h[first - 1].captures_after;
                        let now = h[n - 1].captures_after;
                        let captured = [now[0] - before[0], now[1] - before[1]];
                        let winner = match captured[0].cmp(&captured[1]) {
                            std::cmp::Ordering::Greater => Some(Color::Black),
                            std::cmp::Ordering::Less => Some(Color::White),
                            std::cmp::Ordering::Equal => None,
                        };
                        let second = self.second_play_occurrence(first, second, n);
                        self.end = Some(GameEnd::JkRepetition {
                            winner,
                            first,
                            second,
                            third: n,
                            captured,
                        });
                        return;
                    }
                }
            } else if self.rules.cycles == Cycles::NoResult {
                if let Some(from) = prev_sit {
                    self.end = Some(GameEnd::NoResult {
                        from: from as usize,
                        to: n,
                    });
                    return;
                }
            }
        } else {
            let end = match self.rules.end {
                End::Jk => self.jk_ending_sequence(),
                End::TwoPasses => self.passes_end(),
            };
            if let Some(e) = end {
                self.finish(e);
                return;
            }
        }
        if let MoveLimit::Void(k) | MoveLimit::Draw(k) | MoveLimit::Komi(k) = self.rules.move_limit
        {
            if n >= k as usize {
                self.end = Some(GameEnd::MoveLimit {
                    limit: self.rules.move_limit,
                });
            }
        }
    }

    /// The move number of the middle occurrence (by a board play) of a thrice-seen position.
    fn second_play_occurrence(&self, first: usize, latest: usize, third: usize) -> usize {
        let target = self.history[third - 1].hash;
        (first + 1..third)
            .find(|&i| self.history[i - 1].hash == target && self.history[i - 1].mv != Move::Pass)
            .unwrap_or(latest)
    }

    /// Two consecutive passes end the game; under AGA's rule the last one must be White's.
    fn passes_end(&self) -> Option<GameEnd> {
        let h = &self.history;
        let n = h.len();
        if n < 2 || h[n - 2].mv != Move::Pass {
            return None;
        }
        if self.rules.passes == Passes::Aga && h[n - 1].color != Color::White {
            return None;
        }
        Some(GameEnd::Passes)
    }

    /// JK art. 4.3: the moves end with `EE`, `ECCE` or `ECCCCE`.
    fn jk_ending_sequence(&self) -> Option<GameEnd> {
        let letters: String = self
            .history
            .iter()
            .rev()
            .take(6)
            .map(|r| r.class.letter())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        ["EE", "ECCE", "ECCCCE"]
            .into_iter()
            .find(|s| letters.ends_with(s))
            .map(|sequence| GameEnd::JkSequence { sequence })
    }

    /// Ends the game, applying JK art. 4.4 (Black moved last: White hands over a pass stone).
    fn finish(&mut self, end: GameEnd) {
        if self.rules.passes == Passes::Jk && self.last_mover() == Some(Color::Black) {
            self.pass_stones[Color::Black.index()] += 1;
        }
        self.end = Some(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Preset;
    use crate::Size;

    fn game(rules: &str, rows: &[&str], to_move: Color) -> Game {
        let b = Board::from_rows(rows).unwrap();
        Game::from_position(Rules::parse(rules).unwrap(), b, to_move)
    }

    fn mv(g: &Game, s: &str) -> Move {
        Move::from_gtp(s, g.board().size()).unwrap()
    }

    fn play(g: &mut Game, s: &str) -> Result<Option<GameEnd>, IllegalMove> {
        let m = mv(g, s);
        g.play(m)
    }

    #[test]
    fn occupied_point_is_an_illegal_move_naming_the_rule() {
        let mut g = Game::new(Rules::preset(Preset::Japanese).with_size(Size::square(9).unwrap()));
        play(&mut g, "E5").unwrap();
        let e = play(&mut g, "E5").unwrap_err();
        assert_eq!(e.to_string(), "move 2 W E5: point is occupied");
    }

    #[test]
    fn simple_ko_forbids_the_immediate_retake_but_not_after_a_pass_or_elsewhere() {
        let ko = [".XO.", "XO.O", ".XO.", "...."];
        let mut g = game("japanese", &ko, Color::Black);
        assert_eq!(play(&mut g, "C3").unwrap(), None);
        let e = play(&mut g, "B3").unwrap_err();
        assert_eq!(
            e.to_string(),
            "move 2 W B3: ko: retaking the ko at once is forbidden under japanese"
        );
        play(&mut g, "A1").unwrap();
        play(&mut g, "D1").unwrap();
        assert!(play(&mut g, "B3").is_ok());
    }

    #[test]
    fn two_passes_end_the_game() {
        let mut g = Game::new(Rules::preset(Preset::Chinese).with_size(Size::square(5).unwrap()));
        play(&mut g, "pass").unwrap();
        assert_eq!(play(&mut g, "pass").unwrap(), Some(GameEnd::Passes));
        assert!(play(&mut g, "C3").is_err());
        assert!(g.resume());
        play(&mut g, "C3").unwrap();
        g.undo();
        g.undo();
        assert!(!g.is_over());
    }
}
