//! Fitting the move-prior model: every position of a set of game records becomes a
//! competition between its candidate moves, won by the move played, and the gammas of the
//! features are fitted by minorization-maximization (Coulom 2007), with one virtual win and one
//! virtual loss against a gamma of 1 for each feature as the prior. The spatial patterns are
//! those played often enough in the records, at every size. Also: the model's move-prediction
//! accuracy on held-out games against a uniform choice and the hand-written priors.

use super::board::{Colour, FastBoard, Idx, SuicidePolicy, PASS};
use super::mcts::heuristic_prior;
#[cfg(test)]
use super::patterns::SPATIAL;
use super::patterns::{canonical_shape, full_features, Features, Model, GROUPS, RARE_SHAPE, SHAPE};
use super::spatial::{canonical_patterns, SpatialDict, LEVELS};
use std::collections::HashMap;

/// One game record as the trainer reads it.
#[derive(Clone, Debug)]
pub struct TrainGame {
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// Setup stones (handicap).
    pub setup: Vec<(Colour, Idx)>,
    /// The moves (PASS for a pass).
    pub moves: Vec<(Colour, Idx)>,
}

/// The candidates of every position of `game` and the index of the move played, fed to `f`
/// (positions whose move is no candidate, such as filling an own eye, are skipped); `f` must
/// leave the board as it found it.
pub fn for_each_position(
    game: &TrainGame,
    mut f: impl FnMut(&mut FastBoard, Colour, &[Idx], usize),
) {
    let mut b = FastBoard::new(game.width, game.height);
    for &(c, i) in &game.setup {
        b.setup(i, c);
    }
    let mut cands: Vec<Idx> = Vec::new();
    for &(c, mv) in &game.moves {
        b.set_to_move(c);
        cands.clear();
        for i in b.points() {
            if b.is_empty(i) && !b.is_eye(i, c) && b.is_legal(i, c, SuicidePolicy::Forbidden) {
                cands.push(i);
            }
        }
        cands.push(PASS);
        if let Some(w) = cands.iter().position(|&x| x == mv) {
            f(&mut b, c, &cands, w);
        }
        if mv == PASS {
            b.pass();
        } else if b.is_empty(mv) {
            b.play(mv, c);
        }
    }
}

/// Options of a fit.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// MM iterations over all groups.
    pub iterations: usize,
    /// A shape is fitted on its own when played at least this often; rarer shapes share one
    /// gamma.
    pub min_shape_wins: u32,
    /// A spatial pattern (of any size) is listed when played at least this often; 0: no
    /// spatial patterns.
    pub min_spatial_wins: u32,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            iterations: 20,
            min_shape_wins: 3,
            min_spatial_wins: 5,
        }
    }
}

/// The features of a candidate with the shape made canonical.
fn canonical_features(b: &mut FastBoard, i: Idx, c: Colour, dict: &SpatialDict) -> Features {
    let mut f = full_features(b, i, c, dict, true);
    if f[SHAPE] != 0 {
        f[SHAPE] = canonical_shape(f[SHAPE] - 1) + 1;
    }
    f
}

/// The spatial patterns played at least `min` times in `games`, smaller ones first.
pub fn spatial_dictionary(games: &[TrainGame], min: u32) -> SpatialDict {
    let mut dict = SpatialDict::new();
    if min == 0 {
        return dict;
    }
    // Hash → (times played, (size, order first seen), text).
    let mut counts: HashMap<u64, (u32, (usize, usize), String)> = HashMap::new();
    let mut order = 0usize;
    for g in games {
        for_each_position(g, |b, c, cands, w| {
            let i = cands[w];
            if i == PASS {
                return;
            }
            for (l, (h, text)) in canonical_patterns(b, i, c).into_iter().enumerate() {
                let e = counts.entry(h).or_insert_with(|| {
                    order += 1;
                    (0, (l, order), text)
                });
                e.0 += 1;
            }
        });
    }
    // Smaller patterns first, each size in the order first seen, so the ids are reproducible.
    let mut kept: Vec<((usize, usize), String)> = counts
        .into_values()
        .filter(|(n, _, _)| *n >= min)
        .map(|(_, key, text)| (key, text))
        .collect();
    kept.sort();
    for (_, text) in kept {
        dict.add(&text)
            .expect("a canonical pattern is well formed and listed once");
    }
    dict
}

/// A fitted model's parts: gammas per group and the spatial patterns they name.
pub struct Fitted {
    /// Gammas per group, as [`Model::new`] takes them.
    pub gammas: Vec<HashMap<u32, f32>>,
    /// The spatial patterns.
    pub spatial: SpatialDict,
}

/// Fits the gammas on `games`; `log` hears one line per iteration.
pub fn fit(games: &[TrainGame], opts: &TrainOptions, mut log: impl FnMut(&str)) -> Fitted {
    let dict = spatial_dictionary(games, opts.min_spatial_wins);
    log(&format!(
        "{} spatial patterns played at least {} times (sizes {:?})",
        dict.len(),
        opts.min_spatial_wins,
        LEVELS
    ));
    // Extract every competition.
    let mut feats: Vec<Features> = Vec::new();
    let mut starts: Vec<u32> = Vec::new();
    let mut winners: Vec<u32> = Vec::new();
    for g in games {
        for_each_position(g, |b, c, cands, w| {
            starts.push(feats.len() as u32);
            winners.push((feats.len() + w) as u32);
            for &i in cands {
                feats.push(canonical_features(b, i, c, &dict));
            }
        });
    }
    starts.push(feats.len() as u32);
    log(&format!(
        "{} positions, {} candidates",
        winners.len(),
        feats.len()
    ));
    // Shapes played often enough get their own gamma.
    let mut shape_wins: HashMap<u32, u32> = HashMap::new();
    for &w in &winners {
        let s = feats[w as usize][SHAPE];
        if s != 0 {
            *shape_wins.entry(s).or_default() += 1;
        }
    }
    for f in feats.iter_mut() {
        let s = f[SHAPE];
        if s != 0 && shape_wins.get(&s).copied().unwrap_or(0) < opts.min_shape_wins {
            f[SHAPE] = RARE_SHAPE;
        }
    }
    // Global ids of the features.
    let mut ids: HashMap<(usize, u32), usize> = HashMap::new();
    let mut keys: Vec<(usize, u32)> = Vec::new();
    let mut cand_ids: Vec<[u32; GROUPS]> = Vec::with_capacity(feats.len());
    for f in &feats {
        let mut row = [u32::MAX; GROUPS];
        for (g, &v) in f.iter().enumerate() {
            if v != 0 {
                let id = *ids.entry((g, v)).or_insert_with(|| {
                    keys.push((g, v));
                    keys.len() - 1
                });
                row[g] = id as u32;
            }
        }
        cand_ids.push(row);
    }
    drop(feats);
    let n = keys.len();
    let mut wins = vec![0f64; n];
    for &w in &winners {
        for &id in cand_ids[w as usize].iter().filter(|&&id| id != u32::MAX) {
            wins[id as usize] += 1.0;
        }
    }
    log(&format!("{n} features"));
    let mut gamma = vec![1f64; n];
    let mut strength = vec![1f64; cand_ids.len()];
    let positions = winners.len();
    for it in 0..opts.iterations {
        for g in 0..GROUPS {
            // E_j for every competition.
            let mut denom = vec![0f64; n];
            for j in 0..positions {
                let (a, z) = (starts[j] as usize, starts[j + 1] as usize);
                let e: f64 = strength[a..z].iter().sum();
                for k in a..z {
                    let id = cand_ids[k][g];
                    if id != u32::MAX {
                        denom[id as usize] += strength[k] / gamma[id as usize] / e;
                    }
                }
            }
            let mut changed = vec![1f64; n];
            for (id, &(kg, _)) in keys.iter().enumerate() {
                if kg != g {
                    continue;
                }
                let old = gamma[id];
                // One virtual win and one virtual loss against a gamma of 1.
                let new = (wins[id] + 1.0) / (denom[id] + 2.0 / (old + 1.0));
                gamma[id] = new;
                changed[id] = new / old;
            }
            for (k, row) in cand_ids.iter().enumerate() {
                let id = row[g];
                if id != u32::MAX {
                    strength[k] *= changed[id as usize];
                }
            }
        }
        // Log-likelihood of the moves played.
        let mut ll = 0f64;
        for j in 0..positions {
            let (a, z) = (starts[j] as usize, starts[j + 1] as usize);
            let e: f64 = strength[a..z].iter().sum();
            ll += (strength[winners[j] as usize] / e).ln();
        }
        log(&format!(
            "iteration {}: mean log-likelihood {:.4}",
            it + 1,
            ll / positions.max(1) as f64
        ));
    }
    let mut out: Vec<HashMap<u32, f32>> = vec![HashMap::new(); GROUPS];
    for (id, &(g, v)) in keys.iter().enumerate() {
        out[g].insert(v, (gamma[id] as f32).clamp(1e-5, 1e5));
    }
    Fitted {
        gammas: out,
        spatial: dict,
    }
}

/// Move-prediction accuracy of one predictor.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accuracy {
    /// Positions counted.
    pub positions: usize,
    /// Expected share of positions whose move is ranked first (ties broken at random).
    pub top1: f64,
    /// Expected share whose move is among the first five.
    pub top5: f64,
}

/// The chance that the winner lands in the first `k` when `above` candidates score higher and
/// `tied` (itself included) score the same, ties in random order.
fn top_k(above: usize, tied: usize, k: usize) -> f64 {
    if above >= k {
        0.0
    } else {
        ((k - above) as f64 / tied as f64).min(1.0)
    }
}

/// Accuracy of the model, a uniform choice and the hand-written priors on `games`, in that
/// order.
pub fn evaluate(model: &Model, games: &[TrainGame]) -> [Accuracy; 3] {
    let mut acc = [Accuracy::default(); 3];
    let mut scores: Vec<f32> = Vec::new();
    for g in games {
        for_each_position(g, |b, c, cands, w| {
            for (p, a) in acc.iter_mut().enumerate() {
                scores.clear();
                for &i in cands {
                    scores.push(match p {
                        0 => model.move_strength(b, i, c),
                        1 => 1.0,
                        _ => {
                            let (pv, pw) = heuristic_prior(b, i, c);
                            pw / pv
                        }
                    });
                }
                let sw = scores[w];
                let above = scores.iter().filter(|&&s| s > sw).count();
                let tied = scores.iter().filter(|&&s| s == sw).count();
                a.positions += 1;
                a.top1 += top_k(above, tied, 1);
                a.top5 += top_k(above, tied, 5);
            }
        });
    }
    for a in acc.iter_mut() {
        let n = a.positions.max(1) as f64;
        a.top1 /= n;
        a.top5 /= n;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mm_learns_that_the_played_feature_is_strong() {
        // Games where Black always captures the white stone in atari: the capture gamma
        // must come out well above 1.
        let mut games = Vec::new();
        for k in 0..6 {
            let mut b = FastBoard::new(9, 9);
            let x = 2 + k % 5;
            let setup = vec![
                (Colour::White, b.idx(x, 4)),
                (Colour::Black, b.idx(x - 1, 4)),
                (Colour::Black, b.idx(x + 1, 4)),
                (Colour::Black, b.idx(x, 3)),
            ];
            for &(c, i) in &setup {
                b.setup(i, c);
            }
            games.push(TrainGame {
                width: 9,
                height: 9,
                setup,
                moves: vec![(Colour::Black, b.idx(x, 5))],
            });
        }
        let fitted = fit(&games, &TrainOptions::default(), |_| {});
        assert!(fitted.gammas[1][&1] > 3.0, "{:?}", fitted.gammas[1]);
        let model = Model::new(fitted.gammas, fitted.spatial, vec![]);
        let [m, u, _] = evaluate(&model, &games);
        assert_eq!(m.positions, 6);
        assert!(m.top1 > 0.99 && u.top1 < 0.05, "{m:?} {u:?}");
    }

    /// A random game of `moves` legal moves on a `size` board, seeded.
    fn random_game(size: usize, moves: usize, seed: u64) -> TrainGame {
        let mut rng = baduk_rng::Rng::new(seed);
        let mut b = FastBoard::new(size, size);
        let mut out = Vec::new();
        for _ in 0..moves {
            let c = b.to_move();
            let legal: Vec<Idx> = b
                .points()
                .filter(|&i| b.is_empty(i) && !b.is_eye(i, c))
                .filter(|&i| b.is_legal(i, c, SuicidePolicy::Forbidden))
                .collect();
            let mv = if legal.is_empty() {
                PASS
            } else {
                legal[rng.below(legal.len())]
            };
            out.push((c, mv));
            if mv == PASS {
                b.pass();
            } else {
                b.play(mv, c);
            }
        }
        TrainGame {
            width: size,
            height: size,
            setup: vec![],
            moves: out,
        }
    }

    #[test]
    fn a_pattern_played_twice_is_found_at_its_largest_size() {
        // The same game twice: every move's patterns are played twice, so with a floor of two
        // every move finds its pattern of gridcular distance 10, whatever its orientation.
        let g = random_game(13, 60, 3);
        let dict = spatial_dictionary(&[g.clone(), g.clone()], 2);
        assert!(!dict.is_empty());
        let mut seen = 0;
        for_each_position(&g, |b, c, cands, w| {
            let i = cands[w];
            if i != PASS {
                let id = dict.lookup(b, i, c);
                assert!(dict.text(id).unwrap().starts_with("10:"), "{id}");
                seen += 1;
            }
        });
        assert!(seen > 50);
        // With a floor of three only patterns that the game itself repeats are listed.
        assert!(spatial_dictionary(&[g.clone(), g], 3).len() < dict.len());
    }

    #[test]
    fn a_fitted_model_reads_back_with_the_same_strengths() {
        let games: Vec<TrainGame> = (0..4).map(|k| random_game(9, 50, 10 + k)).collect();
        let opts = TrainOptions {
            iterations: 3,
            min_shape_wins: 1,
            min_spatial_wins: 1,
        };
        let fitted = fit(&games, &opts, |_| {});
        assert!(!fitted.spatial.is_empty() && !fitted.gammas[SPATIAL].is_empty());
        let text = Model::to_text(&fitted.gammas, &fitted.spatial, &["test".to_string()]);
        let read = Model::parse(&text, "fitted.txt").unwrap();
        let model = Model::new(fitted.gammas, fitted.spatial, vec![]);
        let mut compared = 0;
        for_each_position(&games[0], |b, c, cands, _| {
            for &i in cands {
                let before = b.hash();
                let (x, y) = (model.move_strength(b, i, c), read.move_strength(b, i, c));
                assert_eq!(x, y);
                assert_eq!(b.hash(), before, "ladder reads leave the board as it was");
                compared += 1;
            }
        });
        assert!(compared > 1000);
    }

    #[test]
    fn ties_share_the_top_places() {
        assert_eq!(top_k(0, 4, 1), 0.25);
        assert_eq!(top_k(0, 4, 5), 1.0);
        assert_eq!(top_k(3, 4, 5), 0.5);
        assert_eq!(top_k(5, 1, 5), 0.0);
    }
}
