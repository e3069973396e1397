//! The learned evaluation of `sedol`: a logistic model over the features, fitted to game
//! outcomes by `baduk wall train`, stored as a small text file.

use super::features::{territory, Features};
use baduk_rng::Rng;
use baduk_wallgo::{Game, Outcome, Phase, Player, Position};
use std::fmt;

/// Number of features the model weighs.
pub const NUM_FEATURES: usize = 9;
/// Feature names in file order; each is "mine minus the opponent's" for the player judged; the
/// `_late` ones are scaled by the share of the 84 walls already placed (so their weight can
/// change as the game goes).
pub const FEATURE_NAMES: [&str; NUM_FEATURES] = [
    "pure",
    "contested_reach",
    "mobility",
    "enemy_self_enclosed",
    "enemy_small_confined",
    "territory",
    "contested_reach_late",
    "mobility_late",
    "territory_late",
];
/// Evaluation units per unit of logit.
pub const SCALE: f64 = 100.0;
/// The model committed with the repository (fitted on `expert` self-play records).
pub const DEFAULT_MODEL: &str = include_str!("../../../../models/sedol.txt");

/// A model file that does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "model line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for ModelError {}

/// A logistic model: P(the player judged wins) = σ(bias + Σ wᵢ·xᵢ).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Intercept (the advantage of being to move); it does not change move choice.
    pub bias: f64,
    /// One weight per feature of [`FEATURE_NAMES`].
    pub weights: [f64; NUM_FEATURES],
}

/// The feature vector of `pos` for `me`.
pub fn feature_vector(
    f: &Features,
    terr: [u32; 2],
    walls: usize,
    me: Player,
) -> [f64; NUM_FEATURES] {
    let m = f.of_side(me);
    let o = f.of_side(me.other());
    let d = |a: u32, b: u32| a as f64 - b as f64;
    let late = walls as f64 / 84.0;
    let reach = d(m.reach - m.pure, o.reach - o.pure);
    let mobility = d(m.mobility, o.mobility);
    let territory = d(terr[me.index()], terr[me.other().index()]);
    [
        d(m.pure, o.pure),
        reach,
        mobility,
        d(o.self_enclosed, m.self_enclosed),
        d(o.small_confined, m.small_confined),
        territory,
        reach * late,
        mobility * late,
        territory * late,
    ]
}

impl Model {
    /// The committed model.
    pub fn default_model() -> Model {
        Model::parse(DEFAULT_MODEL).unwrap_or(Model {
            bias: 0.0,
            weights: [0.1, 0.03, 0.01, 0.4, 0.0, 0.06, 0.0, 0.0, 0.0],
        })
    }

    /// The logit for `me`.
    #[inline]
    pub fn logit(&self, x: &[f64; NUM_FEATURES]) -> f64 {
        self.bias + self.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f64>()
    }

    /// The evaluation of a position for `me` in search units (the intercept left out, so the
    /// value is antisymmetric between the players).
    #[inline]
    pub fn eval(&self, f: &Features, terr: [u32; 2], walls: usize, me: Player) -> i32 {
        let x = feature_vector(f, terr, walls, me);
        let z = self.logit(&x) - self.bias;
        (z * SCALE).round() as i32
    }

    /// Reads the text form: `sedol 1`, then `name value` lines; `#` starts a comment.
    pub fn parse(text: &str) -> Result<Model, ModelError> {
        let mut m = Model {
            bias: 0.0,
            weights: [0.0; NUM_FEATURES],
        };
        let mut header = false;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |reason: String| ModelError {
                line: i + 1,
                reason,
            };
            if !header {
                if line != "sedol 1" {
                    return Err(err(format!("expected 'sedol 1', found '{line}'")));
                }
                header = true;
                continue;
            }
            let (name, value) = line
                .split_once(char::is_whitespace)
                .ok_or_else(|| err(format!("expected 'name value', found '{line}'")))?;
            let v: f64 = value
                .trim()
                .parse()
                .map_err(|_| err(format!("'{}' is not a number", value.trim())))?;
            if !v.is_finite() {
                return Err(err(format!("{name}: the weight must be finite")));
            }
            if name == "bias" {
                m.bias = v;
            } else if let Some(k) = FEATURE_NAMES.iter().position(|&n| n == name) {
                m.weights[k] = v;
            } else {
                return Err(err(format!(
                    "unknown feature '{name}' (known: bias, {})",
                    FEATURE_NAMES.join(", ")
                )));
            }
        }
        if !header {
            return Err(ModelError {
                line: 0,
                reason: "empty model file".into(),
            });
        }
        Ok(m)
    }

    /// The text form, with `comment` lines first.
    pub fn to_text(&self, comment: &str) -> String {
        let mut s = String::from("sedol 1\n");
        for l in comment.lines() {
            s.push_str(&format!("# {l}\n"));
        }
        s.push_str(&format!("bias {:.6}\n", self.bias));
        for (n, w) in FEATURE_NAMES.iter().zip(self.weights) {
            s.push_str(&format!("{n} {w:.6}\n"));
        }
        s
    }
}

/// One training example: the features for the player to move and that player's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Features of [`FEATURE_NAMES`] for the player to move.
    pub x: [f64; NUM_FEATURES],
    /// 1 for a win of the player to move, 0.5 for a draw, 0 for a loss.
    pub y: f64,
}

/// The examples of one finished game: every turn-phase position before the end.
pub fn samples_of(game: &Game) -> Vec<Sample> {
    let Some(result) = game.position().result() else {
        return Vec::new();
    };
    let mut pos = Position::new(game.variant());
    let mut out = Vec::new();
    for &a in game.actions() {
        if pos.phase() == Phase::Turns {
            let me = pos.to_move();
            let f = Features::of(&pos);
            let y = match result {
                Outcome::Win(p) if p == me => 1.0,
                Outcome::Win(_) => 0.0,
                Outcome::Draw => 0.5,
            };
            out.push(Sample {
                x: feature_vector(&f, territory(&pos), pos.walls().len(), me),
                y,
            });
        }
        if pos.apply(a).is_err() {
            break;
        }
    }
    out
}

/// What training produced.
#[derive(Clone, Debug)]
pub struct TrainReport {
    /// The fitted model.
    pub model: Model,
    /// Games and examples used for fitting.
    pub train_games: usize,
    /// Examples used for fitting.
    pub train_samples: usize,
    /// Games held out for validation.
    pub val_games: usize,
    /// Examples held out.
    pub val_samples: usize,
    /// Mean log loss on the fitting examples.
    pub train_loss: f64,
    /// Mean log loss on the held-out examples.
    pub val_loss: f64,
}

/// Mean log loss of `m` on `s` (0.693 is a coin flip).
pub fn log_loss(m: &Model, s: &[Sample]) -> f64 {
    if s.is_empty() {
        return f64::NAN;
    }
    let mut total = 0.0;
    for e in s {
        let p = sigmoid(m.logit(&e.x)).clamp(1e-9, 1.0 - 1e-9);
        total -= e.y * p.ln() + (1.0 - e.y) * (1.0 - p).ln();
    }
    total / s.len() as f64
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Fits a model to games: games are shuffled with `seed`, a fifth (at least one when there are
/// two or more) is held out for validation, and the rest fitted by full-batch gradient descent on
/// standardised features with a small L2 penalty. The same games and seed give the same model.
#[allow(clippy::needless_range_loop)] // parallel arrays indexed by feature
pub fn train(games: &[Vec<Sample>], seed: u64, iterations: usize) -> TrainReport {
    let mut order: Vec<usize> = (0..games.len()).collect();
    Rng::new(seed).shuffle(&mut order);
    let n_val = if games.len() >= 2 {
        (games.len() / 5).max(1)
    } else {
        0
    };
    let (val_idx, train_idx) = order.split_at(n_val);
    let gather = |idx: &[usize]| -> Vec<Sample> {
        idx.iter().flat_map(|&i| games[i].iter().copied()).collect()
    };
    let tr = gather(train_idx);
    let va = gather(val_idx);
    // Standardise: z = (x - mean) / sd, fit in z, then map back.
    let n = tr.len().max(1) as f64;
    let mut mean = [0.0; NUM_FEATURES];
    let mut sd = [0.0; NUM_FEATURES];
    for e in &tr {
        for k in 0..NUM_FEATURES {
            mean[k] += e.x[k] / n;
        }
    }
    for e in &tr {
        for k in 0..NUM_FEATURES {
            sd[k] += (e.x[k] - mean[k]).powi(2) / n;
        }
    }
    for v in sd.iter_mut() {
        *v = if *v > 1e-12 { v.sqrt() } else { 1.0 };
    }
    let mut w = [0.0; NUM_FEATURES];
    let mut b = 0.0;
    let lr = 0.5;
    let l2 = 1e-4;
    for _ in 0..iterations {
        let mut gw = [0.0; NUM_FEATURES];
        let mut gb = 0.0;
        for e in &tr {
            let mut z = b;
            for k in 0..NUM_FEATURES {
                z += w[k] * (e.x[k] - mean[k]) / sd[k];
            }
            let g = sigmoid(z) - e.y;
            gb += g;
            for k in 0..NUM_FEATURES {
                gw[k] += g * (e.x[k] - mean[k]) / sd[k];
            }
        }
        b -= lr * gb / n;
        for k in 0..NUM_FEATURES {
            w[k] -= lr * (gw[k] / n + l2 * w[k]);
        }
    }
    let mut model = Model {
        bias: b,
        weights: [0.0; NUM_FEATURES],
    };
    for k in 0..NUM_FEATURES {
        model.weights[k] = w[k] / sd[k];
        model.bias -= w[k] * mean[k] / sd[k];
    }
    TrainReport {
        train_loss: log_loss(&model, &tr),
        val_loss: log_loss(&model, &va),
        train_games: train_idx.len(),
        train_samples: tr.len(),
        val_games: val_idx.len(),
        val_samples: va.len(),
        model,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_model_reads() {
        let m = Model::parse(DEFAULT_MODEL).unwrap();
        assert_eq!(Model::default_model(), m);
        assert!(m.weights.iter().any(|&w| w != 0.0));
    }

    #[test]
    fn model_text_round_trips_and_bad_lines_name_their_number() {
        let m = Model::default_model();
        let back = Model::parse(&m.to_text("a comment\nover two lines")).unwrap();
        for (a, b) in m.weights.iter().zip(back.weights) {
            assert!((a - b).abs() < 1e-6);
        }
        assert_eq!(Model::parse("").unwrap_err().line, 0);
        assert_eq!(Model::parse("sedol 2\n").unwrap_err().line, 1);
        let e = Model::parse("sedol 1\npure 0.1\nwisdom 3\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.reason.contains("territory"), "{e}");
        assert_eq!(Model::parse("sedol 1\npure x\n").unwrap_err().line, 2);
        assert_eq!(Model::parse("sedol 1\npure NaN\n").unwrap_err().line, 2);
    }

    /// Games of synthetic examples whose outcome follows the first feature.
    fn synthetic(seed: u64) -> Vec<Vec<Sample>> {
        let mut rng = Rng::new(seed);
        (0..20)
            .map(|_| {
                (0..30)
                    .map(|_| {
                        let mut x = [0.0; NUM_FEATURES];
                        for v in x.iter_mut() {
                            *v = rng.below(21) as f64 - 10.0;
                        }
                        let p = sigmoid(0.4 * x[0]);
                        let y = if rng.unit() < p { 1.0 } else { 0.0 };
                        Sample { x, y }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn training_is_reproducible_for_a_seed_and_learns_the_signal() {
        let games = synthetic(3);
        let a = train(&games, 7, 300);
        let b = train(&games, 7, 300);
        assert_eq!(a.model, b.model);
        assert_eq!(a.val_games, 4);
        assert!(a.val_loss.is_finite() && a.val_loss < 0.6, "{}", a.val_loss);
        assert!(a.model.weights[0] > 0.2, "{:?}", a.model.weights);
        let c = train(&games, 8, 300);
        assert_ne!(a.model, c.model, "another seed holds out other games");
    }
}
