//! Large spatial patterns for the move priors: the stones around a candidate out to a
//! gridcular distance (|dx| + |dy| + max(|dx|, |dy|)) of 4 to 10, from the mover's side, in a
//! dictionary of the patterns seen often enough in the training games. A candidate's pattern
//! is the largest one in the dictionary; the 8 symmetries of the square share one entry.

use super::board::{Colour, FastBoard, Idx};
use super::patterns::transform;
use baduk_go::point::STRIDE;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// The pattern sizes: the largest gridcular distance each one covers.
pub const LEVELS: [u32; 7] = [4, 5, 6, 7, 8, 9, 10];
/// How a cell of a pattern is written in a model file: empty, own stone, enemy stone, off
/// the board.
const CELL_CHARS: [u8; 4] = [b'.', b'X', b'O', b'#'];

/// Cell offsets by distance, the map of each symmetry on them, and hash keys.
struct Geometry {
    /// (dx, dy) of every cell, nearest first.
    offsets: Vec<(i32, i32)>,
    /// `ends[l]`: the number of cells of level `l`.
    ends: [usize; LEVELS.len()],
    /// `reach[l]`: how far (in rows or columns) the cells of level `l` reach.
    reach: [usize; LEVELS.len()],
    /// The index step of every cell (`dx − dy·STRIDE`: rows count from the top).
    steps: Vec<isize>,
    /// `perm[sym][k]`: where cell `k` lands under symmetry `sym`.
    perm: [Vec<usize>; 8],
    /// Random keys per cell and cell state.
    keys: Vec<[u64; 4]>,
    /// A key per level, so that patterns of different sizes never share a hash.
    salts: [u64; LEVELS.len()],
}

fn gridcular(dx: i32, dy: i32) -> u32 {
    let (x, y) = (dx.unsigned_abs(), dy.unsigned_abs());
    x + y + x.max(y)
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn geometry() -> &'static Geometry {
    static G: OnceLock<Geometry> = OnceLock::new();
    G.get_or_init(|| {
        let max = LEVELS[LEVELS.len() - 1];
        let r = max as i32 / 2;
        let mut offsets: Vec<(i32, i32)> = Vec::new();
        for dy in -r..=r {
            for dx in -r..=r {
                let d = gridcular(dx, dy);
                if d >= 2 && d <= max {
                    offsets.push((dx, dy));
                }
            }
        }
        offsets.sort_by_key(|&(dx, dy)| (gridcular(dx, dy), dy, dx));
        let mut ends = [0; LEVELS.len()];
        for (l, &d) in LEVELS.iter().enumerate() {
            ends[l] = offsets
                .iter()
                .filter(|&&(dx, dy)| gridcular(dx, dy) <= d)
                .count();
        }
        let reach = std::array::from_fn(|l| {
            offsets[..ends[l]]
                .iter()
                .map(|&(dx, dy)| dx.unsigned_abs().max(dy.unsigned_abs()) as usize)
                .max()
                .unwrap_or(0)
        });
        let steps = offsets
            .iter()
            .map(|&(dx, dy)| dx as isize - dy as isize * STRIDE as isize)
            .collect();
        let perm = std::array::from_fn(|sym| {
            offsets
                .iter()
                .map(|&d| {
                    let t = transform(sym, d);
                    offsets
                        .iter()
                        .position(|&o| o == t)
                        .expect("the cells of a distance are closed under symmetry")
                })
                .collect()
        });
        let mut seed = 0x005e_ed0f_bad0_u64;
        let keys = offsets
            .iter()
            .map(|_| std::array::from_fn(|_| splitmix(&mut seed)))
            .collect();
        let salts = std::array::from_fn(|_| splitmix(&mut seed));
        Geometry {
            offsets,
            ends,
            reach,
            steps,
            perm,
            keys,
            salts,
        }
    })
}

/// The number of cells of a pattern of level `l` (an index into [`LEVELS`]).
pub fn cells_of_level(l: usize) -> usize {
    geometry().ends[l]
}

/// The state of the cell at (x, y) for `c`: 0 empty, 1 own, 2 enemy, 3 off the board.
#[inline]
fn cell_state(b: &FastBoard, x: i32, y: i32, c: Colour) -> usize {
    if x < 0 || y < 0 || x >= b.width() as i32 || y >= b.height() as i32 {
        return 3;
    }
    match b.stone(b.idx(x as usize, y as usize)) {
        None => 0,
        Some(s) if s == c => 1,
        Some(_) => 2,
    }
}

/// The hash of the cells `cells` (of level `l`) seen through symmetry `sym`.
fn hash_sym(cells: &[u8], l: usize, sym: usize) -> u64 {
    let g = geometry();
    let p = &g.perm[sym];
    let mut h = g.salts[l];
    for (k, &v) in cells.iter().enumerate() {
        h ^= g.keys[p[k]][v as usize];
    }
    h
}

/// A pattern of level `l` in the orientation with the smallest hash: (hash, text).
fn canonical(cells: &[u8], l: usize) -> (u64, String) {
    let g = geometry();
    let (sym, h) = (0..8)
        .map(|s| (s, hash_sym(cells, l, s)))
        .min_by_key(|&(_, h)| h)
        .expect("eight symmetries");
    let mut image = vec![0u8; cells.len()];
    for (k, &v) in cells.iter().enumerate() {
        image[g.perm[sym][k]] = v;
    }
    let text = format!(
        "{}:{}",
        LEVELS[l],
        image
            .iter()
            .map(|&v| CELL_CHARS[v as usize] as char)
            .collect::<String>()
    );
    (h, text)
}

/// The canonical hash and text of the pattern of every level around `c` playing at `i`.
pub fn canonical_patterns(b: &FastBoard, i: Idx, c: Colour) -> Vec<(u64, String)> {
    let (x, y) = (b.xy(i).0 as i32, b.xy(i).1 as i32);
    let cells: Vec<u8> = geometry()
        .offsets
        .iter()
        .map(|&(dx, dy)| cell_state(b, x + dx, y + dy, c) as u8)
        .collect();
    (0..LEVELS.len())
        .map(|l| canonical(&cells[..cells_of_level(l)], l))
        .collect()
}

/// Hashes that are already random: used as they are.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// The patterns a model knows, each under all 8 symmetries, by id (1-based, in list order).
#[derive(Clone, Debug, Default)]
pub struct SpatialDict {
    /// Hash of every orientation of every pattern → its id.
    ids: HashMap<u64, u32, BuildHasherDefault<Identity>>,
    /// The patterns' texts (`LEVEL:CELLS`), id − 1 each.
    texts: Vec<String>,
}

impl SpatialDict {
    /// An empty dictionary (no candidate has a spatial pattern).
    pub fn new() -> SpatialDict {
        SpatialDict::default()
    }

    /// The number of patterns.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether it has no pattern.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The text of pattern `id`.
    pub fn text(&self, id: u32) -> Option<&str> {
        self.texts
            .get((id as usize).checked_sub(1)?)
            .map(|s| s.as_str())
    }

    /// Adds a pattern written `LEVEL:CELLS` and gives its id; an error says what is wrong.
    pub fn add(&mut self, text: &str) -> Result<u32, String> {
        let (level, cells) = text
            .split_once(':')
            .ok_or_else(|| format!("bad spatial pattern `{text}`: expected LEVEL:CELLS"))?;
        let l = level
            .parse::<u32>()
            .ok()
            .and_then(|d| LEVELS.iter().position(|&x| x == d))
            .ok_or_else(|| format!("bad spatial pattern level `{level}` (one of 4..=10)"))?;
        let want = cells_of_level(l);
        let cells: Vec<u8> = cells
            .bytes()
            .map(|ch| CELL_CHARS.iter().position(|&x| x == ch).map(|v| v as u8))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("bad spatial pattern `{text}`: cells are . X O #"))?;
        if cells.len() != want {
            return Err(format!(
                "bad spatial pattern `{text}`: level {level} has {want} cells, not {}",
                cells.len()
            ));
        }
        // The lookup grows a pattern from the smallest size and stops at the first one missing,
        // so a pattern whose next smaller one is not listed before it could never be found.
        if l > 0 {
            let inner = &cells[..cells_of_level(l - 1)];
            if !self.ids.contains_key(&hash_sym(inner, l - 1, 0)) {
                return Err(format!(
                    "spatial pattern `{text}` could never be found: the pattern of level {} \
                     inside it (`{}`) is not listed before it",
                    LEVELS[l - 1],
                    canonical(inner, l - 1).1
                ));
            }
        }
        let id = self.texts.len() as u32 + 1;
        for sym in 0..8 {
            if let Some(&old) = self.ids.get(&hash_sym(&cells, l, sym)) {
                if sym == 0 {
                    return Err(format!(
                        "spatial pattern `{text}` is listed twice (as pattern {old})"
                    ));
                }
                continue;
            }
            self.ids.insert(hash_sym(&cells, l, sym), id);
        }
        self.texts.push(text.to_string());
        Ok(id)
    }

    /// The id of the largest pattern around `c` playing at `i` that the dictionary lists
    /// (0: none). Sizes are tried smallest first and the first one missing ends the search:
    /// a pattern is listed only when the smaller ones inside it are.
    pub fn lookup(&self, b: &FastBoard, i: Idx, c: Colour) -> u32 {
        if self.texts.is_empty() {
            return 0;
        }
        let g = geometry();
        let (x, y) = b.xy(i);
        // How far the board reaches on every side: levels within it need no edge tests.
        let margin = x.min(y).min(b.width() - 1 - x).min(b.height() - 1 - y);
        // Board cell code (0 empty, 1 black, 2 white) → state for `c` (0 empty, 1 own, 2 enemy).
        let state: [usize; 4] = match c {
            Colour::Black => [0, 1, 2, 3],
            Colour::White => [0, 2, 1, 3],
        };
        let (xi, yi) = (x as i32, y as i32);
        let mut hash = 0u64;
        let mut k = 0usize;
        let mut found = 0u32;
        for (l, &end) in g.ends.iter().enumerate() {
            let keys = &g.keys[k..end];
            if g.reach[l] <= margin {
                for (key, &step) in keys.iter().zip(&g.steps[k..end]) {
                    let p = (i as isize + step) as Idx;
                    hash ^= key[state[b.cell(p) as usize & 3]];
                }
            } else {
                for (key, &(dx, dy)) in keys.iter().zip(&g.offsets[k..end]) {
                    hash ^= key[cell_state(b, xi + dx, yi + dy, c)];
                }
            }
            k = end;
            match self.ids.get(&(hash ^ g.salts[l])) {
                Some(&id) => found = id,
                None => break,
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_have_the_cells_of_their_distance() {
        // d ≤ 4: the 3×3 ring and the four points two away; d ≤ 10: 72 cells.
        assert_eq!(cells_of_level(0), 12);
        assert_eq!(cells_of_level(1), 20);
        assert_eq!(cells_of_level(LEVELS.len() - 1), 72);
    }

    #[test]
    fn a_pattern_is_found_under_every_symmetry_and_colour() {
        // An own stone a knight's move away and an enemy stone two below, near a corner.
        let mut b = FastBoard::new(19, 19);
        b.setup(b.idx(4, 3), Colour::Black);
        b.setup(b.idx(2, 4), Colour::White);
        let i = b.idx(2, 2);
        let pats = canonical_patterns(&b, i, Colour::Black);
        let mut d = SpatialDict::new();
        for (_, t) in &pats[..3] {
            d.add(t).unwrap();
        }
        assert_eq!(d.lookup(&b, i, Colour::Black), 3);
        // The same shape mirrored and turned, colours swapped, with White to move.
        let mut m = FastBoard::new(19, 19);
        m.setup(m.idx(19 - 1 - 3, 4), Colour::White);
        m.setup(m.idx(19 - 1 - 4, 2), Colour::Black);
        assert_eq!(d.lookup(&m, m.idx(16, 2), Colour::White), 3);
        // For the other colour it is another pattern.
        assert_eq!(d.lookup(&b, i, Colour::White), 0);
        // Texts read back to the same ids; a duplicate or a bad text is refused.
        let mut again = SpatialDict::new();
        for k in 1..=3 {
            again.add(d.text(k).unwrap()).unwrap();
        }
        assert_eq!(again.lookup(&m, m.idx(16, 2), Colour::White), 3);
        assert!(again.add(d.text(1).unwrap()).unwrap_err().contains("twice"));
        assert!(again.add("4:...").unwrap_err().contains("12 cells"));
        assert!(again.add("3:............").is_err());
        assert!(again.add("4:..........Z.").is_err());
        // A pattern whose smaller one is missing could never be looked up: refused, naming it.
        let mut gap = SpatialDict::new();
        gap.add(&pats[0].1).unwrap();
        let e = gap.add(&pats[2].1).unwrap_err();
        assert!(
            e.contains("could never be found") && e.contains(&pats[1].1),
            "{e}"
        );
        gap.add(&pats[1].1).unwrap();
        gap.add(&pats[2].1).unwrap();
    }

    #[test]
    fn lookup_finds_the_largest_listed_pattern_at_every_point_edges_included() {
        // Every level of the patterns around each point of random positions (sizes 7 to 19,
        // the interior read without edge tests and the rim with them) is listed once; a
        // lookup must then name each point's largest pattern.
        let mut rng = baduk_rng::Rng::new(5);
        for size in [7usize, 13, 19] {
            let mut b = FastBoard::new(size, size);
            for _ in 0..size * size / 3 {
                let p = b.idx(rng.below(size), rng.below(size));
                if b.is_empty(p) {
                    let c = if rng.below(2) == 0 {
                        Colour::Black
                    } else {
                        Colour::White
                    };
                    b.setup(p, c);
                }
            }
            let mut d = SpatialDict::new();
            let mut ids: HashMap<String, u32> = HashMap::new();
            let points: Vec<Idx> = b.points().filter(|&i| b.is_empty(i)).collect();
            for &i in &points {
                for c in [Colour::Black, Colour::White] {
                    for (_, t) in canonical_patterns(&b, i, c) {
                        if let std::collections::hash_map::Entry::Vacant(e) = ids.entry(t) {
                            let id = d.add(e.key()).unwrap();
                            e.insert(id);
                        }
                    }
                }
            }
            for &i in &points {
                for c in [Colour::Black, Colour::White] {
                    let largest = &canonical_patterns(&b, i, c)[LEVELS.len() - 1].1;
                    assert_eq!(d.lookup(&b, i, c), ids[largest], "{size}x{size} {i} {c:?}");
                }
            }
        }
    }
}
