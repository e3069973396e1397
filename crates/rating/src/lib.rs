//! Player ratings: Glicko-2 as Mark Glickman's "Example of the Glicko-2 system" (2012) defines
//! it — a rating, its deviation and a volatility, updated once a rating period from the games of
//! that period — and the reading of a Go rating as a kyu/dan rank.
//!
//! The server updates a player after every rated game (a rating period of one game), so a new
//! player's deviation falls quickly and a returning one's grows back ([`Rating::idle`]).

/// The Glicko-2 scale factor between the Glicko scale (1500 ± 350) and the internal one.
pub const SCALE: f64 = 173.7178;

/// A player's rating on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating (a new player: 1500).
    pub rating: f64,
    /// Its deviation: how unsure the rating is (a new player: 350).
    pub deviation: f64,
    /// The volatility: how erratic the player's results are (a new player: 0.06).
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Rating {
        Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

/// The system's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// τ, which limits how fast the volatility changes (Glickman suggests 0.3 to 1.2).
    pub tau: f64,
    /// The largest deviation (a player never becomes less known than a new one).
    pub max_deviation: f64,
    /// The smallest deviation (a rating never becomes certain).
    pub min_deviation: f64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            tau: 0.5,
            max_deviation: 350.0,
            min_deviation: 30.0,
        }
    }
}

/// One game of a rating period: the opponent as they were before the period, and the score
/// (1 a win, 0.5 a draw, 0 a loss).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    /// The opponent's rating before the period.
    pub opponent: Rating,
    /// 1.0, 0.5 or 0.0.
    pub score: f64,
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

impl Rating {
    /// μ and φ, the rating and deviation on the internal scale.
    fn internal(&self) -> (f64, f64) {
        ((self.rating - 1500.0) / SCALE, self.deviation / SCALE)
    }

    /// The probability this player beats `other` (Glicko-2's expected score, both deviations
    /// counted).
    pub fn expected_score(&self, other: &Rating) -> f64 {
        let (mu, phi) = self.internal();
        let (mu_j, phi_j) = other.internal();
        expected(mu, mu_j, (phi * phi + phi_j * phi_j).sqrt())
    }

    /// The rating after a period without games: the deviation grows (step 6 alone).
    pub fn idle(&self, cfg: &Config) -> Rating {
        let (_, phi) = self.internal();
        let phi_star = (phi * phi + self.volatility * self.volatility).sqrt();
        Rating {
            deviation: (phi_star * SCALE).clamp(cfg.min_deviation, cfg.max_deviation),
            ..*self
        }
    }

    /// The rating after a period with `games` (Glickman's steps 2–8; none: [`Rating::idle`]).
    pub fn update(&self, games: &[Game], cfg: &Config) -> Rating {
        if games.is_empty() {
            return self.idle(cfg);
        }
        let (mu, phi) = self.internal();
        let sigma = self.volatility;
        // Step 3: the estimated variance v; step 4: the improvement Δ.
        let mut v_inv = 0.0;
        let mut delta_sum = 0.0;
        for game in games {
            let (mu_j, phi_j) = game.opponent.internal();
            let e = expected(mu, mu_j, phi_j);
            let gj = g(phi_j);
            v_inv += gj * gj * e * (1.0 - e);
            delta_sum += gj * (game.score - e);
        }
        let v = 1.0 / v_inv;
        let delta = v * delta_sum;
        // Step 5: the new volatility, by the Illinois algorithm.
        let a = (sigma * sigma).ln();
        let tau = cfg.tau;
        let f = |x: f64| {
            let ex = x.exp();
            let d = phi * phi + v + ex;
            ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
        };
        let mut big_a = a;
        let mut big_b = if delta * delta > phi * phi + v {
            (delta * delta - phi * phi - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * tau) < 0.0 {
                k += 1.0;
            }
            a - k * tau
        };
        let (mut fa, mut fb) = (f(big_a), f(big_b));
        let mut steps = 0;
        while (big_b - big_a).abs() > 1e-6 && steps < 200 {
            let c = big_a + (big_a - big_b) * fa / (fb - fa);
            let fc = f(c);
            if fc * fb <= 0.0 {
                big_a = big_b;
                fa = fb;
            } else {
                fa /= 2.0;
            }
            big_b = c;
            fb = fc;
            steps += 1;
        }
        let sigma_new = (big_a / 2.0).exp();
        // Steps 6–7: the new deviation and rating.
        let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * delta_sum;
        // Step 8: back to the Glicko scale.
        Rating {
            rating: SCALE * mu_new + 1500.0,
            deviation: (SCALE * phi_new).clamp(cfg.min_deviation, cfg.max_deviation),
            volatility: sigma_new,
        }
    }
}

/// A Go rank read from a rating: 100 points a rank, 2100 is 1 dan and 2000 is 1 kyu (the
/// European Go Federation's scale: a new player at 1500 reads as 6 kyu). Ranks stop at 30 kyu
/// and 9 dan.
pub fn go_rank(rating: f64) -> String {
    if rating >= 2100.0 {
        let d = (((rating - 2100.0) / 100.0).floor() as i64 + 1).min(9);
        format!("{d}d")
    } else {
        let k = (((2100.0 - rating) / 100.0).ceil() as i64).clamp(1, 30);
        format!("{k}k")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    #[test]
    fn glickmans_worked_example_to_four_decimals() {
        // "Example of the Glicko-2 system", section "Example calculation": a player of 1500
        // (RD 200) beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300), τ 0.5.
        let player = r(1500.0, 200.0);
        let games = [
            Game {
                opponent: r(1400.0, 30.0),
                score: 1.0,
            },
            Game {
                opponent: r(1550.0, 100.0),
                score: 0.0,
            },
            Game {
                opponent: r(1700.0, 300.0),
                score: 0.0,
            },
        ];
        let cfg = Config {
            min_deviation: 0.0,
            ..Config::default()
        };
        let out = player.update(&games, &cfg);
        let (mu, phi) = out.internal();
        assert!((mu - -0.2069).abs() < 5e-5, "μ' {mu}");
        assert!((phi - 0.8722).abs() < 5e-5, "φ' {phi}");
        // The paper prints σ' = 0.05999 (the value is 0.0599960…).
        assert!(
            (out.volatility - 0.05999).abs() < 1e-5,
            "σ' {}",
            out.volatility
        );
        assert!((out.rating - 1464.06).abs() < 0.01, "r' {}", out.rating);
        assert!(
            (out.deviation - 151.52).abs() < 0.01,
            "RD' {}",
            out.deviation
        );
    }

    #[test]
    fn idle_periods_widen_the_deviation_up_to_a_new_players() {
        let cfg = Config::default();
        let mut p = r(1800.0, 50.0);
        for _ in 0..10_000 {
            p = p.idle(&cfg);
        }
        assert_eq!(p.deviation, 350.0);
        assert_eq!(p.rating, 1800.0);
    }

    #[test]
    fn ranks_read_on_the_egf_scale() {
        assert_eq!(go_rank(1500.0), "6k");
        assert_eq!(go_rank(2099.0), "1k");
        assert_eq!(go_rank(2000.0), "1k");
        assert_eq!(go_rank(1999.0), "2k");
        assert_eq!(go_rank(2100.0), "1d");
        assert_eq!(go_rank(2750.0), "7d");
        assert_eq!(go_rank(5000.0), "9d");
        assert_eq!(go_rank(0.0), "21k");
        assert_eq!(go_rank(-2000.0), "30k");
    }

    proptest::proptest! {
        #[test]
        fn a_win_never_lowers_and_a_loss_never_raises_the_rating(
            a in 500.0f64..2900.0, ad in 30.0f64..350.0,
            b in 500.0f64..2900.0, bd in 30.0f64..350.0,
        ) {
            let cfg = Config::default();
            let me = r(a, ad);
            let opp = r(b, bd);
            let won = me.update(&[Game { opponent: opp, score: 1.0 }], &cfg);
            let lost = me.update(&[Game { opponent: opp, score: 0.0 }], &cfg);
            proptest::prop_assert!(won.rating >= me.rating);
            proptest::prop_assert!(lost.rating <= me.rating);
            proptest::prop_assert!(won.deviation <= 350.0 && won.deviation >= 30.0);
            proptest::prop_assert!(won.volatility.is_finite() && won.volatility > 0.0);
            // The expected scores of a pair add up to 1.
            let e = me.expected_score(&opp) + opp.expected_score(&me);
            proptest::prop_assert!((e - 1.0).abs() < 1e-9);
        }
    }
}
