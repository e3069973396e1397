//! Match statistics shared by every game: score with a 95% interval, the Elo difference with its
//! error, and means with standard errors. Nothing here knows a game's rules.

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

    /// Standard error of the score per game (from the observed win/draw/loss spread).
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

    /// 95% interval of the score, clamped to [0, 1].
    pub fn score_ci95(&self) -> (f64, f64) {
        let (s, h) = (self.score(), Z95 * self.score_se());
        ((s - h).max(0.0), (s + h).min(1.0))
    }

    /// Elo difference implied by the score (clamped away from 0 and 1 by half a game).
    pub fn elo(&self) -> f64 {
        elo_of_score(self.clamped_score())
    }

    /// Half-width of the 95% interval of [`Tally::elo`] (by the delta method).
    pub fn elo_error(&self) -> f64 {
        let s = self.clamped_score();
        let se = self.score_se().max(0.5 / (self.games().max(1) as f64));
        Z95 * se * 400.0 / (std::f64::consts::LN_10 * s * (1.0 - s))
    }

    fn clamped_score(&self) -> f64 {
        let n = self.games().max(1) as f64;
        self.score().clamp(0.5 / n, 1.0 - 0.5 / n)
    }
}

/// Elo difference of a player who scores `s` per game (0 < s < 1).
pub fn elo_of_score(s: f64) -> f64 {
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
        assert!(t.elo() > 0.0 && t.elo_error() > 0.0);
    }

    #[test]
    fn a_clean_sweep_has_finite_elo_and_an_interval_inside_zero_one() {
        let t = Tally {
            wins: 8,
            draws: 0,
            losses: 0,
        };
        assert!(t.elo().is_finite() && t.elo() > 0.0);
        assert!(t.elo_error().is_finite());
        let (lo, hi) = t.score_ci95();
        assert!((0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi));
        assert_eq!(Tally::default().score(), 0.5);
    }

    #[test]
    fn mean_and_standard_error() {
        let (m, se) = mean_se(&[1.0, 2.0, 3.0, 4.0]);
        assert!((m - 2.5).abs() < 1e-12);
        assert!((se - (5.0f64 / 3.0 / 4.0).sqrt()).abs() < 1e-12);
        assert_eq!(mean_se(&[]), (0.0, 0.0));
    }
}
