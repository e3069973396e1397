//! The board's geometry: cells `A1`–`G7` (rows top to bottom), cell bit sets, sides, the 84
//! inner edges and edge bit sets.

use std::fmt;
use std::str::FromStr;

/// Width and height of the board.
pub const SIZE: u8 = 7;
/// Number of cells on the board.
pub const NUM_CELLS: usize = 49;
/// Number of inner edges (42 horizontal, 42 vertical).
pub const NUM_EDGES: usize = 84;

/// Bit mask of all 49 cells.
pub(crate) const ALL: u64 = (1u64 << 49) - 1;
/// Cells that have a neighbour below (rows 1–6).
pub(crate) const HAS_SOUTH: u64 = (1u64 << 42) - 1;
/// Cells of the rightmost column (G).
const LAST_COL: u64 = {
    let mut m = 0u64;
    let mut r = 0;
    while r < 7 {
        m |= 1u64 << (r * 7 + 6);
        r += 1;
    }
    m
};
/// Cells that have a neighbour to the right (columns A–F).
pub(crate) const HAS_EAST: u64 = ALL & !LAST_COL;

/// A malformed cell, side or wall name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotationError {
    /// Not a cell name `A1`–`G7`.
    BadCell(String),
    /// Not a side `N`, `E`, `S` or `W`.
    BadSide(String),
    /// A wall name without the `CELL/SIDE` shape.
    BadWall(String),
    /// A wall on the outer boundary, which never holds a wall.
    BoundaryWall(String),
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::BadCell(s) => write!(f, "'{s}' is not a cell (A1 to G7)"),
            NotationError::BadSide(s) => write!(f, "'{s}' is not a side (N, E, S or W)"),
            NotationError::BadWall(s) => write!(f, "'{s}' is not a wall (like D4/N)"),
            NotationError::BoundaryWall(s) => {
                write!(f, "the wall {s} is on the boundary, which holds no wall")
            }
        }
    }
}

impl std::error::Error for NotationError {}

/// One of the 49 cells; index `row * 7 + col`, row 0 is the top row `1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Cell(u8);

impl Cell {
    /// The cell in column `col` (0 = `A`) and row `row` (0 = `1`, the top), if on the board.
    pub const fn new(col: u8, row: u8) -> Option<Cell> {
        if col < SIZE && row < SIZE {
            Some(Cell(row * SIZE + col))
        } else {
            None
        }
    }

    /// The cell with index `i` (`0..49`), if on the board.
    pub const fn from_index(i: usize) -> Option<Cell> {
        if i < NUM_CELLS {
            Some(Cell(i as u8))
        } else {
            None
        }
    }

    /// The cell with index `i`, which the caller guarantees is below 49.
    #[inline]
    pub(crate) const fn at(i: u32) -> Cell {
        Cell(i as u8)
    }

    /// Index `row * 7 + col` in `0..49`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 = `A`.
    #[inline]
    pub const fn col(self) -> u8 {
        self.0 % SIZE
    }

    /// Row, 0 = `1` (the top row).
    #[inline]
    pub const fn row(self) -> u8 {
        self.0 / SIZE
    }

    /// This cell's bit in a [`CellSet`].
    #[inline]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// The orthogonal neighbour on `side`, if on the board.
    pub fn neighbour(self, side: Side) -> Option<Cell> {
        let (c, r) = (self.col() as i8, self.row() as i8);
        let (dc, dr) = side.delta();
        let (nc, nr) = (c + dc, r + dr);
        if (0..7).contains(&nc) && (0..7).contains(&nr) {
            Cell::new(nc as u8, nr as u8)
        } else {
            None
        }
    }

    /// Manhattan distance between two cells.
    pub fn distance(self, other: Cell) -> u8 {
        self.col().abs_diff(other.col()) + self.row().abs_diff(other.row())
    }

    /// All 49 cells in index order.
    pub fn all() -> impl Iterator<Item = Cell> {
        (0..NUM_CELLS as u8).map(Cell)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'A' + self.col()) as char, self.row() + 1)
    }
}

impl FromStr for Cell {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Cell, NotationError> {
        let b = s.as_bytes();
        let bad = || NotationError::BadCell(s.to_string());
        if b.len() != 2 {
            return Err(bad());
        }
        let col = b[0].to_ascii_uppercase().wrapping_sub(b'A');
        let row = b[1].wrapping_sub(b'1');
        Cell::new(col, row).ok_or_else(bad)
    }
}

/// A set of cells as a 49-bit mask (bit `i` = cell index `i`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct CellSet(u64);

impl CellSet {
    /// The empty set.
    pub const EMPTY: CellSet = CellSet(0);
    /// All 49 cells.
    pub const ALL: CellSet = CellSet(ALL);

    /// The set with these bits; bits above 48 are dropped.
    #[inline]
    pub const fn from_bits(bits: u64) -> CellSet {
        CellSet(bits & ALL)
    }

    /// The raw 49-bit mask.
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Whether `c` is in the set.
    #[inline]
    pub const fn contains(self, c: Cell) -> bool {
        self.0 & c.bit() != 0
    }

    /// Adds `c`.
    #[inline]
    pub fn insert(&mut self, c: Cell) {
        self.0 |= c.bit();
    }

    /// Removes `c`.
    #[inline]
    pub fn remove(&mut self, c: Cell) {
        self.0 &= !c.bit();
    }

    /// Number of cells in the set.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The cell with the lowest index, if any.
    #[inline]
    pub fn first(self) -> Option<Cell> {
        if self.0 == 0 {
            None
        } else {
            Some(Cell::at(self.0.trailing_zeros()))
        }
    }

    /// The cells in index order.
    #[inline]
    pub fn iter(self) -> CellIter {
        CellIter(self.0)
    }

    /// Union.
    #[inline]
    pub const fn union(self, o: CellSet) -> CellSet {
        CellSet(self.0 | o.0)
    }

    /// Intersection.
    #[inline]
    pub const fn intersection(self, o: CellSet) -> CellSet {
        CellSet(self.0 & o.0)
    }
}

impl FromIterator<Cell> for CellSet {
    fn from_iter<I: IntoIterator<Item = Cell>>(it: I) -> CellSet {
        let mut s = CellSet::EMPTY;
        for c in it {
            s.insert(c);
        }
        s
    }
}

impl IntoIterator for CellSet {
    type Item = Cell;
    type IntoIter = CellIter;
    fn into_iter(self) -> CellIter {
        self.iter()
    }
}

/// Iterator over the cells of a [`CellSet`] in index order.
#[derive(Clone, Debug)]
pub struct CellIter(u64);

impl Iterator for CellIter {
    type Item = Cell;
    #[inline]
    fn next(&mut self) -> Option<Cell> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Cell::at(i))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

/// A side of a cell: north (up, towards row 1), east, south, west.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Side {
    /// Up, towards row 1.
    N,
    /// Right, towards column G.
    E,
    /// Down, towards row 7.
    S,
    /// Left, towards column A.
    W,
}

impl Side {
    /// The four sides in the order N, E, S, W.
    pub const ALL: [Side; 4] = [Side::N, Side::E, Side::S, Side::W];

    /// (column, row) step of this side.
    const fn delta(self) -> (i8, i8) {
        match self {
            Side::N => (0, -1),
            Side::E => (1, 0),
            Side::S => (0, 1),
            Side::W => (-1, 0),
        }
    }

    /// The letter `N`, `E`, `S` or `W`.
    pub const fn letter(self) -> char {
        match self {
            Side::N => 'N',
            Side::E => 'E',
            Side::S => 'S',
            Side::W => 'W',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl FromStr for Side {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Side, NotationError> {
        match s {
            "N" | "n" => Ok(Side::N),
            "E" | "e" => Ok(Side::E),
            "S" | "s" => Ok(Side::S),
            "W" | "w" => Ok(Side::W),
            _ => Err(NotationError::BadSide(s.to_string())),
        }
    }
}

/// One of the 84 inner edges. Its one name is `X/S` (the edge below cell `X`) or `X/E` (the
/// edge right of `X`): `D4/S` and `D5/N` are the same edge, named `D4/S`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Edge(u8);

/// Offset of vertical edges in the raw `Edge` code (horizontal edges use the upper cell index).
const V: u8 = 64;

impl Edge {
    /// The edge on `side` of `cell`, or `None` on the outer boundary.
    #[inline]
    pub const fn of(cell: Cell, side: Side) -> Option<Edge> {
        let (c, r) = (cell.col(), cell.row());
        match side {
            Side::S if r < SIZE - 1 => Some(Edge(cell.0)),
            Side::N if r > 0 => Some(Edge(cell.0 - SIZE)),
            Side::E if c < SIZE - 1 => Some(Edge(V + cell.0)),
            Side::W if c > 0 => Some(Edge(V + cell.0 - 1)),
            _ => None,
        }
    }

    /// The edge between two orthogonally adjacent cells, if they are adjacent.
    pub fn between(a: Cell, b: Cell) -> Option<Edge> {
        Side::ALL
            .into_iter()
            .find(|&s| a.neighbour(s) == Some(b))
            .and_then(|s| Edge::of(a, s))
    }

    /// Whether the edge is horizontal (it separates a cell from the one below).
    #[inline]
    pub const fn is_horizontal(self) -> bool {
        self.0 < V
    }

    /// The two cells it separates: (upper, lower) or (left, right).
    pub const fn cells(self) -> (Cell, Cell) {
        if self.is_horizontal() {
            (Cell(self.0), Cell(self.0 + SIZE))
        } else {
            (Cell(self.0 - V), Cell(self.0 - V + 1))
        }
    }

    /// The side of `cell` this edge lies on, if it is one of that cell's edges.
    pub fn side_from(self, cell: Cell) -> Option<Side> {
        let (x, y) = self.cells();
        match (self.is_horizontal(), cell == x, cell == y) {
            (true, true, _) => Some(Side::S),
            (true, _, true) => Some(Side::N),
            (false, true, _) => Some(Side::E),
            (false, _, true) => Some(Side::W),
            _ => None,
        }
    }

    /// Dense index in `0..84`: horizontal edges first (by upper cell), then vertical.
    pub const fn index(self) -> usize {
        if self.is_horizontal() {
            self.0 as usize
        } else {
            let c = self.0 - V;
            42 + (c / SIZE * 6 + c % SIZE) as usize
        }
    }

    /// The edge with dense index `i` (`0..84`), if any.
    pub const fn from_index(i: usize) -> Option<Edge> {
        if i < 42 {
            Some(Edge(i as u8))
        } else if i < NUM_EDGES {
            let j = (i - 42) as u8;
            Some(Edge(V + j / 6 * SIZE + j % 6))
        } else {
            None
        }
    }

    /// Raw code: upper cell index for horizontal edges, 64 + left cell index for vertical.
    #[inline]
    pub(crate) const fn code(self) -> usize {
        self.0 as usize
    }

    /// The edge below cell index `i` (the caller guarantees `i < 42`).
    #[inline]
    pub(crate) const fn south_of(i: u32) -> Edge {
        Edge(i as u8)
    }

    /// The edge right of cell index `i` (the caller guarantees column < 6).
    #[inline]
    pub(crate) const fn east_of(i: u32) -> Edge {
        Edge(V + i as u8)
    }

    /// All 84 inner edges in dense-index order.
    pub fn all() -> impl Iterator<Item = Edge> {
        (0..NUM_EDGES).filter_map(Edge::from_index)
    }
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (x, _) = self.cells();
        let s = if self.is_horizontal() { 'S' } else { 'E' };
        write!(f, "{x}/{s}")
    }
}

impl FromStr for Edge {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Edge, NotationError> {
        let (c, side) = s
            .split_once('/')
            .ok_or_else(|| NotationError::BadWall(s.to_string()))?;
        let cell: Cell = c.parse()?;
        let side: Side = side.parse()?;
        Edge::of(cell, side).ok_or_else(|| NotationError::BoundaryWall(s.to_string()))
    }
}

/// A set of inner edges (walls): `h` bit `i` = the edge below cell `i`, `v` bit `i` = the edge
/// right of cell `i`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct EdgeSet {
    h: u64,
    v: u64,
}

impl EdgeSet {
    /// No walls.
    pub const EMPTY: EdgeSet = EdgeSet { h: 0, v: 0 };
    /// All 84 inner edges.
    pub const ALL: EdgeSet = EdgeSet {
        h: HAS_SOUTH,
        v: HAS_EAST,
    };

    /// Whether `e` is in the set.
    #[inline]
    pub const fn contains(self, e: Edge) -> bool {
        if e.is_horizontal() {
            self.h >> e.0 & 1 != 0
        } else {
            self.v >> (e.0 - V) & 1 != 0
        }
    }

    /// Adds `e`.
    #[inline]
    pub fn insert(&mut self, e: Edge) {
        if e.is_horizontal() {
            self.h |= 1u64 << e.0;
        } else {
            self.v |= 1u64 << (e.0 - V);
        }
    }

    /// Removes `e`.
    #[inline]
    pub fn remove(&mut self, e: Edge) {
        if e.is_horizontal() {
            self.h &= !(1u64 << e.0);
        } else {
            self.v &= !(1u64 << (e.0 - V));
        }
    }

    /// Number of edges in the set.
    #[inline]
    pub const fn len(self) -> usize {
        (self.h.count_ones() + self.v.count_ones()) as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.h == 0 && self.v == 0
    }

    /// The edges in dense-index order (horizontal by upper cell, then vertical by left cell).
    pub fn iter(self) -> impl Iterator<Item = Edge> {
        let h = CellSet(self.h).iter().map(|c| Edge(c.0));
        let v = CellSet(self.v).iter().map(|c| Edge(V + c.0));
        h.chain(v)
    }

    /// The set as one 128-bit mask over dense edge indices (bit `e.index()`).
    pub fn to_u128(self) -> u128 {
        let mut m = 0u128;
        for e in self.iter() {
            m |= 1u128 << e.index();
        }
        m
    }

    /// Cells whose south edge is inner and open (no wall).
    #[inline]
    pub(crate) const fn open_south(self) -> u64 {
        HAS_SOUTH & !self.h
    }

    /// Cells whose east edge is inner and open (no wall).
    #[inline]
    pub(crate) const fn open_east(self) -> u64 {
        HAS_EAST & !self.v
    }

    /// (cells whose south edge is open, cells whose east edge is open) as 49-bit masks, for
    /// callers' own bit-set flood fills.
    #[inline]
    pub const fn open_masks(self) -> (u64, u64) {
        (self.open_south(), self.open_east())
    }
}

impl FromIterator<Edge> for EdgeSet {
    fn from_iter<I: IntoIterator<Item = Edge>>(it: I) -> EdgeSet {
        let mut s = EdgeSet::EMPTY;
        for e in it {
            s.insert(e);
        }
        s
    }
}

/// Open-edge masks of a wall set, for moving and flood filling on bit sets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Open {
    /// Cells whose south edge is open.
    pub s: u64,
    /// Cells whose east edge is open.
    pub e: u64,
}

impl Open {
    /// The open-edge masks of `walls`.
    #[inline]
    pub const fn of(walls: EdgeSet) -> Open {
        Open {
            s: walls.open_south(),
            e: walls.open_east(),
        }
    }

    /// Cells one open edge away from some cell of `x` (not `x` itself unless reached).
    #[inline]
    pub const fn neighbours(self, x: u64) -> u64 {
        ((x & self.s) << 7) | ((x >> 7) & self.s) | ((x & self.e) << 1) | ((x >> 1) & self.e)
    }

    /// The cells connected to `seed` through open edges (the union of their regions).
    #[inline]
    pub const fn fill(self, seed: u64) -> u64 {
        let mut r = seed;
        loop {
            let n = r | self.neighbours(r);
            if n == r {
                return r;
            }
            r = n;
        }
    }

    /// Cells whose north edge is open.
    #[inline]
    pub const fn free_n(self) -> u64 {
        self.s << 7
    }

    /// Cells whose west edge is open.
    #[inline]
    pub const fn free_w(self) -> u64 {
        self.e << 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wallgo_spec_cells_are_columns_a_to_g_rows_top_to_bottom() {
        let c: Cell = "D4".parse().unwrap();
        assert_eq!((c.col(), c.row()), (3, 3));
        assert_eq!("A1".parse::<Cell>().unwrap().index(), 0);
        assert_eq!("G7".parse::<Cell>().unwrap().index(), 48);
        assert_eq!("B1".parse::<Cell>().unwrap().index(), 1);
        assert_eq!("A2".parse::<Cell>().unwrap().index(), 7);
        assert!("H1".parse::<Cell>().is_err());
        assert!("A8".parse::<Cell>().is_err());
        assert!("A".parse::<Cell>().is_err());
        for c in Cell::all() {
            assert_eq!(c.to_string().parse::<Cell>().unwrap(), c);
        }
    }

    #[test]
    fn wallgo_spec_there_are_84_inner_edges_each_with_one_name() {
        assert_eq!(Edge::all().count(), 84);
        assert_eq!(EdgeSet::ALL.len(), 84);
        let mut names = std::collections::HashSet::new();
        for (i, e) in Edge::all().enumerate() {
            assert_eq!(e.index(), i);
            assert_eq!(Edge::from_index(i), Some(e));
            let name = e.to_string();
            assert_eq!(name.parse::<Edge>().unwrap(), e);
            assert!(names.insert(name));
        }
        let all: Vec<usize> = EdgeSet::ALL.iter().map(|e| e.index()).collect();
        assert_eq!(all, (0..84).collect::<Vec<_>>());
    }

    #[test]
    fn wallgo_spec_d4_s_and_d5_n_are_the_same_edge() {
        let a: Edge = "D4/S".parse().unwrap();
        let b: Edge = "D5/N".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(b.to_string(), "D4/S");
        let c: Edge = "E4/W".parse().unwrap();
        assert_eq!(c.to_string(), "D4/E");
    }

    #[test]
    fn wallgo_spec_boundary_edges_never_hold_a_wall() {
        for s in ["A1/N", "A1/W", "G7/S", "G7/E", "D1/N", "A4/W"] {
            assert!(matches!(
                s.parse::<Edge>(),
                Err(NotationError::BoundaryWall(_))
            ));
        }
        assert!(matches!(
            "D4/X".parse::<Edge>(),
            Err(NotationError::BadSide(_))
        ));
        assert!(matches!(
            "D4".parse::<Edge>(),
            Err(NotationError::BadWall(_))
        ));
    }

    #[test]
    fn edge_sides_round_trip() {
        for c in Cell::all() {
            for s in Side::ALL {
                if let Some(e) = Edge::of(c, s) {
                    assert_eq!(e.side_from(c), Some(s));
                    let n = c.neighbour(s).unwrap();
                    assert_eq!(Edge::between(c, n), Some(e));
                } else {
                    assert!(c.neighbour(s).is_none());
                }
            }
        }
    }

    #[test]
    fn fill_stops_at_walls() {
        // Wall off A1 completely: A1/S and A1/E.
        let walls: EdgeSet = ["A1/S", "A1/E"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let o = Open::of(walls);
        assert_eq!(o.fill(1), 1);
        assert_eq!(o.fill(2).count_ones(), 48);
        assert_eq!(Open::of(EdgeSet::EMPTY).fill(1 << 24), ALL);
    }
}
