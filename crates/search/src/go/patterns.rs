//! Learned move priors: the features of a candidate move (its 3×3 shape with the ataris of the
//! neighbouring chains, its largest known spatial pattern, distances to the last two moves, line,
//! corner and emptiness, captures, ataris, escapes, self-ataris, the ladder reader's verdict,
//! passing) and a generalized Bradley-Terry model of their strengths (Coulom's "gammas", 2007),
//! read from a model file that `baduk go train` writes.
//!
//! A move's strength is the product of the gammas of its features; the probability that it is
//! the move played is its strength over the sum of the strengths of every candidate.

use super::board::{Colour, FastBoard, Idx, PASS};
use super::ladder::{judge_move, LadderVerdict, LADDER_BUDGET};
use super::playout::liberties_after;
use super::spatial::SpatialDict;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The feature groups; a candidate has at most one feature (a value ≥ 1) in each.
pub const GROUP_NAMES: [&str; 11] = [
    "pass",
    "capture",
    "escape",
    "self-atari",
    "atari",
    "dist-last",
    "dist-last2",
    "line",
    "shape",
    "ladder",
    "spatial",
];
/// Number of feature groups.
pub const GROUPS: usize = GROUP_NAMES.len();
const PASS_G: usize = 0;
const CAPTURE: usize = 1;
const ESCAPE: usize = 2;
const SELF_ATARI: usize = 3;
const ATARI: usize = 4;
const DIST_LAST: usize = 5;
const DIST_LAST2: usize = 6;
const LINE: usize = 7;
/// The group of the 3×3 shape (its value is the canonical shape code + 1).
pub const SHAPE: usize = 8;
/// The group of the ladder reader's verdict on an atari or an escape: 1 an escape into a
/// working ladder, 2 an atari that captures in a ladder, 3 one that fails.
pub const LADDER: usize = 9;
/// The group of the largest spatial pattern the model lists (its value is the pattern's id).
pub const SPATIAL: usize = 10;
/// Shape value of a shape the model does not list.
pub const RARE_SHAPE: u32 = 1 << 21;

/// The features of one candidate: a value per group, 0 where the group does not apply.
pub type Features = [u32; GROUPS];

/// The 8 neighbours of a point, (dx, dy), in shape-code order.
const RING: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];
/// The orthogonal neighbours, (dx, dy), in atari-bit order.
const ORTHO: [(i32, i32); 4] = [(0, -1), (-1, 0), (1, 0), (0, 1)];

/// The raw shape code of `i` for `c` to move: 2 bits per ring cell (0 empty, 1 own stone,
/// 2 enemy stone, 3 off the board), then a bit per orthogonal neighbour chain in atari.
pub fn raw_shape(b: &FastBoard, i: Idx, c: Colour) -> u32 {
    let s = b.stride() as i32;
    let mut code = 0u32;
    for (k, &(dx, dy)) in RING.iter().enumerate() {
        let p = (i as i32 + dy * s + dx) as Idx;
        let v = match b.cell(p) {
            1 | 2 if b.stone(p) == Some(c) => 1,
            1 | 2 => 2,
            v => v as u32,
        };
        code |= v << (2 * k);
    }
    for (k, &(dx, dy)) in ORTHO.iter().enumerate() {
        let p = (i as i32 + dy * s + dx) as Idx;
        if b.stone(p).is_some() && b.in_atari(p) {
            code |= 1 << (16 + k);
        }
    }
    code
}

/// Offset (dx, dy) under symmetry `sym` (0..8) of the square: bit 0 mirrors x, bit 1 mirrors
/// y, bit 2 swaps them.
pub(crate) fn transform(sym: usize, (dx, dy): (i32, i32)) -> (i32, i32) {
    let (mut x, mut y) = (dx, dy);
    if sym & 1 != 0 {
        x = -x;
    }
    if sym & 2 != 0 {
        y = -y;
    }
    if sym & 4 != 0 {
        std::mem::swap(&mut x, &mut y);
    }
    (x, y)
}

struct Perms {
    ring: [[usize; 8]; 8],
    ortho: [[usize; 4]; 8],
}

fn perms() -> &'static Perms {
    static P: OnceLock<Perms> = OnceLock::new();
    P.get_or_init(|| {
        let mut p = Perms {
            ring: [[0; 8]; 8],
            ortho: [[0; 4]; 8],
        };
        for sym in 0..8 {
            for (k, &d) in RING.iter().enumerate() {
                let t = transform(sym, d);
                p.ring[sym][k] = RING.iter().position(|&r| r == t).expect("ring is closed");
            }
            for (k, &d) in ORTHO.iter().enumerate() {
                let t = transform(sym, d);
                p.ortho[sym][k] = ORTHO.iter().position(|&r| r == t).expect("ortho is closed");
            }
        }
        p
    })
}

/// The shape code seen through symmetry `sym` (0..8) of the square.
fn transformed_shape(code: u32, sym: usize) -> u32 {
    let p = perms();
    let mut t = 0u32;
    for k in 0..8 {
        t |= ((code >> (2 * k)) & 3) << (2 * p.ring[sym][k]);
    }
    for k in 0..4 {
        t |= ((code >> (16 + k)) & 1) << (16 + p.ortho[sym][k]);
    }
    t
}

/// The smallest code of the shape over the 8 symmetries of the square.
pub fn canonical_shape(code: u32) -> u32 {
    (0..8)
        .map(|sym| transformed_shape(code, sym))
        .min()
        .unwrap_or(code)
}

/// Coulom's distance between two points: |dx| + |dy| + max(|dx|, |dy|).
fn distance(b: &FastBoard, i: Idx, j: Idx) -> u32 {
    let (x1, y1) = b.xy(i);
    let (x2, y2) = b.xy(j);
    let (dx, dy) = (x1.abs_diff(x2) as u32, y1.abs_diff(y2) as u32);
    dx + dy + dx.max(dy)
}

/// Whether a stone lies within Manhattan distance `d` of `i`.
fn stone_within(b: &FastBoard, i: Idx, d: usize) -> bool {
    let (x, y) = b.xy(i);
    for yy in y.saturating_sub(d)..=(y + d).min(b.height() - 1) {
        let r = d - y.abs_diff(yy);
        let row = b.idx(0, yy);
        for xx in x.saturating_sub(r)..=(x + r).min(b.width() - 1) {
            if b.stone(row + xx as Idx).is_some() {
                return true;
            }
        }
    }
    false
}

/// The features of `c` playing at `i` (PASS: passing), shape code left raw.
pub fn features(b: &FastBoard, i: Idx, c: Colour) -> Features {
    let mut f = [0u32; GROUPS];
    if i == PASS {
        f[PASS_G] = if b.move_count() > 0 && b.last_move() == PASS {
            1
        } else {
            2
        };
        return f;
    }
    let nbs = b.neighbours(i);
    // Captures, and whether one saves an own chain in atari.
    let mut captured = 0usize;
    let mut saves = false;
    let mut seen: [Idx; 4] = [PASS; 4];
    let mut own_atari = false;
    let mut atari_made = 0u32;
    for (k, &n) in nbs.iter().enumerate() {
        match b.stone(n) {
            Some(s) if s != c => {
                let h = b.chain(n);
                if seen[..k].contains(&h) {
                    continue;
                }
                seen[k] = h;
                if b.in_atari(n) {
                    captured += b.chain_size(n);
                    if !saves {
                        saves = b.chain_stones(n).any(|st| {
                            b.neighbours(st)
                                .iter()
                                .any(|&m| b.stone(m) == Some(c) && b.in_atari(m))
                        });
                    }
                } else if b.liberties_upto(n, 3) == 2 {
                    let size = if b.chain_size(n) >= 3 { 2 } else { 1 };
                    atari_made = atari_made.max(size);
                }
            }
            Some(_) => own_atari |= b.in_atari(n),
            None => {}
        }
    }
    if captured > 0 {
        f[CAPTURE] = if saves {
            3
        } else if captured >= 2 {
            2
        } else {
            1
        };
    }
    let libs = liberties_after(b, i, c);
    if own_atari {
        f[ESCAPE] = match libs {
            0 | 1 => 0,
            2 => 1,
            _ => 2,
        };
    }
    if libs == 1 && captured == 0 {
        let joins = nbs.iter().any(|&n| b.stone(n) == Some(c));
        f[SELF_ATARI] = if joins { 2 } else { 1 };
    }
    if atari_made > 0 {
        f[ATARI] = atari_made;
    }
    if b.move_count() > 0 && b.last_move() != PASS {
        f[DIST_LAST] = distance(b, i, b.last_move()).clamp(1, 17);
    }
    if b.move_count() > 1 && b.last_move2() != PASS {
        f[DIST_LAST2] = distance(b, i, b.last_move2()).clamp(1, 17);
    }
    let (x, y) = b.xy(i);
    let (dx, dy) = (x.min(b.width() - 1 - x), y.min(b.height() - 1 - y));
    let line = dx.min(dy).min(4) as u32;
    let corner = u32::from(dx.max(dy) <= 5);
    let empty = u32::from(!stone_within(b, i, 3));
    f[LINE] = 1 + (line * 2 + corner) * 2 + empty;
    f[SHAPE] = raw_shape(b, i, c) + 1;
    f
}

/// [`features`] and the two that need more than a look: the largest pattern of `dict` around
/// the move and, when `ladders`, the ladder reader's verdict on an atari or escape (a read
/// plays and takes back on `b`, leaving it exactly as it was).
pub fn full_features(
    b: &mut FastBoard,
    i: Idx,
    c: Colour,
    dict: &SpatialDict,
    ladders: bool,
) -> Features {
    let mut f = features(b, i, c);
    if i == PASS {
        return f;
    }
    if ladders && (f[ESCAPE] > 0 || f[ATARI] > 0) {
        f[LADDER] = match judge_move(b, i, c, LADDER_BUDGET) {
            LadderVerdict::None => 0,
            LadderVerdict::FutileEscape => 1,
            LadderVerdict::WorkingAtari => 2,
            LadderVerdict::FailingAtari => 3,
        };
    }
    f[SPATIAL] = dict.lookup(b, i, c);
    f
}

/// Why a model file could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// The file as named.
    pub file: String,
    /// 1-based line, 0 when the error is not on a line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        } else {
            write!(f, "{}: {}", self.file, self.message)
        }
    }
}

impl std::error::Error for ModelError {}

/// Values below this of the non-shape groups are looked up in a flat table, not a hash map.
const DENSE_VALUES: usize = 64;

/// The first line of a model file of the version this build reads.
pub const MODEL_HEADER: &str = "baduk go-patterns 2";

/// Fitted gammas: per group, the strength of each feature value.
#[derive(Clone, Debug)]
pub struct Model {
    /// `gammas[g][v]`: the strength of value `v` of group `g` (shapes are kept apart).
    gammas: Vec<HashMap<u32, f32>>,
    /// Gamma of every raw shape code (2^20 entries), filled from the canonical shapes.
    shape_table: Vec<f32>,
    /// `dense[g][v]`: the gamma of value `v` of a group other than shapes (1 if unlisted):
    /// values below 64, and every spatial pattern id.
    dense: Vec<Vec<f32>>,
    /// The spatial patterns the model lists.
    spatial: SpatialDict,
    /// Whether any ladder verdict has a gamma (else the reader is not asked).
    reads_ladders: bool,
    /// The comment lines at the top of the file (the invocation that made it).
    pub comments: Vec<String>,
}

impl Model {
    /// A model from gammas per group (the shape group keyed by canonical code + 1, with
    /// `RARE_SHAPE` for shapes not listed; the spatial group by the ids of `spatial`).
    pub fn new(
        gammas: Vec<HashMap<u32, f32>>,
        spatial: SpatialDict,
        comments: Vec<String>,
    ) -> Model {
        let shapes = &gammas[SHAPE];
        let rare = shapes.get(&RARE_SHAPE).copied().unwrap_or(1.0);
        let mut shape_table = vec![rare; 1 << 20];
        // A raw code takes the gamma of its canonical shape: fill each listed canonical shape's
        // orbit under the 8 symmetries (keys that are no canonical code match no raw code).
        for (&key, &g) in shapes {
            let Some(code) = key.checked_sub(1).filter(|&c| c < 1 << 20) else {
                continue;
            };
            if canonical_shape(code) != code {
                continue;
            }
            for sym in 0..8 {
                shape_table[transformed_shape(code, sym) as usize] = g;
            }
        }
        let dense = gammas
            .iter()
            .enumerate()
            .map(|(g, map)| {
                let len = if g == SPATIAL {
                    spatial.len() + 1
                } else {
                    DENSE_VALUES
                };
                let mut row = vec![1.0f32; len];
                if g != SHAPE {
                    for (&v, &gamma) in map {
                        if let Some(slot) = row.get_mut(v as usize) {
                            *slot = gamma;
                        }
                    }
                }
                row
            })
            .collect();
        let reads_ladders = !gammas[LADDER].is_empty();
        Model {
            gammas,
            shape_table,
            dense,
            spatial,
            reads_ladders,
            comments,
        }
    }

    /// The gammas per group (shapes by canonical code + 1, spatial patterns by id).
    pub fn gammas(&self) -> &[HashMap<u32, f32>] {
        &self.gammas
    }

    /// The spatial patterns the model lists.
    pub fn spatial(&self) -> &SpatialDict {
        &self.spatial
    }

    /// The gamma of value `v` of group `g` (1 when the model does not list it).
    #[inline]
    pub fn gamma(&self, g: usize, v: u32) -> f32 {
        if v == 0 {
            return 1.0;
        }
        if g == SHAPE {
            return self.shape_table[(v - 1) as usize & ((1 << 20) - 1)];
        }
        match self.dense[g].get(v as usize) {
            Some(&gamma) => gamma,
            None => self.gammas[g].get(&v).copied().unwrap_or(1.0),
        }
    }

    /// The gamma of a raw shape code.
    #[inline]
    pub fn shape_gamma(&self, raw: u32) -> f32 {
        self.shape_table[raw as usize & ((1 << 20) - 1)]
    }

    /// Playouts take a local shape only when its gamma is above this: twice an empty
    /// neighbourhood's.
    #[inline]
    pub fn playout_shape_floor(&self) -> f32 {
        2.0 * self.shape_table[0]
    }

    /// The strength of a candidate with features `f` (shape value raw + 1).
    #[inline]
    pub fn strength(&self, f: &Features) -> f32 {
        let mut s = 1.0f32;
        for (g, &v) in f.iter().enumerate() {
            if v != 0 {
                s *= self.gamma(g, v);
            }
        }
        s
    }

    /// The features of `c` playing at `i` that this model uses (ladders read only when it
    /// has gammas for them).
    pub fn features(&self, b: &mut FastBoard, i: Idx, c: Colour) -> Features {
        full_features(b, i, c, &self.spatial, self.reads_ladders)
    }

    /// The strength of `c` playing at `i` (PASS: passing); `b` is left as it was.
    pub fn move_strength(&self, b: &mut FastBoard, i: Idx, c: Colour) -> f32 {
        self.strength(&self.features(b, i, c))
    }

    /// Reads a model file's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Model, ModelError> {
        let err = |line: usize, message: String| ModelError {
            file: file.to_string(),
            line,
            message,
        };
        let mut gammas: Vec<HashMap<u32, f32>> = vec![HashMap::new(); GROUPS];
        let mut spatial = SpatialDict::new();
        let mut comments = Vec::new();
        let mut header = false;
        let mut count = 0usize;
        let mut ended = false;
        for (k, raw) in text.lines().enumerate() {
            let n = k + 1;
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(c) = line.strip_prefix('#') {
                comments.push(c.trim().to_string());
                continue;
            }
            if ended {
                return Err(err(n, "text after the `end` line".into()));
            }
            if !header {
                if line != MODEL_HEADER {
                    return Err(err(
                        n,
                        format!(
                            "not a model this build reads: the first line is `{line}`, expected `{MODEL_HEADER}`"
                        ),
                    ));
                }
                header = true;
                continue;
            }
            let parts: Vec<&str> = line.split_whitespace().collect();
            if parts[0] == "end" {
                let want: usize = parts
                    .get(1)
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| err(n, "`end` needs the number of gammas".into()))?;
                if want != count {
                    return Err(err(
                        n,
                        format!("`end {want}` but the file lists {count} gammas (truncated?)"),
                    ));
                }
                ended = true;
                continue;
            }
            if parts.len() != 3 {
                return Err(err(
                    n,
                    format!("expected `GROUP VALUE GAMMA`, found `{line}`"),
                ));
            }
            let g = GROUP_NAMES
                .iter()
                .position(|&g| g == parts[0])
                .ok_or_else(|| err(n, format!("unknown feature group `{}`", parts[0])))?;
            let v = if g == SHAPE && parts[1] == "rare" {
                RARE_SHAPE
            } else if g == SPATIAL {
                spatial.add(parts[1]).map_err(|m| err(n, m))?
            } else if g == SHAPE {
                u32::from_str_radix(parts[1], 16)
                    .ok()
                    .filter(|&c| c < 1 << 20)
                    .map(|c| c + 1)
                    .ok_or_else(|| err(n, format!("bad shape code `{}`", parts[1])))?
            } else {
                parts[1]
                    .parse::<u32>()
                    .ok()
                    .filter(|&v| v > 0)
                    .ok_or_else(|| err(n, format!("bad feature value `{}`", parts[1])))?
            };
            let gamma: f32 = parts[2]
                .parse()
                .ok()
                .filter(|g: &f32| g.is_finite() && *g > 1e-6 && *g < 1e6)
                .ok_or_else(|| {
                    err(
                        n,
                        format!("bad gamma `{}` (a number between 1e-6 and 1e6)", parts[2]),
                    )
                })?;
            gammas[g].insert(v, gamma);
            count += 1;
        }
        if !header {
            return Err(err(0, "empty model file".into()));
        }
        if !ended {
            return Err(err(
                text.lines().count(),
                "the file ends without its `end` line (truncated)".into(),
            ));
        }
        Ok(Model::new(gammas, spatial, comments))
    }

    /// Reads a model file.
    pub fn load(path: &str) -> Result<Model, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|e| ModelError {
            file: path.to_string(),
            line: 0,
            message: format!("cannot read the model file: {e}"),
        })?;
        Model::parse(&text, path)
    }

    /// The model as file text: `comments` first, then every gamma (spatial patterns by the
    /// texts of `spatial`).
    pub fn to_text(
        gammas: &[HashMap<u32, f32>],
        spatial: &SpatialDict,
        comments: &[String],
    ) -> String {
        let mut out = String::new();
        for c in comments {
            out.push_str(&format!("# {c}\n"));
        }
        out.push_str(MODEL_HEADER);
        out.push('\n');
        let mut count = 0;
        for (g, map) in gammas.iter().enumerate() {
            let mut vals: Vec<(u32, f32)> = if g == SPATIAL {
                // Every pattern, in id order (ids are line order): one no candidate had as its
                // largest still leads to larger ones.
                (1..=spatial.len() as u32)
                    .map(|id| (id, map.get(&id).copied().unwrap_or(1.0)))
                    .collect()
            } else {
                map.iter().map(|(&v, &g)| (v, g)).collect()
            };
            vals.sort_by_key(|(v, _)| *v);
            for (v, gamma) in vals {
                let key = if g == SHAPE && v == RARE_SHAPE {
                    "rare".to_string()
                } else if g == SPATIAL {
                    spatial.text(v).unwrap_or("?").to_string()
                } else if g == SHAPE {
                    format!("{:05x}", v - 1)
                } else {
                    v.to_string()
                };
                out.push_str(&format!("{} {} {}\n", GROUP_NAMES[g], key, gamma));
                count += 1;
            }
        }
        out.push_str(&format!("end {count}\n"));
        out
    }

    /// The model built into the binary (`models/go-patterns.txt` at build time).
    pub fn builtin() -> Arc<Model> {
        static M: OnceLock<Arc<Model>> = OnceLock::new();
        M.get_or_init(|| {
            Arc::new(
                Model::parse(BUILTIN, "models/go-patterns.txt (built in)")
                    .expect("the built-in model parses (checked by a test)"),
            )
        })
        .clone()
    }
}

/// The committed model, compiled in.
const BUILTIN: &str = include_str!("../../../../models/go-patterns.txt");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_shape_is_the_same_under_every_symmetry() {
        // An own stone north-west, an enemy stone east in atari.
        let code = 1 | (2 << (2 * 4)) | (1 << (16 + 2));
        let c = canonical_shape(code);
        let images: std::collections::HashSet<u32> =
            (0..8).map(|sym| transformed_shape(code, sym)).collect();
        assert_eq!(images.len(), 8, "this shape has no symmetry of its own");
        for t in images {
            assert_eq!(canonical_shape(t), c);
        }
    }

    #[test]
    fn shape_table_gives_every_raw_code_its_canonical_shapes_gamma() {
        let m = Model::builtin();
        let shapes = &m.gammas[SHAPE];
        let rare = shapes[&RARE_SHAPE];
        for code in 0..1u32 << 20 {
            let want = shapes
                .get(&(canonical_shape(code) + 1))
                .copied()
                .unwrap_or(rare);
            assert_eq!(m.shape_gamma(code), want, "raw code {code:#x}");
        }
    }

    #[test]
    fn features_see_a_capture_and_an_atari() {
        let mut b = FastBoard::new(9, 9);
        // White stone at (4,4) surrounded on three sides by Black: (4,5) captures it.
        b.setup(b.idx(4, 4), Colour::White);
        b.setup(b.idx(3, 4), Colour::Black);
        b.setup(b.idx(5, 4), Colour::Black);
        b.setup(b.idx(4, 3), Colour::Black);
        let f = features(&b, b.idx(4, 5), Colour::Black);
        assert_eq!(f[CAPTURE], 1);
        // A lone white stone in the corner has two liberties: taking one is an atari.
        let mut b = FastBoard::new(9, 9);
        b.setup(b.idx(0, 0), Colour::White);
        let f = features(&b, b.idx(0, 1), Colour::Black);
        assert_eq!(f[ATARI], 1);
        assert_eq!(f[LINE], 3, "first line, in the corner, a stone nearby");
    }

    #[test]
    fn every_legal_move_of_random_games_has_a_finite_positive_strength() {
        let m = Model::builtin();
        let mut rng = baduk_rng::Rng::new(5);
        for size in [5usize, 9, 13, 19] {
            let mut b = FastBoard::new(size, size);
            for _ in 0..size * size * 2 {
                let c = b.to_move();
                let legal: Vec<Idx> = b
                    .points()
                    .filter(|&i| b.is_legal(i, c, super::super::board::SuicidePolicy::Forbidden))
                    .collect();
                for &i in legal.iter().chain(std::iter::once(&PASS)) {
                    let f = features(&b, i, c);
                    assert!(f[LINE] <= 20 && f[DIST_LAST] <= 17 && f[DIST_LAST2] <= 17);
                    let s = m.strength(&f);
                    assert!(s.is_finite() && s > 0.0, "{size}x{size} {i}: {s}");
                }
                if legal.is_empty() {
                    b.pass();
                } else {
                    b.play(legal[rng.below(legal.len())], c);
                }
            }
        }
    }

    #[test]
    fn the_model_parser_never_panics_on_cut_or_mangled_files() {
        let m = Model::parse(BUILTIN, "builtin").unwrap();
        let good = Model::to_text(&m.gammas, &m.spatial, &["a comment".to_string()]);
        assert!(Model::parse(&good, "m").is_ok());
        let mut rng = baduk_rng::Rng::new(11);
        let bytes = good.as_bytes();
        for _ in 0..2000 {
            let mut v = bytes[..rng.below(bytes.len() + 1)].to_vec();
            for _ in 0..rng.below(4) {
                if !v.is_empty() {
                    let k = rng.below(v.len());
                    v[k] = b" \n#0123456789abcdefxe.-endshape"[rng.below(31)];
                }
            }
            let text = String::from_utf8_lossy(&v);
            if let Err(e) = Model::parse(&text, "m") {
                assert!(e.line <= text.lines().count().max(1), "{e}");
            }
        }
    }

    #[test]
    fn the_builtin_model_parses_and_bad_files_name_the_line() {
        let m = Model::builtin();
        assert!(!m.comments.is_empty(), "the invocation sits at the top");
        let e = Model::parse("baduk go-patterns 1\nend 0\n", "m.txt").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e
            .to_string()
            .starts_with("m.txt:1: not a model this build reads"));
        let e = Model::parse("baduk go-patterns 2\ncapture 1 3.5\n", "m.txt").unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
        let e = Model::parse("baduk go-patterns 2\ncapture 1 3.5\nend 2\n", "m.txt").unwrap_err();
        assert_eq!(e.line, 3);
        let e = Model::parse("baduk go-patterns 2\ncapture x 3.5\nend 1\n", "m.txt").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (2, "bad feature value `x`"));
        let e = Model::load("/nonexistent/model.txt").unwrap_err();
        assert!(e.to_string().contains("/nonexistent/model.txt"));
    }
}
