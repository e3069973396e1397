//! Rule sets as plain data: one [`Rules`] value with an orthogonal field per dimension of the
//! spec, the nine named presets, the `PRESET[,key=value…]` string form, JSON, and SGF `RU` names.

use crate::point::{Size, SizeError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Declares a keyword enum: its variants, their names in rules strings, and the key's help.
macro_rules! keyword_enum {
    ($(#[$m:meta])* $name:ident, $key:literal { $($(#[$vm:meta])* $var:ident = $word:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $word)] $var),+
        }

        impl $name {
            /// Every value, in the order the rules string documents them.
            pub const ALL: &'static [$name] = &[$($name::$var),+];
            /// The key naming this dimension in a rules string.
            pub const KEY: &'static str = $key;

            /// The value's name in a rules string.
            pub const fn word(self) -> &'static str {
                match self { $($name::$var => $word),+ }
            }

            /// Parses the value's name (exact, lower case), listing the accepted names on error.
            pub fn parse(s: &str) -> Result<$name, RulesError> {
                match s {
                    $($word => Ok($name::$var),)+
                    _ => Err(RulesError::BadValue {
                        key: $key.to_string(),
                        value: s.to_string(),
                        accepted: [$($word),+].join("|"),
                    }),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.word())
            }
        }
    };
}

keyword_enum!(
    /// A named rule set (the base of a rules string).
    Preset, "preset" {
        /// Korean rules: territory, verification play for disputes.
        Korean = "korean",
        /// Japanese 1989 rules: territory, art. 7 confirmation.
        Japanese = "japanese",
        /// Chinese rules: area, positional superko.
        Chinese = "chinese",
        /// American Go Association rules: pass stones, situational superko.
        Aga = "aga",
        /// Ing (SST) rules: fill counting, 8 komi, Black wins ties.
        Ing = "ing",
        /// New Zealand rules: area, situational superko, multi-stone suicide.
        Nz = "nz",
        /// Tromp-Taylor rules: every stone on the board is alive.
        TrompTaylor = "tromp-taylor",
        /// The JK rule of the book's ch. 12.
        Jk = "jk",
        /// Kang's "definition of baduk" (seed 001).
        Kang = "kang",
    }
);

keyword_enum!(
    /// What repetition a board play may not cause (`ko=`).
    Ko, "ko" {
        /// Only the immediate single-stone recapture is forbidden.
        Simple = "simple",
        /// A board play may not recreate any earlier whole-board position.
        Positional = "positional",
        /// … any earlier position with the same player to move.
        Situational = "situational",
        /// JK art. 3: repeating the position of two plays ago loses; a third occurrence ends
        /// the game, decided by captures between the repetitions.
        Jk = "jk",
    }
);

keyword_enum!(
    /// What happens to a long cycle under a simple-ko rule set (`cycles=`).
    Cycles, "cycles" {
        /// A repeated whole-board cycle (triple ko, eternal life, …) ends the game without result.
        NoResult = "no-result",
        /// Play simply goes on (a move limit or agreement ends it).
        PlayOn = "play-on",
    }
);

keyword_enum!(
    /// Whether a board play may leave its own chain without liberties (`suicide=`).
    Suicide, "suicide" {
        /// Never.
        Forbidden = "forbidden",
        /// Multi-stone suicide is allowed; single-stone suicide is forbidden.
        Multi = "multi",
        /// Any suicide is allowed (the chain is removed and given to the opponent).
        Allowed = "allowed",
        /// Allowed, but the player who does it loses at once (JK art. 2.4).
        Loses = "loses",
    }
);

keyword_enum!(
    /// What a pass costs and which passes are allowed (`passes=`).
    Passes, "passes" {
        /// A pass costs nothing.
        Plain = "plain",
        /// Each pass hands the opponent one prisoner (a pass stone).
        Stones = "stones",
        /// AGA: pass stones, and White must pass last (the game ends on White's pass).
        Aga = "aga",
        /// JK: normal and ending passes, pass stones, art. 2.7 prohibitions.
        Jk = "jk",
    }
);

keyword_enum!(
    /// Which sequences of moves end the game (`end=`); resignation and agreement always do.
    End, "end" {
        /// Two consecutive passes.
        TwoPasses = "two-passes",
        /// JK art. 4.3: the sequences `EE`, `ECCE`, `ECCCCE`.
        Jk = "jk",
    }
);

keyword_enum!(
    /// How dead stones are settled at the end (`life=`).
    Life, "life" {
        /// Every stone on the board is alive (Tromp-Taylor).
        AsIs = "as-is",
        /// Agreement; a dispute is resolved by resuming play (area rules).
        Resume = "resume",
        /// Agreement; a dispute is resolved by verification play, then the board is restored.
        Verify = "verify",
        /// Japanese 1989 art. 7 confirmation (hypothetical play; a retaken ko needs a pass first).
        Japanese = "japanese",
    }
);

keyword_enum!(
    /// How the score is counted (`scoring=`).
    Scoring, "scoring" {
        /// Empty points surrounded plus prisoners.
        Territory = "territory",
        /// Stones plus empty points surrounded.
        Area = "area",
        /// Ing fill counting.
        Ing = "ing",
        /// JK art. 5.
        Jk = "jk",
        /// Kang: territory minus own removed stones minus dame.
        Kang = "kang",
    }
);

keyword_enum!(
    /// What the empty points inside a seki give (`seki=`).
    Seki, "seki" {
        /// Nothing: they are not territory.
        None = "none",
        /// Counted to whoever reaches them.
        Counted = "counted",
        /// Each shared point is split half and half.
        Halves = "halves",
        /// Split in proportion to the adjacent stones of each colour.
        Proportional = "proportional",
    }
);

keyword_enum!(
    /// Who wins a game whose score is tied (`ties=`).
    Ties, "ties" {
        /// A tie is a draw.
        Draw = "draw",
        /// Black wins ties.
        Black = "black",
        /// White wins ties.
        White = "white",
    }
);

keyword_enum!(
    /// Compensation to White for N handicap stones (`handicap-bonus=`).
    HandicapBonus, "handicap-bonus" {
        /// None.
        Zero = "0",
        /// N points.
        N = "n",
        /// N − 1 points.
        NMinusOne = "n-1",
    }
);

keyword_enum!(
    /// How handicap stones are placed (`handicap=`).
    Placement, "handicap" {
        /// On fixed star points.
        Fixed = "fixed",
        /// Anywhere, chosen by Black.
        Free = "free",
    }
);

/// Komi, exact: any finite decimal number up to ±1000 (`6.5`, `7`, `3.75`, `6.3`, `-0.5`), kept
/// as a fraction in lowest terms (its denominator divides a power of ten), so that scores stay
/// exact whatever komi a GUI sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Komi {
    num: i64,
    den: i64,
}

/// The most decimal places a komi keeps (more are refused rather than rounded).
const KOMI_DECIMALS: u32 = 9;

/// The largest komi either way.
const KOMI_MAX: i64 = 1000;

/// The greatest common divisor of `a` and `b` (1 when both are 0): for fractions in lowest
/// terms.
pub(crate) fn gcd(mut a: i64, mut b: i64) -> i64 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

impl Komi {
    /// Komi of `halves` half points (`13` is 6.5).
    pub const fn from_halves(halves: i32) -> Komi {
        if halves % 2 == 0 {
            Komi {
                num: (halves / 2) as i64,
                den: 1,
            }
        } else {
            Komi {
                num: halves as i64,
                den: 2,
            }
        }
    }

    /// The komi as the fraction `num / den` in lowest terms (`den` positive).
    pub const fn fraction(self) -> (i64, i64) {
        (self.num, self.den)
    }

    /// The number of half points (`13` for 6.5), rounded toward zero when the komi is not a
    /// multiple of 0.5 (3.75 gives 7); [`Komi::fraction`] is exact.
    pub const fn halves(self) -> i32 {
        (self.num * 2 / self.den) as i32
    }

    /// Whether the komi is a whole number of half points (6.5, 7; not 3.75).
    pub const fn is_half_points(self) -> bool {
        self.den <= 2
    }

    /// Parses a decimal number: `6.5`, `7`, `-0.5`, `3.75`, `6.3`, `1e1`; exactly as written
    /// (no binary rounding), at most ±1000 and nine decimal places. `nan`, `inf` and `1e999`
    /// are refused.
    pub fn parse(s: &str) -> Result<Komi, RulesError> {
        let bad = || {
            RulesError::BadValue {
            key: "komi".into(),
            value: s.to_string(),
            accepted: format!(
                "a finite number from -{KOMI_MAX} to {KOMI_MAX} with at most {KOMI_DECIMALS} decimals, e.g. 6.5, 7, 3.75 or -0.5"
            ),
        }
        };
        Komi::parse_decimal(s.trim()).ok_or_else(bad)
    }

    fn parse_decimal(t: &str) -> Option<Komi> {
        let (neg, body) = match t.as_bytes().first()? {
            b'-' => (true, &t[1..]),
            b'+' => (false, &t[1..]),
            _ => (false, t),
        };
        let (mantissa, exp) = match body.find(['e', 'E']) {
            Some(k) => (&body[..k], body[k + 1..].parse::<i32>().ok()?),
            None => (body, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        {
            return None;
        }
        // The value is D × 10^scale, D being the digits without leading or trailing zeros.
        let all = format!("{int}{frac}");
        let no_tail = all.trim_end_matches('0');
        let digits = no_tail.trim_start_matches('0');
        if digits.is_empty() {
            return Some(Komi { num: 0, den: 1 });
        }
        let scale = exp as i64 - frac.len() as i64 + (all.len() - no_tail.len()) as i64;
        if digits.len() > 18 || !(-(KOMI_DECIMALS as i64)..=4).contains(&scale) {
            return None;
        }
        let d: i64 = digits.parse().ok()?;
        let (mut num, mut den) = if scale >= 0 {
            (d.checked_mul(10i64.pow(scale as u32))?, 1)
        } else {
            (d, 10i64.pow((-scale) as u32))
        };
        if num / den > KOMI_MAX || num / den == KOMI_MAX && num % den != 0 {
            return None;
        }
        let g = gcd(num, den);
        num /= g;
        den /= g;
        Some(Komi {
            num: if neg { -num } else { num },
            den,
        })
    }

    /// The komi from a float, as its shortest decimal form reads (JSON numbers: `6.5`, `3.75`);
    /// `None` when it is not finite or beyond ±1000.
    pub fn from_f64(v: f64) -> Option<Komi> {
        if !v.is_finite() {
            return None;
        }
        Komi::parse_decimal(&format!("{v}"))
    }

    /// The komi as a float (for the bot and for display; exact when it is a multiple of 0.5).
    pub fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl PartialOrd for Komi {
    fn partial_cmp(&self, o: &Komi) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Komi {
    fn cmp(&self, o: &Komi) -> std::cmp::Ordering {
        (self.num as i128 * o.den as i128).cmp(&(o.num as i128 * self.den as i128))
    }
}

impl fmt::Display for Komi {
    /// The exact decimal: `6.5`, `7`, `-0.5`, `3.75`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.num < 0 { "-" } else { "" };
        let a = self.num.unsigned_abs();
        let den = self.den as u64;
        let (whole, mut rest) = (a / den, a % den);
        write!(f, "{sign}{whole}")?;
        if rest == 0 {
            return Ok(());
        }
        f.write_str(".")?;
        // The denominator divides a power of ten: the expansion ends.
        for _ in 0..=KOMI_DECIMALS + 9 {
            if rest == 0 {
                break;
            }
            rest *= 10;
            write!(f, "{}", rest / den)?;
            rest %= den;
        }
        Ok(())
    }
}

impl Serialize for Komi {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_f64())
    }
}

impl<'de> Deserialize<'de> for Komi {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Komi, D::Error> {
        let v = f64::deserialize(d)?;
        Komi::from_f64(v).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "komi {v} is not a finite number from -{KOMI_MAX} to {KOMI_MAX}"
            ))
        })
    }
}

/// A move limit (seed 001 appendix 4): after `moves` moves the game is void, drawn, or decided
/// by komi alone (`move-limit=none|void:N|draw:N|komi:N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveLimit {
    /// No limit.
    None,
    /// The game is void after this many moves.
    Void(u32),
    /// The game is drawn after this many moves.
    Draw(u32),
    /// The game is decided by komi alone after this many moves.
    Komi(u32),
}

impl MoveLimit {
    fn parse(s: &str) -> Result<MoveLimit, RulesError> {
        let bad = || RulesError::BadValue {
            key: "move-limit".into(),
            value: s.to_string(),
            accepted: "none|void:N|draw:N|komi:N".into(),
        };
        if s == "none" {
            return Ok(MoveLimit::None);
        }
        let (kind, n) = s.split_once(':').ok_or_else(bad)?;
        let n: u32 = n.parse().map_err(|_| bad())?;
        match kind {
            "void" => Ok(MoveLimit::Void(n)),
            "draw" => Ok(MoveLimit::Draw(n)),
            "komi" => Ok(MoveLimit::Komi(n)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for MoveLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveLimit::None => f.write_str("none"),
            MoveLimit::Void(n) => write!(f, "void:{n}"),
            MoveLimit::Draw(n) => write!(f, "draw:{n}"),
            MoveLimit::Komi(n) => write!(f, "komi:{n}"),
        }
    }
}

/// A time control, in seconds (`time=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeControl {
    /// No clock.
    None,
    /// `absolute:MAIN`: one budget for the whole game.
    Absolute {
        /// Main time.
        main: u32,
    },
    /// `byo-yomi:MAIN:PERIODS:SECS`: main time, then periods of fixed length.
    ByoYomi {
        /// Main time.
        main: u32,
        /// Number of periods.
        periods: u32,
        /// Length of each period.
        period: u32,
    },
    /// `canadian:MAIN:STONES:SECS`: main time, then `stones` moves per `period`.
    Canadian {
        /// Main time.
        main: u32,
        /// Moves to make in each period.
        stones: u32,
        /// Length of each period.
        period: u32,
    },
    /// `fischer:MAIN:INC`: main time plus an increment per move.
    Fischer {
        /// Main time.
        main: u32,
        /// Seconds added after each move.
        increment: u32,
    },
    /// `ing:MAIN`: Ing extensions (each 35 minutes costs 2 points, at most 3; a 4th loses).
    Ing {
        /// Main time.
        main: u32,
    },
    /// `correspondence:DAYS:MAX_DAYS[:weekends]`: DAYS to start, DAYS more after each move, at
    /// most MAX_DAYS in the bank; `weekends`: each side's Saturday and Sunday do not count.
    Correspondence {
        /// Days at the start and added after each move.
        days: u32,
        /// The most days a side's bank holds.
        max_days: u32,
        /// Whether Saturdays and Sundays (in each player's time zone) are not counted.
        weekends: bool,
    },
}

impl TimeControl {
    fn parse(s: &str) -> Result<TimeControl, RulesError> {
        let bad = || {
            RulesError::BadValue {
            key: "time".into(),
            value: s.to_string(),
            accepted: "none|absolute:MAIN|byo-yomi:MAIN:PERIODS:SECS|canadian:MAIN:STONES:SECS|fischer:MAIN:INC|ing:MAIN (seconds)|correspondence:DAYS:MAX_DAYS[:weekends]".into(),
        }
        };
        let (s, weekends) = match s.strip_suffix(":weekends") {
            Some(rest) if rest.starts_with("correspondence:") => (rest, true),
            _ => (s, false),
        };
        let mut parts = s.split(':');
        let kind = parts.next().unwrap_or("");
        let nums: Vec<u32> = parts
            .map(|n| n.parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        match (kind, nums.as_slice()) {
            ("none", []) => Ok(TimeControl::None),
            ("absolute", &[main]) => Ok(TimeControl::Absolute { main }),
            ("byo-yomi", &[main, periods, period]) => Ok(TimeControl::ByoYomi {
                main,
                periods,
                period,
            }),
            ("canadian", &[main, stones, period]) => Ok(TimeControl::Canadian {
                main,
                stones,
                period,
            }),
            ("fischer", &[main, increment]) => Ok(TimeControl::Fischer { main, increment }),
            ("ing", &[main]) => Ok(TimeControl::Ing { main }),
            ("correspondence", &[days, max_days]) => Ok(TimeControl::Correspondence {
                days,
                max_days,
                weekends,
            }),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::None => f.write_str("none"),
            TimeControl::Absolute { main } => write!(f, "absolute:{main}"),
            TimeControl::ByoYomi {
                main,
                periods,
                period,
            } => write!(f, "byo-yomi:{main}:{periods}:{period}"),
            TimeControl::Canadian {
                main,
                stones,
                period,
            } => write!(f, "canadian:{main}:{stones}:{period}"),
            TimeControl::Fischer { main, increment } => write!(f, "fischer:{main}:{increment}"),
            TimeControl::Ing { main } => write!(f, "ing:{main}"),
            TimeControl::Correspondence {
                days,
                max_days,
                weekends,
            } => {
                write!(f, "correspondence:{days}:{max_days}")?;
                if weekends {
                    f.write_str(":weekends")?;
                }
                Ok(())
            }
        }
    }
}

/// A bad rules string, JSON or SGF `RU`: what was wrong and what is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// The preset name is unknown.
    UnknownPreset {
        /// The name given.
        given: String,
    },
    /// A `key=value` pair names no dimension.
    UnknownKey {
        /// The key given.
        key: String,
    },
    /// A part is not of the form `key=value`.
    NotKeyValue {
        /// The part given.
        part: String,
    },
    /// A value is not accepted for its key.
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// The accepted values, `|`-separated.
        accepted: String,
    },
    /// An SGF `RU` value maps to no rule set.
    UnknownSgfRules {
        /// The `RU` value.
        given: String,
    },
}

/// Every key a rules string accepts, in canonical order.
pub const KEYS: &[&str] = &[
    "size",
    "ko",
    "cycles",
    "suicide",
    "passes",
    "end",
    "life",
    "scoring",
    "seki",
    "komi",
    "ties",
    "handicap",
    "handicap-bonus",
    "move-limit",
    "time",
];

/// The SGF `RU` names accepted (case-insensitive; spaces, `-` and `_` ignored).
pub const SGF_RU_NAMES: &str =
    "Japanese, Chinese, AGA, NZ (New Zealand), Korean, Ing (GOE), Tromp-Taylor, JK, Kang";

fn preset_names() -> String {
    Preset::ALL
        .iter()
        .map(|p| p.word())
        .collect::<Vec<_>>()
        .join("|")
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::UnknownPreset { given } => write!(
                f,
                "unknown rules preset `{given}`; accepted presets: {}",
                preset_names()
            ),
            RulesError::UnknownKey { key } => write!(
                f,
                "unknown rules key `{key}`; accepted keys: {}",
                KEYS.join(", ")
            ),
            RulesError::NotKeyValue { part } => write!(
                f,
                "rules part `{part}` is not key=value; the form is PRESET[,key=value…] with PRESET one of {} and keys {}",
                preset_names(),
                KEYS.join(", ")
            ),
            RulesError::BadValue {
                key,
                value,
                accepted,
            } => write!(f, "bad value `{value}` for rules key `{key}`; accepted: {accepted}"),
            RulesError::UnknownSgfRules { given } => write!(
                f,
                "unknown SGF rules RU[{given}]; accepted names: {SGF_RU_NAMES} (or give --rules)"
            ),
        }
    }
}

impl std::error::Error for RulesError {}

impl From<SizeError> for RulesError {
    fn from(e: SizeError) -> RulesError {
        RulesError::BadValue {
            key: "size".into(),
            value: e.given,
            accepted: "N or MxN with each side from 2 to 25".into(),
        }
    }
}

/// A complete rule set: one orthogonal field per dimension of the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Rules {
    /// The preset this value started from (for names and canonical strings).
    pub preset: Preset,
    /// Board size.
    pub size: Size,
    /// Repetition rule.
    pub ko: Ko,
    /// Long cycles under simple ko: no result, or play on.
    pub cycles: Cycles,
    /// Suicide rule.
    pub suicide: Suicide,
    /// Pass rule.
    pub passes: Passes,
    /// Which move sequences end the game.
    pub end: End,
    /// How life and death is settled.
    pub life: Life,
    /// Counting method.
    pub scoring: Scoring,
    /// What seki points give.
    pub seki: Seki,
    /// Komi, in half points.
    pub komi: Komi,
    /// Who wins a tie.
    pub ties: Ties,
    /// Handicap placement.
    pub handicap: Placement,
    /// Compensation to White per handicap stone.
    pub handicap_bonus: HandicapBonus,
    /// Move limit.
    pub move_limit: MoveLimit,
    /// Time control.
    pub time: TimeControl,
}

impl Rules {
    /// The named preset exactly as the spec's preset table gives it (19×19).
    pub fn preset(p: Preset) -> Rules {
        use Preset as P;
        let base = Rules {
            preset: p,
            size: Size::nineteen(),
            ko: Ko::Simple,
            cycles: Cycles::NoResult,
            suicide: Suicide::Forbidden,
            passes: Passes::Plain,
            end: End::TwoPasses,
            life: Life::Resume,
            scoring: Scoring::Area,
            seki: Seki::Counted,
            komi: Komi::from_halves(15),
            ties: Ties::Draw,
            handicap: Placement::Free,
            handicap_bonus: HandicapBonus::Zero,
            move_limit: MoveLimit::None,
            time: TimeControl::None,
        };
        match p {
            P::Korean => Rules {
                scoring: Scoring::Territory,
                life: Life::Verify,
                seki: Seki::None,
                komi: Komi::from_halves(13),
                handicap: Placement::Fixed,
                ..base
            },
            P::Japanese => Rules {
                scoring: Scoring::Territory,
                life: Life::Japanese,
                seki: Seki::None,
                komi: Komi::from_halves(13),
                handicap: Placement::Fixed,
                ..base
            },
            P::Chinese => Rules {
                ko: Ko::Positional,
                cycles: Cycles::PlayOn,
                seki: Seki::Halves,
                handicap_bonus: HandicapBonus::N,
                ..base
            },
            P::Aga => Rules {
                ko: Ko::Situational,
                cycles: Cycles::PlayOn,
                passes: Passes::Aga,
                handicap: Placement::Fixed,
                handicap_bonus: HandicapBonus::NMinusOne,
                ..base
            },
            P::Ing => Rules {
                scoring: Scoring::Ing,
                ko: Ko::Positional,
                cycles: Cycles::PlayOn,
                suicide: Suicide::Multi,
                seki: Seki::Proportional,
                komi: Komi::from_halves(16),
                ties: Ties::Black,
                handicap_bonus: HandicapBonus::N,
                ..base
            },
            P::Nz => Rules {
                ko: Ko::Situational,
                cycles: Cycles::PlayOn,
                suicide: Suicide::Multi,
                komi: Komi::from_halves(14),
                ..base
            },
            P::TrompTaylor => Rules {
                ko: Ko::Positional,
                cycles: Cycles::PlayOn,
                suicide: Suicide::Multi,
                life: Life::AsIs,
                ..base
            },
            P::Jk => Rules {
                scoring: Scoring::Jk,
                ko: Ko::Jk,
                cycles: Cycles::PlayOn,
                suicide: Suicide::Loses,
                passes: Passes::Jk,
                end: End::Jk,
                komi: Komi::from_halves(0),
                ..base
            },
            P::Kang => Rules {
                scoring: Scoring::Kang,
                life: Life::Verify,
                komi: Komi::from_halves(0),
                ..base
            },
        }
    }

    /// Every preset, in the spec's order.
    pub fn presets() -> impl Iterator<Item = Rules> {
        Preset::ALL.iter().map(|&p| Rules::preset(p))
    }

    /// Parses `PRESET[,key=value…]`, e.g. `chinese,komi=6.5,ko=situational`.
    pub fn parse(s: &str) -> Result<Rules, RulesError> {
        let mut parts = s.split(',').map(str::trim);
        let head = parts.next().unwrap_or("");
        let preset = Preset::parse(&head.to_ascii_lowercase()).map_err(|_| {
            if head.contains('=') {
                RulesError::UnknownPreset {
                    given: format!("{head} (a rules string starts with a preset)"),
                }
            } else {
                RulesError::UnknownPreset {
                    given: head.to_string(),
                }
            }
        })?;
        let mut r = Rules::preset(preset);
        for part in parts {
            if part.is_empty() {
                continue;
            }
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| RulesError::NotKeyValue {
                    part: part.to_string(),
                })?;
            r.set(k.trim(), v.trim())?;
        }
        Ok(r)
    }

    /// Sets one dimension from its rules-string key and value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        match key {
            "size" => self.size = Size::parse(value)?,
            "ko" => self.ko = Ko::parse(value)?,
            "cycles" => self.cycles = Cycles::parse(value)?,
            "suicide" => self.suicide = Suicide::parse(value)?,
            "passes" => self.passes = Passes::parse(value)?,
            "end" => self.end = End::parse(value)?,
            "life" => self.life = Life::parse(value)?,
            "scoring" => self.scoring = Scoring::parse(value)?,
            "seki" => self.seki = Seki::parse(value)?,
            "komi" => self.komi = Komi::parse(value)?,
            "ties" => self.ties = Ties::parse(value)?,
            "handicap" => self.handicap = Placement::parse(value)?,
            "handicap-bonus" => self.handicap_bonus = HandicapBonus::parse(value)?,
            "move-limit" => self.move_limit = MoveLimit::parse(value)?,
            "time" => self.time = TimeControl::parse(value)?,
            _ => {
                return Err(RulesError::UnknownKey {
                    key: key.to_string(),
                })
            }
        }
        Ok(())
    }

    /// The value of one dimension as its rules-string word.
    pub fn get(&self, key: &str) -> Option<String> {
        Some(match key {
            "size" => self.size.to_string(),
            "ko" => self.ko.to_string(),
            "cycles" => self.cycles.to_string(),
            "suicide" => self.suicide.to_string(),
            "passes" => self.passes.to_string(),
            "end" => self.end.to_string(),
            "life" => self.life.to_string(),
            "scoring" => self.scoring.to_string(),
            "seki" => self.seki.to_string(),
            "komi" => self.komi.to_string(),
            "ties" => self.ties.to_string(),
            "handicap" => self.handicap.to_string(),
            "handicap-bonus" => self.handicap_bonus.to_string(),
            "move-limit" => self.move_limit.to_string(),
            "time" => self.time.to_string(),
            _ => return None,
        })
    }

    /// This rule set with another board size.
    pub fn with_size(self, size: Size) -> Rules {
        Rules { size, ..self }
    }

    /// The preset an SGF `RU` value names (case-insensitive; `NZ`/`New Zealand`, `Ing`/`GOE`, …).
    pub fn preset_from_sgf(ru: &str) -> Result<Preset, RulesError> {
        let norm: String = ru
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_' | '.'))
            .flat_map(char::to_lowercase)
            .collect();
        Ok(match norm.as_str() {
            "japanese" | "jp" | "japan" | "jpn" => Preset::Japanese,
            "chinese" | "cn" | "china" | "chn" => Preset::Chinese,
            "aga" => Preset::Aga,
            "nz" | "newzealand" => Preset::Nz,
            "korean" | "kr" | "korea" | "kor" => Preset::Korean,
            "ing" | "goe" | "sst" => Preset::Ing,
            "tromptaylor" | "tt" => Preset::TrompTaylor,
            "jk" => Preset::Jk,
            "kang" => Preset::Kang,
            _ => {
                return Err(RulesError::UnknownSgfRules {
                    given: ru.to_string(),
                })
            }
        })
    }

    /// The rule set an SGF `RU` value names, on `size`.
    pub fn from_sgf(ru: &str, size: Size) -> Result<Rules, RulesError> {
        Ok(Rules::preset(Rules::preset_from_sgf(ru)?).with_size(size))
    }

    /// The SGF `RU` name of this rule set's preset.
    pub fn sgf_name(&self) -> &'static str {
        match self.preset {
            Preset::Korean => "Korean",
            Preset::Japanese => "Japanese",
            Preset::Chinese => "Chinese",
            Preset::Aga => "AGA",
            Preset::Ing => "GOE",
            Preset::Nz => "NZ",
            Preset::TrompTaylor => "Tromp-Taylor",
            Preset::Jk => "JK",
            Preset::Kang => "Kang",
        }
    }

    /// The canonical rules string without the board size (`japanese`, `chinese,komi=6.5`): the
    /// name error messages use.
    pub fn name(&self) -> String {
        self.with_size(Rules::preset(self.preset).size).to_string()
    }

    /// Whether passes hand the opponent a prisoner.
    pub fn pass_stones(&self) -> bool {
        matches!(self.passes, Passes::Stones | Passes::Aga | Passes::Jk)
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::preset(Preset::Japanese)
    }
}

impl fmt::Display for Rules {
    /// The canonical string: the preset, then every field that differs from it, in `KEYS` order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.preset.word())?;
        let base = Rules::preset(self.preset);
        for k in KEYS {
            let (mine, theirs) = (self.get(k), base.get(k));
            if mine != theirs {
                if let Some(v) = mine {
                    write!(f, ",{k}={v}")?;
                }
            }
        }
        Ok(())
    }
}

impl FromStr for Rules {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Rules, RulesError> {
        Rules::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_preset_table_korean_japanese_territory_simple_ko_no_result() {
        for p in [Preset::Korean, Preset::Japanese] {
            let r = Rules::preset(p);
            assert_eq!(r.scoring, Scoring::Territory);
            assert_eq!((r.ko, r.cycles), (Ko::Simple, Cycles::NoResult));
            assert_eq!(r.suicide, Suicide::Forbidden);
            assert_eq!((r.passes, r.end), (Passes::Plain, End::TwoPasses));
            assert_eq!(r.seki, Seki::None);
            assert_eq!(r.komi, Komi::from_halves(13));
            assert_eq!(r.handicap_bonus, HandicapBonus::Zero);
        }
        assert_eq!(Rules::preset(Preset::Korean).life, Life::Verify);
        assert_eq!(Rules::preset(Preset::Japanese).life, Life::Japanese);
    }

    #[test]
    fn spec_preset_table_area_rule_sets() {
        let c = Rules::preset(Preset::Chinese);
        assert_eq!(
            (
                c.scoring,
                c.ko,
                c.suicide,
                c.life,
                c.seki,
                c.komi,
                c.handicap_bonus
            ),
            (
                Scoring::Area,
                Ko::Positional,
                Suicide::Forbidden,
                Life::Resume,
                Seki::Halves,
                Komi::from_halves(15),
                HandicapBonus::N
            )
        );
        let a = Rules::preset(Preset::Aga);
        assert_eq!(
            (a.scoring, a.ko, a.passes, a.seki, a.komi, a.handicap_bonus),
            (
                Scoring::Area,
                Ko::Situational,
                Passes::Aga,
                Seki::Counted,
                Komi::from_halves(15),
                HandicapBonus::NMinusOne
            )
        );
        let i = Rules::preset(Preset::Ing);
        assert_eq!(
            (
                i.scoring,
                i.ko,
                i.suicide,
                i.seki,
                i.komi,
                i.ties,
                i.handicap_bonus
            ),
            (
                Scoring::Ing,
                Ko::Positional,
                Suicide::Multi,
                Seki::Proportional,
                Komi::from_halves(16),
                Ties::Black,
                HandicapBonus::N
            )
        );
        let n = Rules::preset(Preset::Nz);
        assert_eq!(
            (n.scoring, n.ko, n.suicide, n.seki, n.komi, n.handicap_bonus),
            (
                Scoring::Area,
                Ko::Situational,
                Suicide::Multi,
                Seki::Counted,
                Komi::from_halves(14),
                HandicapBonus::Zero
            )
        );
        let t = Rules::preset(Preset::TrompTaylor);
        assert_eq!(
            (t.scoring, t.ko, t.suicide, t.life, t.seki, t.komi),
            (
                Scoring::Area,
                Ko::Positional,
                Suicide::Multi,
                Life::AsIs,
                Seki::Counted,
                Komi::from_halves(15)
            )
        );
    }

    #[test]
    fn spec_preset_table_jk_and_kang() {
        let j = Rules::preset(Preset::Jk);
        assert_eq!(
            (j.scoring, j.ko, j.suicide, j.passes, j.end, j.seki, j.komi),
            (
                Scoring::Jk,
                Ko::Jk,
                Suicide::Loses,
                Passes::Jk,
                End::Jk,
                Seki::Counted,
                Komi::from_halves(0)
            )
        );
        let k = Rules::preset(Preset::Kang);
        assert_eq!(
            (k.scoring, k.ko, k.cycles, k.suicide, k.life, k.seki, k.komi),
            (
                Scoring::Kang,
                Ko::Simple,
                Cycles::NoResult,
                Suicide::Forbidden,
                Life::Verify,
                Seki::Counted,
                Komi::from_halves(0)
            )
        );
    }

    #[test]
    fn rules_string_overrides_fields() {
        let r = Rules::parse("chinese,komi=6.5,ko=situational,suicide=allowed").unwrap();
        assert_eq!(r.preset, Preset::Chinese);
        assert_eq!(r.komi, Komi::from_halves(13));
        assert_eq!(r.ko, Ko::Situational);
        assert_eq!(r.suicide, Suicide::Allowed);
        assert_eq!(
            r.to_string(),
            "chinese,ko=situational,suicide=allowed,komi=6.5"
        );
        let r2 = Rules::parse(
            "jk,size=9x13,komi=-0.5,handicap-bonus=n-1,move-limit=void:300,time=byo-yomi:600:5:30",
        )
        .unwrap();
        assert_eq!(r2.size, Size::new(9, 13).unwrap());
        assert_eq!(r2.komi, Komi::from_halves(-1));
        assert_eq!(r2.komi.to_string(), "-0.5");
        assert_eq!(Rules::parse(&r2.to_string()).unwrap(), r2);
    }

    #[test]
    fn every_value_of_every_key_round_trips_through_the_string() {
        let keys: &[(&str, &[&str])] = &[
            ("ko", &["simple", "positional", "situational", "jk"]),
            ("cycles", &["no-result", "play-on"]),
            ("suicide", &["forbidden", "multi", "allowed", "loses"]),
            ("passes", &["plain", "stones", "aga", "jk"]),
            ("end", &["two-passes", "jk"]),
            ("life", &["as-is", "resume", "verify", "japanese"]),
            ("scoring", &["territory", "area", "ing", "jk", "kang"]),
            ("seki", &["none", "counted", "halves", "proportional"]),
            ("ties", &["draw", "black", "white"]),
            ("handicap", &["fixed", "free"]),
            ("handicap-bonus", &["0", "n", "n-1"]),
            ("komi", &["0", "0.5", "7", "-3.5"]),
            ("size", &["9", "13", "19", "2x25"]),
            ("move-limit", &["none", "void:1", "draw:250", "komi:400"]),
            (
                "time",
                &[
                    "none",
                    "absolute:60",
                    "byo-yomi:1:2:3",
                    "canadian:1:2:3",
                    "fischer:5:1",
                    "ing:3600",
                    "correspondence:3:7",
                    "correspondence:1:1:weekends",
                ],
            ),
        ];
        for p in Rules::presets() {
            for (k, vals) in keys {
                for v in *vals {
                    let s = format!("{},{k}={v}", p.preset);
                    let r = Rules::parse(&s).unwrap_or_else(|e| panic!("{s}: {e}"));
                    assert_eq!(r.get(k).as_deref(), Some(*v), "{s}");
                    assert_eq!(Rules::parse(&r.to_string()).unwrap(), r, "{s}");
                }
            }
        }
    }

    #[test]
    fn rules_string_errors_list_what_is_accepted() {
        let e = Rules::parse("go").unwrap_err().to_string();
        assert!(
            e.contains("korean|japanese|chinese|aga|ing|nz|tromp-taylor|jk|kang"),
            "{e}"
        );
        let e = Rules::parse("chinese,colour=red").unwrap_err().to_string();
        assert!(
            e.contains("accepted keys") && e.contains("handicap-bonus"),
            "{e}"
        );
        let e = Rules::parse("chinese,ko=super").unwrap_err().to_string();
        assert!(e.contains("simple|positional|situational|jk"), "{e}");
        let e = Rules::parse("chinese,komi=nan").unwrap_err().to_string();
        assert!(e.contains("finite number"), "{e}");
        let e = Rules::parse("chinese,size=26").unwrap_err().to_string();
        assert!(e.contains("2 to 25"), "{e}");
        assert!(matches!(
            Rules::parse("chinese,komi"),
            Err(RulesError::NotKeyValue { .. })
        ));
    }

    #[test]
    fn presets_display_as_their_names() {
        for p in Preset::ALL {
            assert_eq!(Rules::preset(*p).to_string(), p.word());
            assert_eq!(Rules::parse(p.word()).unwrap(), Rules::preset(*p));
        }
    }

    #[test]
    fn json_round_trips() {
        for r in Rules::presets() {
            let j = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<Rules>(&j).unwrap(), r, "{j}");
        }
        let r = Rules::parse("nz,size=7x9,komi=5.5,time=fischer:300:5,move-limit=draw:99").unwrap();
        let j = serde_json::to_string(&r).unwrap();
        assert!(j.contains("\"komi\":5.5"), "{j}");
        assert_eq!(serde_json::from_str::<Rules>(&j).unwrap(), r);
        let quarter = serde_json::from_str::<Rules>(&j.replace("5.5", "5.25")).unwrap();
        assert_eq!(quarter.komi.to_string(), "5.25");
        assert!(serde_json::from_str::<Rules>(&j.replace("5.5", "1e9")).is_err());
        assert!(serde_json::from_str::<Rules>(&j.replace("\"cols\":7", "\"cols\":30")).is_err());
    }

    #[test]
    fn sgf_ru_names_map_to_presets_case_insensitively() {
        for (ru, p) in [
            ("Japanese", Preset::Japanese),
            ("japanese", Preset::Japanese),
            ("Chinese", Preset::Chinese),
            ("AGA", Preset::Aga),
            ("NZ", Preset::Nz),
            ("New Zealand", Preset::Nz),
            ("Korean", Preset::Korean),
            ("Ing", Preset::Ing),
            ("GOE", Preset::Ing),
            ("Tromp-Taylor", Preset::TrompTaylor),
            ("tromp taylor", Preset::TrompTaylor),
            ("JK", Preset::Jk),
        ] {
            assert_eq!(Rules::preset_from_sgf(ru).unwrap(), p, "{ru}");
        }
        let e = Rules::preset_from_sgf("Martian").unwrap_err().to_string();
        assert!(e.contains("Japanese") && e.contains("Tromp-Taylor"), "{e}");
    }

    #[test]
    fn komi_keeps_exact_half_points() {
        assert_eq!(Komi::parse("6.5").unwrap(), Komi::from_halves(13));
        assert_eq!(Komi::parse("-7").unwrap(), Komi::from_halves(-14));
        assert_eq!(Komi::from_halves(15).to_string(), "7.5");
        assert_eq!(Komi::from_halves(0).to_string(), "0");
        assert_eq!(Komi::from_halves(-1).to_string(), "-0.5");
        assert!(Komi::parse("x").is_err());
        assert!(Komi::parse("inf").is_err());
    }

    #[test]
    fn any_finite_decimal_komi_is_kept_exactly() {
        for (text, shown, frac) in [
            ("3.75", "3.75", (15, 4)),
            ("6.3", "6.3", (63, 10)),
            ("-0.125", "-0.125", (-1, 8)),
            ("+7.50", "7.5", (15, 2)),
            ("0.000000001", "0.000000001", (1, 1_000_000_000)),
            (".5", "0.5", (1, 2)),
            ("1e1", "10", (10, 1)),
            ("65e-1", "6.5", (13, 2)),
            ("-0", "0", (0, 1)),
            ("1000", "1000", (1000, 1)),
            ("-1000", "-1000", (-1000, 1)),
        ] {
            let k = Komi::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(
                (k.to_string().as_str(), k.fraction()),
                (shown, frac),
                "{text}"
            );
            assert_eq!(Komi::parse(&k.to_string()).unwrap(), k);
        }
        for bad in [
            "nan",
            "NaN",
            "inf",
            "-inf",
            "1e999",
            "1e-999",
            "1000.5",
            "-1001",
            "",
            ".",
            "-",
            "e5",
            "6.3e",
            "0x10",
            "1_0",
            "6,5",
            "0.0000000001",
            "+-1",
        ] {
            assert!(Komi::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Komi::from_f64(3.75), Komi::parse("3.75").ok());
        assert_eq!(Komi::from_f64(6.3), Komi::parse("6.3").ok());
        assert_eq!(Komi::from_f64(f64::NAN), None);
        assert!(Komi::parse("3.75").unwrap() < Komi::parse("3.8").unwrap());
        assert!(!Komi::parse("6.3").unwrap().is_half_points());
        assert_eq!(Komi::parse("3.75").unwrap().halves(), 7);
        assert_eq!(Komi::parse("-3.75").unwrap().halves(), -7);
        assert_eq!(Komi::parse("6.5").unwrap().halves(), 13);
        assert!(Komi::parse("-7").unwrap().is_half_points());
    }
}
