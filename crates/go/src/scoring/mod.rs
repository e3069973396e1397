//! Scoring a finished position under any [`Rules`]: territory, area, Ing fill counting, JK art. 5
//! and Kang's "definition of baduk", with exact fractions.
//!
//! Everything here is a pure function of the final board, what the game recorded ([`GameFacts`]:
//! captures, passes, who moved last, handicap, Ing time extensions), which stones are dead and
//! which empty points lie in a seki ([`Settled`]), and the rule set. Deciding life and death is the
//! job of [`crate::life`]; this module only counts.

pub mod record;
pub mod table;

use crate::board::Board;
use crate::game::GameEnd;
use crate::point::{Color, Point};
use crate::rules::{gcd, HandicapBonus, Komi, Life, MoveLimit, Passes, Rules, Scoring, Seki, Ties};
use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// An exact rational number (scores with Ing seki shares come in thirds, fifths, sixths …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frac {
    num: i64,
    den: i64,
}

impl Frac {
    /// Zero.
    pub const ZERO: Frac = Frac { num: 0, den: 1 };

    /// `num / den` in lowest terms; a zero denominator gives zero (never used with one).
    pub fn new(num: i64, den: i64) -> Frac {
        if den == 0 {
            return Frac::ZERO;
        }
        let g = gcd(num, den);
        let s = if den < 0 { -1 } else { 1 };
        Frac {
            num: s * num / g,
            den: s * den / g,
        }
    }

    /// The integer `n`.
    pub const fn int(n: i64) -> Frac {
        Frac { num: n, den: 1 }
    }

    /// `h` half points.
    pub fn halves(h: i64) -> Frac {
        Frac::new(h, 2)
    }

    /// Numerator (in lowest terms, carrying the sign).
    pub fn num(self) -> i64 {
        self.num
    }

    /// Denominator (in lowest terms, positive).
    pub fn den(self) -> i64 {
        self.den
    }

    /// The absolute value.
    pub fn abs(self) -> Frac {
        Frac {
            num: self.num.abs(),
            den: self.den,
        }
    }

    /// The sign: -1, 0 or 1.
    pub fn signum(self) -> i64 {
        self.num.signum()
    }

    /// The value as a float (for display and statistics only).
    pub fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// The JSON form: a number when it is exact in binary (halves, quarters …), else `"num/den"`.
    pub fn to_json(self) -> serde_json::Value {
        if self.den & (self.den - 1) == 0 && self.den <= 1 << 20 {
            serde_json::json!(self.as_f64())
        } else {
            serde_json::Value::String(format!("{}/{}", self.num, self.den))
        }
    }
}

impl Default for Frac {
    fn default() -> Frac {
        Frac::ZERO
    }
}

impl From<i64> for Frac {
    fn from(n: i64) -> Frac {
        Frac::int(n)
    }
}

impl Add for Frac {
    type Output = Frac;
    fn add(self, o: Frac) -> Frac {
        Frac::new(self.num * o.den + o.num * self.den, self.den * o.den)
    }
}

impl AddAssign for Frac {
    fn add_assign(&mut self, o: Frac) {
        *self = *self + o;
    }
}

impl Sub for Frac {
    type Output = Frac;
    fn sub(self, o: Frac) -> Frac {
        self + (-o)
    }
}

impl Neg for Frac {
    type Output = Frac;
    fn neg(self) -> Frac {
        Frac {
            num: -self.num,
            den: self.den,
        }
    }
}

impl Mul for Frac {
    type Output = Frac;
    fn mul(self, o: Frac) -> Frac {
        Frac::new(self.num * o.num, self.den * o.den)
    }
}

impl PartialOrd for Frac {
    fn partial_cmp(&self, o: &Frac) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Frac {
    fn cmp(&self, o: &Frac) -> Ordering {
        (self.num as i128 * o.den as i128).cmp(&(o.num as i128 * self.den as i128))
    }
}

impl fmt::Display for Frac {
    /// `3`, `3.5`, `-0.5`; a fraction whose decimal expansion ends as a decimal (`0.25`, from
    /// a komi of 3.75), and others as a mixed number: `1 5/6`, `-2/3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.num < 0 { "-" } else { "" };
        let a = self.num.abs();
        let (whole, rest) = (a / self.den, a % self.den);
        let mut d = self.den;
        for p in [2, 5] {
            while d % p == 0 {
                d /= p;
            }
        }
        match (self.den, whole, rest) {
            (1, _, _) => write!(f, "{sign}{whole}"),
            (_, _, _) if d == 1 => {
                write!(f, "{sign}{whole}.")?;
                let mut r = rest;
                while r != 0 {
                    r *= 10;
                    write!(f, "{}", r / self.den)?;
                    r %= self.den;
                }
                Ok(())
            }
            (_, 0, _) => write!(f, "{sign}{rest}/{}", self.den),
            _ => write!(f, "{sign}{whole} {rest}/{}", self.den),
        }
    }
}

const SET_WORDS: usize = Point::INDEX_LIMIT.div_ceil(64);

/// A set of points as a fixed bit set (no allocation; `Copy`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointSet {
    bits: [u64; SET_WORDS],
}

impl Default for PointSet {
    fn default() -> PointSet {
        PointSet::new()
    }
}

impl fmt::Debug for PointSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl PointSet {
    /// The empty set.
    pub const fn new() -> PointSet {
        PointSet {
            bits: [0; SET_WORDS],
        }
    }

    /// Adds `p`.
    #[inline]
    pub fn insert(&mut self, p: Point) {
        self.bits[p.index() / 64] |= 1 << (p.index() % 64);
    }

    /// Removes `p`.
    #[inline]
    pub fn remove(&mut self, p: Point) {
        self.bits[p.index() / 64] &= !(1 << (p.index() % 64));
    }

    /// Whether `p` is in the set.
    #[inline]
    pub fn contains(&self, p: Point) -> bool {
        self.bits[p.index() / 64] >> (p.index() % 64) & 1 == 1
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }

    /// Adds every point of `o`.
    pub fn union_with(&mut self, o: &PointSet) {
        for (a, b) in self.bits.iter_mut().zip(o.bits.iter()) {
            *a |= b;
        }
    }

    /// The points, in index order.
    pub fn iter(&self) -> impl Iterator<Item = Point> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Point::from_index(w * 64 + b)
            })
        })
    }
}

impl FromIterator<Point> for PointSet {
    fn from_iter<I: IntoIterator<Item = Point>>(it: I) -> PointSet {
        let mut s = PointSet::new();
        for p in it {
            s.insert(p);
        }
        s
    }
}

/// What the game recorded, beyond the final board, that scoring needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameFacts {
    /// Opponent stones each colour captured by board plays (index [`Color::index`]).
    pub captures: [u32; 2],
    /// Passes each colour made (each is a pass stone to the opponent where the rules say so).
    pub passes: [u32; 2],
    /// Who made the last move (board play or pass), if anyone.
    pub last_mover: Option<Color>,
    /// Number of handicap stones Black received (0 or 1 means none).
    pub handicap: u32,
    /// Ing time extensions each colour used (seed 002 §4: 2 points each, at most 3; a 4th loses).
    pub time_extensions: [u32; 2],
    /// Whether the game ended without result (an endless cycle under `cycles=no-result`).
    pub void: bool,
    /// Moves played (board plays and passes), for the rules' move limit (seed 001 appendix 4).
    pub moves: u32,
}

/// Which stones are dead and which empty points belong to a seki, as settled before counting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// Stones to remove as dead (every stone of a chain should be listed, or any one of them).
    pub dead: PointSet,
    /// Empty points inside a seki (shared liberties and the eyes of seki groups).
    pub seki: PointSet,
}

impl Settled {
    /// The settlement a game's end imposes, if any, with a note: JK art. 4.3 says a game ended
    /// by `EE`, `ECCE` or `ECCCCE` has no dead stones, so every stone is alive (`seki` as given).
    pub fn imposed_by_end(end: Option<GameEnd>, seki: PointSet) -> Option<(Settled, String)> {
        match end {
            Some(GameEnd::JkSequence { sequence }) => Some((
                Settled {
                    dead: PointSet::new(),
                    seki,
                },
                format!("JK art. 4.3: ended by {sequence}, so no dead stones (every stone alive)"),
            )),
            _ => None,
        }
    }
}

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `winner` won by `margin` points (0 when the rules give ties to one side).
    Win {
        /// The winner.
        winner: Color,
        /// The margin (non-negative).
        margin: Frac,
    },
    /// A draw (`0` in SGF).
    Draw,
    /// No result (`Void`).
    Void,
    /// A loss on time (Ing: a fourth extension), the winner given.
    Time {
        /// The winner.
        winner: Color,
    },
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } | Outcome::Time { winner } => Some(winner),
            Outcome::Draw | Outcome::Void => None,
        }
    }
}

impl Outcome {
    /// The result as a reader expects it in a table: `Draw` for a draw, else the `RE` form.
    pub fn text(&self) -> String {
        match self {
            Outcome::Draw => "Draw".to_string(),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Outcome {
    /// The SGF `RE` form: `B+3.5`, `W+1 5/6`, `0`, `Void`, `B+T`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, margin } => write!(f, "{}+{margin}", winner.letter()),
            Outcome::Draw => f.write_str("0"),
            Outcome::Void => f.write_str("Void"),
            Outcome::Time { winner } => write!(f, "{}+T", winner.letter()),
        }
    }
}

/// How each side's points were made up (index [`Color::index`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// Empty points reached by that colour only (seki points excluded where the rules say so).
    pub territory: [u32; 2],
    /// Living stones on the board.
    pub stones: [u32; 2],
    /// Opponent stones captured during play.
    pub captures: [u32; 2],
    /// Opponent stones removed as dead at the end.
    pub dead_removed: [u32; 2],
    /// Pass stones received from the opponent (JK art. 4.4's extra one included).
    pub pass_stones: [u32; 2],
    /// Empty points reached by both colours (dame, seki shared liberties included).
    pub dame: u32,
    /// Empty seki points counted to nobody (Japanese/Korean) or shared.
    pub seki_points: u32,
    /// Shares of seki dame (halves or in proportion to adjacent stones).
    pub seki_share: [Frac; 2],
    /// Komi given to White.
    pub komi: Frac,
    /// Handicap compensation given to White.
    pub handicap_bonus: u32,
    /// Points lost to Ing time extensions.
    pub penalties: [u32; 2],
}

/// A complete score under one rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Score {
    /// Black's points.
    pub black: Frac,
    /// White's points (komi and handicap compensation included).
    pub white: Frac,
    /// The result.
    pub outcome: Outcome,
    /// The parts each side's points were made of.
    pub breakdown: Breakdown,
    /// Stones removed as dead (none under `life=as-is`).
    pub dead: Vec<Point>,
    /// Empty points of a seki.
    pub seki: Vec<Point>,
    /// Human-readable notes: pass stones, dame, fractions, the article applied.
    pub notes: Vec<String>,
}

impl Score {
    /// One row of `go score --json` for this score under `rules`: rules, komi, points, margin,
    /// result, winner, dead stones, seki points and notes (callers add their own fields).
    pub fn to_json(&self, rules: &Rules) -> serde_json::Value {
        serde_json::json!({
            "rules": rules.to_string(),
            "komi": rules.komi.as_f64(),
            "black": self.black.to_json(),
            "white": self.white.to_json(),
            "margin": self.margin().to_json(),
            "result": self.outcome.to_string(),
            "winner": self.outcome.winner().map(|c| c.letter().to_string()),
            "dead": self.dead.iter().map(Point::to_string).collect::<Vec<_>>(),
            "seki": self.seki.iter().map(Point::to_string).collect::<Vec<_>>(),
            "notes": self.notes,
        })
    }

    /// Black's points minus White's.
    pub fn margin(&self) -> Frac {
        self.black - self.white
    }
}

/// Empty-region analysis of a board with dead stones taken off.
struct Regions {
    /// Per empty region: points, whether it touches black / white, adjacent stones b / w, seki.
    list: Vec<Region>,
}

struct Region {
    size: u32,
    touches: [bool; 2],
    adjacent: [u32; 2],
    seki: bool,
}

fn regions(board: &Board, dead: &PointSet, seki: &PointSet) -> Regions {
    let alive = |p: Point| -> Option<Color> {
        match board.get(p) {
            Some(c) if !dead.contains(p) => Some(c),
            _ => None,
        }
    };
    let mut seen = PointSet::new();
    let mut stack: Vec<Point> = Vec::with_capacity(64);
    let mut list = Vec::new();
    for start in board.points() {
        if alive(start).is_some() || seen.contains(start) {
            continue;
        }
        seen.insert(start);
        stack.push(start);
        let mut r = Region {
            size: 0,
            touches: [false; 2],
            adjacent: [0; 2],
            seki: false,
        };
        let mut adj = PointSet::new();
        while let Some(p) = stack.pop() {
            r.size += 1;
            r.seki |= seki.contains(p);
            for q in board.neighbours(p) {
                match alive(q) {
                    Some(c) => {
                        r.touches[c.index()] = true;
                        if !adj.contains(q) {
                            adj.insert(q);
                            r.adjacent[c.index()] += 1;
                        }
                    }
                    None => {
                        if !seen.contains(q) {
                            seen.insert(q);
                            stack.push(q);
                        }
                    }
                }
            }
        }
        list.push(r);
    }
    Regions { list }
}

/// Scores `board` under `rules`, given what the game recorded and which stones are dead.
///
/// Dead stones are removed and given to the opponent as prisoners (except under `life=as-is`,
/// where every stone is alive). Empty points are flooded from the living stones (JK art. 5.2,
/// Kang's definition, Tromp-Taylor): reached by one colour only is that colour's territory;
/// reached by both is dame.
pub fn score(board: &Board, facts: &GameFacts, settled: &Settled, rules: &Rules) -> Score {
    let no_dead = PointSet::new();
    let dead = if rules.life == Life::AsIs {
        &no_dead
    } else {
        &settled.dead
    };
    // Expand dead marks to whole chains.
    let mut dead_set = PointSet::new();
    for p in dead.iter() {
        if board.get(p).is_some() && !dead_set.contains(p) {
            for s in board.chain_stones(p) {
                dead_set.insert(s);
            }
        }
    }
    let mut bd = Breakdown::default();
    let mut dead_list = Vec::new();
    for p in board.points() {
        if let Some(c) = board.get(p) {
            if dead_set.contains(p) {
                bd.dead_removed[c.opponent().index()] += 1;
                dead_list.push(p);
            } else {
                bd.stones[c.index()] += 1;
            }
        }
    }
    bd.captures = facts.captures;
    let regs = regions(board, &dead_set, &settled.seki);
    let mut shared = [Frac::ZERO; 2];
    for r in &regs.list {
        let seki_excluded = r.seki && rules.seki == Seki::None;
        if r.seki {
            bd.seki_points += r.size;
        }
        match r.touches {
            [true, false] | [false, true] => {
                if !seki_excluded {
                    let c = if r.touches[0] { 0 } else { 1 };
                    bd.territory[c] += r.size;
                }
            }
            [true, true] => {
                bd.dame += r.size;
                if r.seki {
                    let n = r.size as i64;
                    match rules.seki {
                        Seki::Halves => {
                            shared[0] += Frac::new(n, 2);
                            shared[1] += Frac::new(n, 2);
                        }
                        Seki::Proportional => {
                            let (b, w) = (r.adjacent[0] as i64, r.adjacent[1] as i64);
                            shared[0] += Frac::new(n * b, b + w);
                            shared[1] += Frac::new(n * w, b + w);
                        }
                        Seki::None | Seki::Counted => {}
                    }
                }
            }
            [false, false] => {}
        }
    }
    bd.seki_share = shared;
    let pass_stones = rules.pass_stones();
    if pass_stones {
        bd.pass_stones = [facts.passes[1], facts.passes[0]];
        if rules.passes == Passes::Jk && facts.last_mover == Some(Color::Black) {
            bd.pass_stones[0] += 1;
        }
    }
    bd.komi = {
        let (num, den) = rules.komi.fraction();
        Frac::new(num, den)
    };
    let n = facts.handicap;
    bd.handicap_bonus = match rules.handicap_bonus {
        _ if n < 2 => 0,
        HandicapBonus::Zero => 0,
        HandicapBonus::N => n,
        HandicapBonus::NMinusOne => n - 1,
    };
    for c in 0..2 {
        bd.penalties[c] = 2 * facts.time_extensions[c].min(3);
    }
    let mut notes = Vec::new();
    let mut pts = [Frac::ZERO; 2];
    for c in 0..2 {
        let o = 1 - c;
        let t = bd.territory[c] as i64;
        let prisoners = (bd.captures[c] + bd.dead_removed[c]) as i64;
        pts[c] = match rules.scoring {
            Scoring::Territory | Scoring::Jk => t + prisoners + bd.pass_stones[c] as i64,
            Scoring::Area | Scoring::Ing => bd.stones[c] as i64 + t,
            // Kang: (territory incl. dame) − own removed stones − dame.
            Scoring::Kang => {
                let own_removed = (bd.captures[o] + bd.dead_removed[o]) as i64;
                (t + bd.dame as i64) - own_removed - bd.dame as i64
            }
        }
        .into();
        pts[c] += shared[c];
        pts[c] = pts[c] - Frac::int(bd.penalties[c] as i64);
    }
    pts[1] += bd.komi + Frac::int(bd.handicap_bonus as i64);
    write_notes(&mut notes, rules, facts, &bd, &dead_list);
    let margin = pts[0] - pts[1];
    // Seed 001 appendix 4: past the move limit the game is void, drawn, or decided by komi alone.
    let limit = match rules.move_limit {
        MoveLimit::Void(n) | MoveLimit::Draw(n) | MoveLimit::Komi(n) if facts.moves >= n => {
            notes.push(format!("move limit {} reached", rules.move_limit));
            Some(rules.move_limit)
        }
        _ => None,
    };
    let outcome = if facts.void || matches!(limit, Some(MoveLimit::Void(_))) {
        Outcome::Void
    } else if matches!(limit, Some(MoveLimit::Draw(_))) {
        Outcome::Draw
    } else if matches!(limit, Some(MoveLimit::Komi(_))) {
        match bd.komi.signum() {
            1 => Outcome::Win {
                winner: Color::White,
                margin: bd.komi,
            },
            -1 => Outcome::Win {
                winner: Color::Black,
                margin: bd.komi.abs(),
            },
            _ => Outcome::Draw,
        }
    } else if facts.time_extensions[0] > 3 {
        Outcome::Time {
            winner: Color::White,
        }
    } else if facts.time_extensions[1] > 3 {
        Outcome::Time {
            winner: Color::Black,
        }
    } else {
        match margin.signum() {
            1 => Outcome::Win {
                winner: Color::Black,
                margin,
            },
            -1 => Outcome::Win {
                winner: Color::White,
                margin: margin.abs(),
            },
            _ => match rules.ties {
                Ties::Draw => Outcome::Draw,
                Ties::Black => Outcome::Win {
                    winner: Color::Black,
                    margin: Frac::ZERO,
                },
                Ties::White => Outcome::Win {
                    winner: Color::White,
                    margin: Frac::ZERO,
                },
            },
        }
    };
    let seki = board
        .points()
        .filter(|&p| settled.seki.contains(p) && board.get(p).is_none())
        .collect();
    Score {
        black: pts[0],
        white: pts[1],
        outcome,
        breakdown: bd,
        dead: dead_list,
        seki,
        notes,
    }
}

fn write_notes(
    notes: &mut Vec<String>,
    rules: &Rules,
    facts: &GameFacts,
    bd: &Breakdown,
    dead: &[Point],
) {
    let method = match rules.scoring {
        Scoring::Territory => format!(
            "territory {}+{} prisoners",
            bd.territory[0],
            bd.captures[0] + bd.dead_removed[0] + bd.pass_stones[0]
        ),
        Scoring::Area => format!("area {}+{} stones", bd.territory[0], bd.stones[0]),
        Scoring::Ing => {
            let total = bd.territory[0] + bd.stones[0] + bd.territory[1] + bd.stones[1] + bd.dame;
            format!(
                "fill count: B fills {} of {total} points{}",
                bd.territory[0] + bd.stones[0],
                if total == 361 {
                    " (180 stones each)"
                } else {
                    ""
                }
            )
        }
        Scoring::Jk => "JK art. 5: territory + prisoners".to_string(),
        Scoring::Kang => format!(
            "Kang: territory − own removed ({}) − dame ({})",
            bd.captures[1] + bd.dead_removed[1],
            bd.dame
        ),
    };
    notes.push(method);
    if rules.life == Life::AsIs {
        notes.push("every stone alive (as-is)".into());
    } else if !dead.is_empty() {
        let mut s = format!("{} dead: ", dead.len());
        for (i, p) in dead.iter().enumerate() {
            if i == 6 {
                s.push('…');
                break;
            }
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&p.to_string());
        }
        notes.push(s);
    }
    if bd.seki_points > 0 {
        let what = match rules.seki {
            Seki::None => "not territory".to_string(),
            Seki::Counted => "to whoever reaches them".to_string(),
            Seki::Halves | Seki::Proportional => format!(
                "dame shared B {} / W {}",
                bd.seki_share[0], bd.seki_share[1]
            ),
        };
        notes.push(format!("{} seki points {what}", bd.seki_points));
    }
    if bd.dame > 0 && !matches!(rules.scoring, Scoring::Kang) {
        notes.push(format!("{} dame", bd.dame));
    }
    if rules.pass_stones() && bd.pass_stones != [0, 0] {
        notes.push(format!(
            "pass stones B {} W {}",
            bd.pass_stones[0], bd.pass_stones[1]
        ));
    }
    if rules.passes == Passes::Jk && facts.last_mover == Some(Color::Black) {
        notes.push("art. 4.4: Black moved last, +1 pass stone".into());
    }
    if matches!(rules.scoring, Scoring::Area | Scoring::Ing) && rules.pass_stones() {
        let terr = (bd.territory[0] as i64 + (bd.captures[0] + bd.dead_removed[0]) as i64)
            - (bd.territory[1] as i64 + (bd.captures[1] + bd.dead_removed[1]) as i64)
            + (facts.passes[1] as i64 - facts.passes[0] as i64);
        notes.push(format!("territory + pass stones margin B{terr:+}"));
    }
    if bd.handicap_bonus > 0 {
        notes.push(format!("handicap +{} to W", bd.handicap_bonus));
    }
    if bd.penalties != [0, 0] {
        notes.push(format!(
            "time extensions −{} B, −{} W",
            bd.penalties[0], bd.penalties[1]
        ));
    }
    if rules.ties != Ties::Draw {
        notes.push(format!("ties → {}", rules.ties));
    }
    // Ing's rules are the one rule set that fixes komi (8 points); any other is counted as
    // given, and said.
    if rules.preset == crate::rules::Preset::Ing && rules.komi != Komi::from_halves(16) {
        notes.push(format!("komi {} (Ing's rules fix komi at 8)", rules.komi));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jk_art_4_3_ending_sequence_leaves_no_dead_stones() {
        let seki: PointSet = [Point::new(0, 0)].into_iter().collect();
        let end = Some(GameEnd::JkSequence { sequence: "ECCE" });
        let (settled, note) = Settled::imposed_by_end(end, seki).expect("JK ending");
        assert!(settled.dead.is_empty());
        assert_eq!(settled.seki, seki);
        assert!(note.contains("ECCE"), "{note}");
        assert!(Settled::imposed_by_end(Some(GameEnd::Passes), seki).is_none());
        assert!(Settled::imposed_by_end(None, seki).is_none());
    }

    #[test]
    fn fractions_print_as_mixed_numbers() {
        assert_eq!(Frac::new(11, 6).to_string(), "1 5/6");
        assert_eq!(Frac::new(-11, 6).to_string(), "-1 5/6");
        assert_eq!(Frac::new(7, 2).to_string(), "3.5");
        assert_eq!(Frac::new(2, 3).to_string(), "2/3");
        assert_eq!(Frac::new(1, 4).to_string(), "0.25");
        assert_eq!(Frac::new(-63, 10).to_string(), "-6.3");
        assert_eq!(Frac::new(6, 3).to_string(), "2");
        assert_eq!(Frac::new(1, 2) + Frac::new(1, 3), Frac::new(5, 6));
        assert_eq!(Frac::new(7, 2).to_json(), serde_json::json!(3.5));
        assert_eq!(Frac::new(11, 6).to_json(), serde_json::json!("11/6"));
    }

    #[test]
    fn point_sets_hold_every_board_point() {
        let s: PointSet = crate::point::Size::square(25).unwrap().points().collect();
        assert_eq!(s.len(), 625);
        assert_eq!(s.iter().count(), 625);
    }
}
