//! Colours, board sizes, points and moves, with GTP (`D4`) and SGF (`dd`) coordinates.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The smallest side length a board may have.
pub const MIN_SIDE: u8 = 2;
/// The largest side length a board may have.
pub const MAX_SIDE: u8 = 25;
/// Distance between vertically adjacent points in the padded 1-D layout ([`Point::index`]).
pub const STRIDE: usize = MAX_SIDE as usize + 1;
/// Number of cells of the padded 1-D layout (every board size fits in it, and so does every
/// diagonal neighbour of a point: the last cell is the one past the top-right corner of 25×25).
pub(crate) const CELLS: usize = (MAX_SIDE as usize + 2) * STRIDE + 1;

/// A player (and the colour of a stone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum Color {
    /// Black, who moves first.
    Black = 0,
    /// White.
    White = 1,
}

impl Color {
    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White (for indexing per-colour arrays).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The SGF property letter: `B` or `W`.
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// A board size out of the range 2..=25 (or unreadable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError {
    /// What was asked for, as written.
    pub given: String,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "board size `{}` is not allowed: each side must be an integer from {MIN_SIDE} to {MAX_SIDE} (e.g. `19` or `9x13`)",
            self.given
        )
    }
}

impl std::error::Error for SizeError {}

/// A board size: `cols` × `rows`, each from 2 to 25 (SGF `SZ[cols:rows]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "SizeRepr", into = "SizeRepr")]
pub struct Size {
    cols: u8,
    rows: u8,
}

/// The serde form of [`Size`]: `{"cols": 19, "rows": 19}`.
#[derive(Serialize, Deserialize)]
struct SizeRepr {
    cols: u32,
    rows: u32,
}

impl TryFrom<SizeRepr> for Size {
    type Error = SizeError;
    fn try_from(r: SizeRepr) -> Result<Size, SizeError> {
        Size::new(r.cols, r.rows)
    }
}

impl From<Size> for SizeRepr {
    fn from(s: Size) -> SizeRepr {
        SizeRepr {
            cols: s.cols as u32,
            rows: s.rows as u32,
        }
    }
}

impl Size {
    /// A `cols` × `rows` board, or an error outside 2..=25.
    pub fn new(cols: u32, rows: u32) -> Result<Size, SizeError> {
        let ok = |n: u32| (MIN_SIDE as u32..=MAX_SIDE as u32).contains(&n);
        if ok(cols) && ok(rows) {
            Ok(Size {
                cols: cols as u8,
                rows: rows as u8,
            })
        } else if cols == rows {
            Err(SizeError {
                given: cols.to_string(),
            })
        } else {
            Err(SizeError {
                given: format!("{cols}x{rows}"),
            })
        }
    }

    /// A square `n` × `n` board, or an error outside 2..=25.
    pub fn square(n: u32) -> Result<Size, SizeError> {
        Size::new(n, n)
    }

    /// The usual 19 × 19 board.
    pub const fn nineteen() -> Size {
        Size { cols: 19, rows: 19 }
    }

    /// Number of columns (the SGF `SZ` first number).
    #[inline]
    pub const fn cols(self) -> u32 {
        self.cols as u32
    }

    /// Number of rows.
    #[inline]
    pub const fn rows(self) -> u32 {
        self.rows as u32
    }

    /// Number of points on the board.
    #[inline]
    pub const fn area(self) -> usize {
        self.cols as usize * self.rows as usize
    }

    /// Whether the board is square.
    pub const fn is_square(self) -> bool {
        self.cols == self.rows
    }

    /// Whether (`x`, `y`) lies on this board.
    #[inline]
    pub const fn contains_xy(self, x: u32, y: u32) -> bool {
        x < self.cols as u32 && y < self.rows as u32
    }

    /// Whether `p` lies on this board.
    #[inline]
    pub fn contains(self, p: Point) -> bool {
        self.contains_xy(p.x(), p.y())
    }

    /// Every point of the board, column by column from A1 (column-major, bottom to top).
    pub fn points(self) -> impl Iterator<Item = Point> {
        let rows = self.rows as u32;
        (0..self.cols as u32).flat_map(move |x| (0..rows).map(move |y| Point::new(x, y)))
    }

    /// Parses `19` or `9x13` (cols × rows; also `9:13` as in SGF).
    pub fn parse(s: &str) -> Result<Size, SizeError> {
        let err = || SizeError {
            given: s.to_string(),
        };
        let t = s.trim();
        let num = |a: &str| a.trim().parse::<u32>().map_err(|_| err());
        match t.split_once(['x', 'X', ':', '×']) {
            Some((a, b)) => Size::new(num(a)?, num(b)?).map_err(|_| err()),
            None => Size::square(num(t)?).map_err(|_| err()),
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.cols == self.rows {
            write!(f, "{}", self.cols)
        } else {
            write!(f, "{}x{}", self.cols, self.rows)
        }
    }
}

impl Default for Size {
    fn default() -> Size {
        Size::nineteen()
    }
}

/// An intersection: column `x` (0 = A, left) and row `y` (0 = row 1, bottom), as a small index.
///
/// The index is the cell of a padded 1-D layout shared by every board size, so neighbours are
/// `±1` and `±STRIDE`; a `Point` is valid on a board when [`Size::contains`] says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Point(pub(crate) u16);

impl Point {
    /// Every [`Point::index`] is below this (for dense per-point arrays).
    pub const INDEX_LIMIT: usize = CELLS;

    /// The point at column `x`, row `y` (0-based; `y = 0` is the bottom row). Panics past 25.
    #[inline]
    pub const fn new(x: u32, y: u32) -> Point {
        assert!(x < MAX_SIDE as u32 && y < MAX_SIDE as u32);
        Point(((y as usize + 1) * STRIDE + x as usize + 1) as u16)
    }

    /// The point with raw index `i`, unchecked: a padding cell is a point on no board (its
    /// [`crate::Board::code`] is 3); `i` must be below [`Point::INDEX_LIMIT`]. For code that keeps
    /// its own dense indices in the padded layout.
    #[inline]
    pub const fn from_raw(i: u16) -> Point {
        Point(i)
    }

    /// The point at (`x`, `y`) if both are below 25.
    pub const fn try_new(x: u32, y: u32) -> Option<Point> {
        if x < MAX_SIDE as u32 && y < MAX_SIDE as u32 {
            Some(Point::new(x, y))
        } else {
            None
        }
    }

    /// Column, 0-based from the left.
    #[inline]
    pub const fn x(self) -> u32 {
        (self.0 as usize % STRIDE) as u32 - 1
    }

    /// Row, 0-based from the bottom.
    #[inline]
    pub const fn y(self) -> u32 {
        (self.0 as usize / STRIDE) as u32 - 1
    }

    /// The raw index in the padded layout (stable for a given build; for dense per-point arrays).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The point with raw index `i`, if it is a valid cell of the 25 × 25 layout.
    pub fn from_index(i: usize) -> Option<Point> {
        if i >= CELLS {
            return None;
        }
        let (col, row) = (i % STRIDE, i / STRIDE);
        if (1..=MAX_SIDE as usize).contains(&col) && (1..=MAX_SIDE as usize).contains(&row) {
            Some(Point(i as u16))
        } else {
            None
        }
    }

    /// The GTP name, e.g. `D4` (columns skip `I`; row 1 at the bottom).
    pub fn to_gtp(self) -> String {
        format!("{}{}", gtp_column_letter(self.x()), self.y() + 1)
    }

    /// Parses a GTP vertex such as `D4` or `t19` (no `I`; row 1 at the bottom) on `size`.
    pub fn from_gtp(s: &str, size: Size) -> Result<Point, PointError> {
        let err = |why| PointError {
            given: s.to_string(),
            why,
        };
        let t = s.trim();
        let mut chars = t.chars();
        let c = chars
            .next()
            .ok_or(err(
                "empty vertex; expected a column letter and a row number",
            ))?
            .to_ascii_uppercase();
        if !c.is_ascii_uppercase() {
            return Err(err("expected a column letter A–Z (no I) first"));
        }
        if c == 'I' {
            return Err(err("GTP columns skip the letter I"));
        }
        let x = (c as u32 - 'A' as u32) - u32::from(c > 'I');
        let row: u32 = chars
            .as_str()
            .parse()
            .map_err(|_| err("expected a row number after the column letter"))?;
        if row == 0 || !size.contains_xy(x, row - 1) {
            return Err(err("off the board"));
        }
        Ok(Point::new(x, row - 1))
    }

    /// The SGF coordinate on `size`: column then row letter, top row `a`.
    pub fn to_sgf(self, size: Size) -> String {
        let row_from_top = size.rows() - 1 - self.y();
        format!("{}{}", sgf_letter(self.x()), sgf_letter(row_from_top))
    }

    /// Parses an SGF point such as `dd` (top row is `a`; `a`–`z` then `A`–`Z`).
    pub fn from_sgf(s: &str, size: Size) -> Result<Point, PointError> {
        let err = |why| PointError {
            given: s.to_string(),
            why,
        };
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(err("an SGF point is exactly two letters"));
        }
        let x = sgf_value(b[0]).ok_or(err("SGF coordinates are letters a–z, A–Z"))?;
        let r = sgf_value(b[1]).ok_or(err("SGF coordinates are letters a–z, A–Z"))?;
        if !size.contains_xy(x, r) {
            return Err(err("off the board"));
        }
        Ok(Point::new(x, size.rows() - 1 - r))
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", gtp_column_letter(self.x()), self.y() + 1)
    }
}

/// The GTP column letter for column `x` (A…H, J…Z).
fn gtp_column_letter(x: u32) -> char {
    let c = b'A' + x as u8;
    (if c >= b'I' { c + 1 } else { c }) as char
}

fn sgf_letter(v: u32) -> char {
    if v < 26 {
        (b'a' + v as u8) as char
    } else {
        (b'A' + (v - 26) as u8) as char
    }
}

fn sgf_value(c: u8) -> Option<u32> {
    match c {
        b'a'..=b'z' => Some((c - b'a') as u32),
        b'A'..=b'Z' => Some((c - b'A') as u32 + 26),
        _ => None,
    }
}

/// A point that could not be read (GTP or SGF), with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointError {
    /// The text as given.
    pub given: String,
    /// Why it was rejected.
    pub why: &'static str,
}

impl fmt::Display for PointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad point `{}`: {}", self.given, self.why)
    }
}

impl std::error::Error for PointError {}

/// A move: a board play at a point, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Place a stone at the point.
    Play(Point),
    /// Give up the turn.
    Pass,
}

impl Move {
    /// The point played, if any.
    pub fn point(self) -> Option<Point> {
        match self {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        }
    }

    /// Parses a GTP move: a vertex or `pass` (any case).
    pub fn from_gtp(s: &str, size: Size) -> Result<Move, PointError> {
        if s.trim().eq_ignore_ascii_case("pass") {
            Ok(Move::Pass)
        } else {
            Point::from_gtp(s, size).map(Move::Play)
        }
    }

    /// Parses an SGF move value: empty or `tt` (on boards up to 19 × 19) is a pass.
    pub fn from_sgf(s: &str, size: Size) -> Result<Move, PointError> {
        if s.is_empty() || (s == "tt" && size.cols() <= 19 && size.rows() <= 19) {
            Ok(Move::Pass)
        } else {
            Point::from_sgf(s, size).map(Move::Play)
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(p) => write!(f, "{p}"),
            Move::Pass => f.write_str("pass"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: u32) -> Size {
        Size::square(n).unwrap()
    }

    #[test]
    fn color_opponent_swaps() {
        assert_eq!(Color::Black.opponent(), Color::White);
        assert_eq!(Color::White.opponent(), Color::Black);
    }

    #[test]
    fn size_accepts_2_to_25_and_rejects_outside() {
        assert!(Size::new(2, 25).is_ok());
        assert!(Size::new(1, 9).is_err());
        assert!(Size::new(9, 26).is_err());
        assert_eq!(Size::parse("9x13").unwrap(), Size::new(9, 13).unwrap());
        assert_eq!(Size::parse("19").unwrap(), s(19));
        assert_eq!(Size::parse("7:5").unwrap().to_string(), "7x5");
        let e = Size::parse("30").unwrap_err();
        assert!(e.to_string().contains("from 2 to 25"), "{e}");
        assert!(Size::parse("nine").is_err());
    }

    #[test]
    fn gtp_skips_i_and_counts_rows_from_bottom() {
        let p = Point::from_gtp("J1", s(19)).unwrap();
        assert_eq!((p.x(), p.y()), (8, 0));
        assert_eq!(Point::new(3, 3).to_gtp(), "D4");
        assert_eq!(Point::from_gtp("d4", s(19)).unwrap(), Point::new(3, 3));
        assert_eq!(Point::new(24, 24).to_string(), "Z25");
        assert!(Point::from_gtp("I5", s(19)).is_err());
        assert!(Point::from_gtp("K10", s(9)).is_err());
        assert!(Point::from_gtp("A0", s(9)).is_err());
        assert!(Point::from_gtp("", s(9)).is_err());
        assert!(Point::from_gtp("4D", s(9)).is_err());
    }

    #[test]
    fn gtp_round_trips_on_every_point_of_25x25() {
        for p in s(25).points() {
            assert_eq!(Point::from_gtp(&p.to_gtp(), s(25)).unwrap(), p);
        }
    }

    #[test]
    fn sgf_top_row_is_a_and_round_trips() {
        // On 19×19, `dd` is D16 (4th column, 4th row from the top).
        assert_eq!(Point::from_sgf("dd", s(19)).unwrap().to_gtp(), "D16");
        assert_eq!(Point::from_sgf("aa", s(9)).unwrap().to_gtp(), "A9");
        let big = s(25);
        for p in big.points() {
            assert_eq!(Point::from_sgf(&p.to_sgf(big), big).unwrap(), p);
        }
        let rect = Size::new(5, 3).unwrap();
        assert_eq!(Point::from_sgf("ec", rect).unwrap().to_gtp(), "E1");
        assert!(Point::from_sgf("ed", rect).is_err());
        assert!(Point::from_sgf("a", rect).is_err());
        assert!(Point::from_sgf("a1", rect).is_err());
    }

    #[test]
    fn sgf_pass_is_empty_or_tt_up_to_19() {
        assert_eq!(Move::from_sgf("", s(19)).unwrap(), Move::Pass);
        assert_eq!(Move::from_sgf("tt", s(19)).unwrap(), Move::Pass);
        assert_eq!(
            Move::from_sgf("tt", s(21)).unwrap(),
            Move::Play(Point::new(19, 1))
        );
        assert_eq!(Move::from_gtp("PASS", s(9)).unwrap(), Move::Pass);
    }

    #[test]
    fn point_index_round_trips() {
        for p in s(25).points() {
            assert_eq!(Point::from_index(p.index()), Some(p));
        }
        assert_eq!(Point::from_index(0), None);
        assert_eq!(Point::from_index(CELLS), None);
    }
}
