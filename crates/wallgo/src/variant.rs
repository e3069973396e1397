//! The variant: every rule choice of the spec as one plain value with orthogonal fields.

use std::fmt;
use std::str::FromStr;

/// One of the two players: A (red) and B (blue).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Player {
    /// Player A (red), fixed pieces on B2 and F6.
    A,
    /// Player B (blue), fixed pieces on F2 and B6.
    B,
}

impl Player {
    /// The opponent.
    #[inline]
    pub const fn other(self) -> Player {
        match self {
            Player::A => Player::B,
            Player::B => Player::A,
        }
    }

    /// 0 for A, 1 for B.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The letter `A` or `B`.
    pub const fn letter(self) -> char {
        match self {
            Player::A => 'A',
            Player::B => 'B',
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl FromStr for Player {
    type Err = VariantError;
    fn from_str(s: &str) -> Result<Player, VariantError> {
        match s {
            "A" | "a" => Ok(Player::A),
            "B" | "b" => Ok(Player::B),
            _ => Err(VariantError(format!("'{s}' is not a player (A or B)"))),
        }
    }
}

/// Order of the four free placements.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Placement {
    /// A, B, A, B; B (who placed last) makes the first turn. The source's order.
    #[default]
    Abab,
    /// A, B, B, A (snake); A (who placed last) makes the first turn.
    Abba,
}

impl Placement {
    /// Who places the `i`-th free piece (`i` in `0..4`).
    #[inline]
    pub const fn placer(self, i: u8) -> Player {
        match (self, i) {
            (_, 0) => Player::A,
            (_, 1) => Player::B,
            (Placement::Abab, 2) => Player::A,
            (Placement::Abab, _) => Player::B,
            (Placement::Abba, 2) => Player::B,
            (Placement::Abba, _) => Player::A,
        }
    }

    /// Who makes the first turn: the player who placed last.
    pub const fn first_mover(self) -> Player {
        self.placer(3)
    }

    /// `ABAB` or `ABBA`.
    pub const fn name(self) -> &'static str {
        match self {
            Placement::Abab => "ABAB",
            Placement::Abba => "ABBA",
        }
    }
}

/// When a piece may end its turn on its start cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Stay {
    /// Only by going out one step and back (needs an empty neighbour behind an open edge), or when
    /// the piece cannot step at all. The source's rule.
    #[default]
    OutAndBack,
    /// A free 0-step stay. Note: it allows exactly what `OutAndBack` allows, because a piece that
    /// can step at all can always step out and back; the field exists so records of such
    /// versions read.
    Free,
    /// Only a piece that cannot step stays (no out-and-back). Not in the source; for versions
    /// that forbid the return.
    StuckOnly,
}

impl Stay {
    /// `out-and-back`, `free` or `stuck-only`.
    pub const fn name(self) -> &'static str {
        match self {
            Stay::OutAndBack => "out-and-back",
            Stay::Free => "free",
            Stay::StuckOnly => "stuck-only",
        }
    }
}

/// How equal scores are decided.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum TieBreak {
    /// Equal scores draw. The source's rule.
    #[default]
    None,
    /// The player with the larger single pure region wins; equal again draws.
    LargestRegion,
}

impl TieBreak {
    /// `none` or `largest-region`.
    pub const fn name(self) -> &'static str {
        match self {
            TieBreak::None => "none",
            TieBreak::LargestRegion => "largest-region",
        }
    }
}

/// A malformed variant description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantError(pub String);

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for VariantError {}

/// Every rule choice of the game; `Variant::default()` is the source's rules.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Variant {
    /// Order of the free placements (and so who moves first).
    pub placement: Placement,
    /// When a piece may end its turn where it started.
    pub stay: Stay,
    /// How equal scores are decided.
    pub tiebreak: TieBreak,
    /// Seconds per turn for move and wall together (60 in the source); clocks are not kept here.
    pub seconds_per_turn: u32,
}

impl Default for Variant {
    fn default() -> Variant {
        Variant {
            placement: Placement::Abab,
            stay: Stay::OutAndBack,
            tiebreak: TieBreak::None,
            seconds_per_turn: 60,
        }
    }
}

impl fmt::Display for Variant {
    /// The record form: `placement=ABAB stay=out-and-back tiebreak=none` (plus `seconds=N` when
    /// not 60).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "placement={} stay={} tiebreak={}",
            self.placement.name(),
            self.stay.name(),
            self.tiebreak.name()
        )?;
        if self.seconds_per_turn != 60 {
            write!(f, " seconds={}", self.seconds_per_turn)?;
        }
        Ok(())
    }
}

impl FromStr for Variant {
    type Err = VariantError;
    /// Reads `key=value` fields separated by spaces; missing fields keep their defaults.
    fn from_str(s: &str) -> Result<Variant, VariantError> {
        let mut v = Variant::default();
        for field in s.split_whitespace() {
            let (k, val) = field
                .split_once('=')
                .ok_or_else(|| VariantError(format!("'{field}' is not key=value")))?;
            let bad = || VariantError(format!("'{val}' is not a value of {k}"));
            match k {
                "placement" => {
                    v.placement = match val {
                        "ABAB" | "abab" => Placement::Abab,
                        "ABBA" | "abba" => Placement::Abba,
                        _ => return Err(bad()),
                    }
                }
                "stay" => {
                    v.stay = match val {
                        "out-and-back" => Stay::OutAndBack,
                        "free" => Stay::Free,
                        "stuck-only" => Stay::StuckOnly,
                        _ => return Err(bad()),
                    }
                }
                "tiebreak" => {
                    v.tiebreak = match val {
                        "none" => TieBreak::None,
                        "largest-region" => TieBreak::LargestRegion,
                        _ => return Err(bad()),
                    }
                }
                "seconds" => {
                    v.seconds_per_turn = val.parse().map_err(|_| bad())?;
                }
                _ => return Err(VariantError(format!("unknown variant field '{k}'"))),
            }
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wallgo_spec_default_variant_is_abab_out_and_back_no_tiebreak_60s() {
        let v = Variant::default();
        assert_eq!(
            v.to_string(),
            "placement=ABAB stay=out-and-back tiebreak=none"
        );
        assert_eq!(v.seconds_per_turn, 60);
        assert_eq!(v.placement.first_mover(), Player::B);
        assert_eq!(Placement::Abba.first_mover(), Player::A);
    }

    #[test]
    fn variant_round_trips_through_text() {
        let v = Variant {
            placement: Placement::Abba,
            stay: Stay::Free,
            tiebreak: TieBreak::LargestRegion,
            seconds_per_turn: 30,
        };
        assert_eq!(v.to_string().parse::<Variant>().unwrap(), v);
        assert!("placement=XYZ".parse::<Variant>().is_err());
        assert!("colour=red".parse::<Variant>().is_err());
        assert!("placement".parse::<Variant>().is_err());
    }
}
