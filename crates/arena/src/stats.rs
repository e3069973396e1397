//! Match statistics shared by every game: score with a 95% interval, the Elo difference with its
//! interval, and means with standard errors. Nothing here knows a game's rules.
//!
//! The score interval is Wilson's score interval (E. B. Wilson, 1927), which stays honest at 0 %
//! and 100 %: a 2–0 match gives 34.2–100 %, not the normal approximation's collapsed 100–100 %.
//! Draws are counted as half a win, which makes the interval slightly conservative. The Elo
//! interval is the same interval mapped through the logistic Elo curve, so an end at 0 % or 100 %
//! is an unbounded Elo end (`null` in JSON, `-inf`/`+inf` in text).

use serde::Serialize;

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_964;

/// Wins, draws and losses of the first player of a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first player won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the first player lost.
    pub losses: u64,
}

impl Tally {
    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Score per game: (wins + draws/2) / games; 0.5 with no games.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
    }

    /// Standard error of the score per game (from the observed win/draw/loss spread; 0 at a
    /// clean sweep, which is why the interval does not use it).
    pub fn score_se(&self) -> f64 {
        let n = self.games() as f64;
        if n < 1.0 {
            return 0.5;
        }
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        (var / n).sqrt()
    }

    /// Wilson's 95% score interval of the score per game; (0, 1) with no games.
    pub fn score_ci95(&self) -> (f64, f64) {
        wilson(self.score(), self.games(), Z95)
    }

    /// Elo difference implied by the score (clamped away from 0 and 1 by half a game, so a
    /// clean sweep has a finite point estimate; its interval says how far it may go).
    pub fn elo(&self) -> f64 {
        elo_of_score(self.clamped_score())
    }

    /// The 95% interval of the Elo difference: [`Tally::score_ci95`] through the Elo curve. An
    /// end at a score of 0 or 1 is infinite.
    pub fn elo_ci95(&self) -> (f64, f64) {
        let (lo, hi) = self.score_ci95();
        (elo_of_score(lo), elo_of_score(hi))
    }

    /// Half the width of [`Tally::elo_ci95`], when both ends are finite.
    pub fn elo_error(&self) -> Option<f64> {
        let (lo, hi) = self.elo_ci95();
        (lo.is_finite() && hi.is_finite()).then(|| (hi - lo) / 2.0)
    }

    fn clamped_score(&self) -> f64 {
        let n = self.games().max(1) as f64;
        self.score().clamp(0.5 / n, 1.0 - 0.5 / n)
    }
}

/// One finished game as the match statistics see it, from the first player's (`a`'s) side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    /// `a`'s points: 1 for a win, 1/2 for a draw, 0 for a loss.
    pub a_points: f64,
    /// Whether `a` had the first seat (Black in Go, A in Wall Go).
    pub a_first: bool,
    /// `a`'s margin, where the game was counted.
    pub margin: Option<f64>,
    /// Moves or turns in the game.
    pub length: usize,
}

/// The statistics every arena reports about `a` against `b` (flattened into their `--json`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct MatchStats {
    /// Games played.
    pub games: u64,
    /// Games `a` won.
    pub a_wins: u64,
    /// Games `b` won.
    pub b_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// `a`'s score per game: (wins + draws/2) / games.
    pub a_score: f64,
    /// Wilson's 95% interval of `a_score`.
    pub a_score_ci95: [f64; 2],
    /// Elo difference `a` − `b`.
    pub elo: f64,
    /// 95% interval of `elo` (the score interval through the Elo curve); `None` (JSON `null`)
    /// for an unbounded end, as after a clean sweep.
    pub elo_ci95: [Option<f64>; 2],
    /// Half-width of `elo_ci95`; `None` when an end is unbounded.
    pub elo_error: Option<f64>,
    /// Mean of `a`'s margin over the counted games (0 when none was counted).
    pub mean_margin: f64,
    /// Standard error of `mean_margin`.
    pub margin_se: f64,
    /// Mean moves (turns) per game.
    pub mean_length: f64,
    /// Mean milliseconds per move asked of an engine.
    pub mean_ms_per_action: f64,
    /// `a`'s score in the first seat, then in the second.
    pub a_score_by_side: [f64; 2],
}

impl MatchStats {
    /// The statistics of `games`, with `actions` moves asked of the engines in `ms` milliseconds.
    pub fn of(games: &[Played], actions: u64, ms: f64) -> MatchStats {
        let mut t = Tally::default();
        let mut by_side = [(0.0f64, 0u32); 2];
        for g in games {
            match g.a_points {
                p if p > 0.75 => t.wins += 1,
                p if p < 0.25 => t.losses += 1,
                _ => t.draws += 1,
            }
            let side = &mut by_side[if g.a_first { 0 } else { 1 }];
            side.0 += g.a_points;
            side.1 += 1;
        }
        let margins: Vec<f64> = games.iter().filter_map(|g| g.margin).collect();
        let lengths: Vec<f64> = games.iter().map(|g| g.length as f64).collect();
        let (mean_margin, margin_se) = mean_se(&margins);
        let (lo, hi) = t.score_ci95();
        let (elo_lo, elo_hi) = t.elo_ci95();
        let finite = |x: f64| x.is_finite().then_some(x);
        MatchStats {
            games: t.games(),
            a_wins: t.wins,
            b_wins: t.losses,
            draws: t.draws,
            a_score: t.score(),
            a_score_ci95: [lo, hi],
            elo: t.elo(),
            elo_ci95: [finite(elo_lo), finite(elo_hi)],
            elo_error: t.elo_error(),
            mean_margin,
            margin_se,
            mean_length: mean_se(&lengths).0,
            mean_ms_per_action: if actions > 0 {
                ms / actions as f64
            } else {
                0.0
            },
            a_score_by_side: by_side.map(|(p, n)| if n > 0 { p / n as f64 } else { 0.5 }),
        }
    }
}

impl MatchStats {
    /// `score 100.0% (95% 34.2–100.0%)`: the score and its interval, as both arenas print it.
    pub fn score_text(&self) -> String {
        format!(
            "score {:.1}% (95% {:.1}–{:.1}%)",
            100.0 * self.a_score,
            100.0 * self.a_score_ci95[0],
            100.0 * self.a_score_ci95[1]
        )
    }

    /// `Elo +191 (95% +12 to +inf)`: the Elo difference and its interval.
    pub fn elo_text(&self) -> String {
        let end = |e: Option<f64>, inf: &str| e.map_or(inf.to_string(), |x| format!("{x:+.0}"));
        format!(
            "Elo {:+.0} (95% {} to {})",
            self.elo,
            end(self.elo_ci95[0], "-inf"),
            end(self.elo_ci95[1], "+inf")
        )
    }
}

/// Wilson's score interval for a proportion `p` observed over `n` trials at normal quantile `z`
/// (two-sided); (0, 1) when `n` is 0. Unlike `p ± z·se` it never collapses to a point.
pub fn wilson(p: f64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // Exact ends at p = 0 and p = 1 (the formula gives them up to rounding).
    let lo = if p <= 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if p >= 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// Elo difference of a player who scores `s` per game: −∞ at 0, +∞ at 1.
pub fn elo_of_score(s: f64) -> f64 {
    if s <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if s >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Mean and standard error of the mean of `xs` (0 and 0 when empty).
pub fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let m = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (m, 0.0);
    }
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_stats_count_points_by_seat_and_margins_only_where_counted() {
        let g = |a_points, a_first, margin| Played {
            a_points,
            a_first,
            margin,
            length: 10,
        };
        let s = MatchStats::of(
            &[
                g(1.0, true, Some(3.0)),
                g(0.5, false, Some(0.0)),
                g(0.0, false, None),
                g(1.0, true, Some(6.0)),
            ],
            8,
            400.0,
        );
        assert_eq!((s.games, s.a_wins, s.draws, s.b_wins), (4, 2, 1, 1));
        assert_eq!(s.a_score, 0.625);
        assert_eq!(s.a_score_by_side, [1.0, 0.25]);
        assert_eq!(s.mean_margin, 3.0);
        assert_eq!(s.mean_length, 10.0);
        assert_eq!(s.mean_ms_per_action, 50.0);
    }

    #[test]
    fn even_score_is_zero_elo() {
        let t = Tally {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        assert_eq!(t.score(), 0.5);
        assert!(t.elo().abs() < 1e-9);
        let (lo, hi) = t.score_ci95();
        assert!(lo < 0.5 && hi > 0.5);
        // 20 coin flips: se = 0.5 / sqrt(20).
        assert!((t.score_se() - 0.5 / 20f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn draws_count_half_and_elo_has_the_textbook_value() {
        let t = Tally {
            wins: 6,
            draws: 2,
            losses: 2,
        };
        assert!((t.score() - 0.7).abs() < 1e-12);
        // 75% is about +191 Elo.
        assert!((elo_of_score(0.75) - 190.85).abs() < 0.01);
        assert!(t.elo() > 0.0 && t.elo_error().unwrap() > 0.0);
    }

    #[test]
    fn a_clean_sweep_has_finite_elo_and_an_interval_inside_zero_one() {
        let t = Tally {
            wins: 8,
            draws: 0,
            losses: 0,
        };
        assert!(t.elo().is_finite() && t.elo() > 0.0);
        let (lo, hi) = t.score_ci95();
        assert!((0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi));
        assert_eq!(Tally::default().score(), 0.5);
    }

    fn tally(wins: u64, draws: u64, losses: u64) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn wilson_interval_does_not_collapse_at_all_wins() {
        // The 2-0 match: the normal approximation printed 100.0-100.0 %.
        let (lo, hi) = tally(2, 0, 0).score_ci95();
        assert_eq!(hi, 1.0);
        // Wilson at p = 1, n = 2: (1 + z²/4 - z·√(z²/16)) / (1 + z²/2) = 1 / (1 + z²/2) = 0.3424.
        assert!((lo - 0.3424).abs() < 1e-3, "{lo}");
        let s = MatchStats::of(
            &[Played {
                a_points: 1.0,
                a_first: true,
                margin: None,
                length: 1,
            }; 2],
            0,
            0.0,
        );
        assert_eq!(s.score_text(), "score 100.0% (95% 34.2–100.0%)");
        // The Elo interval is the same interval through the Elo curve: unbounded above.
        assert_eq!(s.elo_ci95[1], None);
        assert!(s.elo_ci95[0].unwrap() > -200.0 && s.elo_ci95[0].unwrap() < 0.0);
        assert_eq!(s.elo_error, None);
        assert!(s.elo_text().ends_with("to +inf)"), "{}", s.elo_text());
        let json = serde_json::to_value(&s).unwrap();
        assert!(json["elo_ci95"][1].is_null(), "{json}");
    }

    #[test]
    fn wilson_interval_at_no_wins_mirrors_all_wins() {
        let (lo, hi) = tally(0, 0, 2).score_ci95();
        let (lo2, hi2) = tally(2, 0, 0).score_ci95();
        assert_eq!(lo, 0.0);
        assert!((hi - (1.0 - lo2)).abs() < 1e-12 && hi2 == 1.0);
        let (elo_lo, elo_hi) = tally(0, 0, 2).elo_ci95();
        assert_eq!(elo_lo, f64::NEG_INFINITY);
        assert!(elo_hi.is_finite() && elo_hi > 0.0);
    }

    #[test]
    fn wilson_interval_at_one_win() {
        // 1 win in 10: Wilson gives 1.8%-40.4% (a textbook value); the normal approximation
        // would reach below 0.
        let t = tally(1, 0, 9);
        let (lo, hi) = t.score_ci95();
        assert!((lo - 0.0179).abs() < 1e-3, "{lo}");
        assert!((hi - 0.4042).abs() < 1e-3, "{hi}");
        let (elo_lo, elo_hi) = t.elo_ci95();
        assert!(elo_lo < t.elo() && t.elo() < elo_hi);
        assert!((t.elo_error().unwrap() - (elo_hi - elo_lo) / 2.0).abs() < 1e-9);
        // A single game: the interval is wide but inside [0, 1].
        let (lo, hi) = tally(1, 0, 0).score_ci95();
        assert!(lo > 0.0 && lo < 0.3 && hi == 1.0, "{lo} {hi}");
        assert_eq!(Tally::default().score_ci95(), (0.0, 1.0));
    }

    #[test]
    fn mean_and_standard_error() {
        let (m, se) = mean_se(&[1.0, 2.0, 3.0, 4.0]);
        assert!((m - 2.5).abs() < 1e-12);
        assert!((se - (5.0f64 / 3.0 / 4.0).sqrt()).abs() < 1e-12);
        assert_eq!(mean_se(&[]), (0.0, 0.0));
    }
}
