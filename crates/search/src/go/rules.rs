//! The rules as the bot needs them: the repetition, suicide, scoring and komi fields of a rule
//! set, plus the bot's own options (resignation). Filled from the rules library's `Rules` value.

use super::board::SuicidePolicy;

/// Which repetitions a board play may not create.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KoRule {
    /// Only the immediate single-stone recapture is forbidden; longer cycles are legal.
    Simple,
    /// No board play may recreate any earlier whole-board position.
    Positional,
    /// No board play may recreate an earlier position with the same player to move.
    Situational,
    /// JK art. 3: recreating the position of two plays ago loses (the bot never chooses it);
    /// longer cycles are legal.
    Jk,
}

/// How the final position is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoringKind {
    /// Stones plus surrounded empty points.
    Area,
    /// Surrounded empty points plus prisoners.
    Territory,
}

/// Who wins a game whose score is exactly zero after komi.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieBreak {
    /// A tie is a draw.
    Draw,
    /// Black wins ties.
    Black,
    /// White wins ties.
    White,
}

/// The rule fields the search obeys, and what a finished position is worth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BotRules {
    /// Repetition rule.
    pub ko: KoRule,
    /// Suicide rule (a rule set where suicide loses maps to `Forbidden`).
    pub suicide: SuicidePolicy,
    /// Counting method.
    pub scoring: ScoringKind,
    /// Komi given to White.
    pub komi: f32,
    /// Tie-break.
    pub ties: TieBreak,
    /// Two passes end the game with every stone on the board alive (Tromp-Taylor's as-is);
    /// otherwise dead stones are settled by agreement or by playing on, and the bot reads the
    /// end of the game with playouts.
    pub two_passes_score_as_is: bool,
    /// Whether the rule set's scoring makes resigning meaningful (false under `jk`).
    pub resign_allowed: bool,
}

impl BotRules {
    /// Chinese-like defaults: area scoring, positional superko, no suicide, komi 7.5.
    pub fn area(komi: f32) -> BotRules {
        BotRules {
            ko: KoRule::Positional,
            suicide: SuicidePolicy::Forbidden,
            scoring: ScoringKind::Area,
            komi,
            ties: TieBreak::Draw,
            two_passes_score_as_is: true,
            resign_allowed: true,
        }
    }

    /// Japanese-like defaults: territory scoring, simple ko, no suicide.
    pub fn territory(komi: f32) -> BotRules {
        BotRules {
            ko: KoRule::Simple,
            suicide: SuicidePolicy::Forbidden,
            scoring: ScoringKind::Territory,
            komi,
            ties: TieBreak::Draw,
            two_passes_score_as_is: false,
            resign_allowed: true,
        }
    }

    /// The result for Black (1 win, 0.5 draw, 0 loss) of a Black-minus-White score before komi.
    #[inline]
    pub fn black_result(&self, raw: f32) -> f32 {
        let s = raw - self.komi;
        if s > 0.0 {
            1.0
        } else if s < 0.0 {
            0.0
        } else {
            match self.ties {
                TieBreak::Draw => 0.5,
                TieBreak::Black => 1.0,
                TieBreak::White => 0.0,
            }
        }
    }
}

impl From<&baduk_go::Rules> for BotRules {
    /// The fields the search obeys, read from the rules library's rule set.
    fn from(r: &baduk_go::Rules) -> BotRules {
        use baduk_go::rules::{Ko, Life, Scoring, Suicide, Ties};
        BotRules {
            ko: match r.ko {
                Ko::Simple => KoRule::Simple,
                Ko::Positional => KoRule::Positional,
                Ko::Situational => KoRule::Situational,
                Ko::Jk => KoRule::Jk,
            },
            suicide: match r.suicide {
                Suicide::Forbidden | Suicide::Loses => SuicidePolicy::Forbidden,
                Suicide::Multi => SuicidePolicy::MultiStone,
                Suicide::Allowed => SuicidePolicy::Allowed,
            },
            scoring: match r.scoring {
                Scoring::Territory | Scoring::Kang => ScoringKind::Territory,
                Scoring::Area | Scoring::Ing | Scoring::Jk => ScoringKind::Area,
            },
            komi: r.komi.as_f64() as f32,
            ties: match r.ties {
                Ties::Draw => TieBreak::Draw,
                Ties::Black => TieBreak::Black,
                Ties::White => TieBreak::White,
            },
            two_passes_score_as_is: r.life == Life::AsIs,
            resign_allowed: r.scoring != Scoring::Jk,
        }
    }
}
