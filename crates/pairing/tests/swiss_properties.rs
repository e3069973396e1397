//! Property tests of Swiss and McMahon pairing over random events (2–60 players, random
//! results, seeded), with brute-force checks on fields of up to 10 players.
//!
//! Checked after every round:
//! - every player is in exactly one game or has the bye; a bye only with an odd field;
//! - nobody gets a second bye while someone has none;
//! - a rematch only when no rematch-free pairing (byes to players without one) exists;
//! - a colour balance leaving −1…1 only when no rematch-free pairing keeping every balance in
//!   −1…1 exists;
//! - score groups: taking the boards in order, the higher-placed player of a board that
//!   crosses score groups had no same-group opponent left with whom the rest could still be
//!   paired at the constraint level used (brute force);
//! - the bye went to the first player, by lowest score, then lowest rank, then lowest rating,
//!   with whom the rest could be paired at that level;
//! - on larger even fields with at most n/2 − 1 rounds played (a rematch-free pairing always
//!   exists then, by Dirac's theorem), no rematch at all.
//!
//! And at the end: the tie-breaks equal a recomputation from the printed crosstable.

use baduk_pairing::{
    HandicapRule, History, McMahon, Outcome, Player, PlayerId, Rank, RoundPairings, Swiss,
};
use baduk_rng::Rng;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy)]
enum Format {
    Swiss(Swiss),
    McMahon(McMahon),
}

impl Format {
    fn pair(&self, players: &[Player], h: &History) -> RoundPairings {
        match self {
            Format::Swiss(s) => s.pair(players, h),
            Format::McMahon(m) => m.pair(players, h),
        }
    }
    fn score(&self, p: &Player, h: &History) -> f64 {
        match self {
            Format::Swiss(s) => s.score(p.id, h),
            Format::McMahon(m) => m.score(p, h),
        }
    }
    fn handicap(&self, a: f64, b: f64) -> u8 {
        match self {
            Format::Swiss(_) => 0,
            Format::McMahon(m) => m.handicap(a, b).0,
        }
    }
    fn start(&self, p: &Player) -> f64 {
        match self {
            Format::Swiss(_) => 0.0,
            Format::McMahon(m) => m.start_score(p.rank),
        }
    }
    fn bye_points(&self) -> f64 {
        match self {
            Format::Swiss(s) => s.bye_points,
            Format::McMahon(m) => m.bye_points,
        }
    }
}

fn field(n: usize, rng: &mut Rng) -> Vec<Player> {
    (0..n)
        .map(|i| Player {
            id: 100 + i as PlayerId,
            rating: 800.0 + rng.below(1800) as f64,
            rank: Rank::from_value(rng.below(39) as i32).unwrap(),
        })
        .collect()
}

fn random_outcome(rng: &mut Rng) -> Outcome {
    match rng.below(20) {
        0 => Outcome::Jigo,
        1 => Outcome::Unplayed,
        x if x < 11 => Outcome::BlackWins,
        _ => Outcome::WhiteWins,
    }
}

/// The constraints of one level, as the crate documents them.
struct Level<'a> {
    level: usize,
    history: &'a History,
    score: &'a HashMap<PlayerId, f64>,
    format: Format,
}

impl Level<'_> {
    fn colour_ok(&self, a: PlayerId, b: PlayerId) -> bool {
        let (ba, bb) = (
            self.history.colour_balance(a),
            self.history.colour_balance(b),
        );
        self.format.handicap(self.score[&a], self.score[&b]) > 0 || ba == 0 || bb == 0 || ba != bb
    }
    fn edge(&self, a: PlayerId, b: PlayerId) -> bool {
        (self.level >= 2 || !self.history.met(a, b)) && (self.level >= 1 || self.colour_ok(a, b))
    }
    fn bye_ok(&self, a: PlayerId) -> bool {
        self.level >= 3 || self.history.byes(a) == 0
    }
}

/// Whether `left` (all even-sized after the bye) can be perfectly paired under `lv`.
fn pairable(left: &[PlayerId], lv: &Level) -> bool {
    if left.is_empty() {
        return true;
    }
    let first = left[0];
    left[1..].iter().any(|&b| {
        lv.edge(first, b) && {
            let rest: Vec<PlayerId> = left[1..].iter().copied().filter(|&x| x != b).collect();
            pairable(&rest, lv)
        }
    })
}

/// Whether the field, with a bye when odd, can be paired under `lv`.
fn field_pairable(ids: &[PlayerId], lv: &Level) -> bool {
    if ids.len().is_multiple_of(2) {
        return pairable(ids, lv);
    }
    ids.iter().any(|&b| {
        lv.bye_ok(b) && {
            let rest: Vec<PlayerId> = ids.iter().copied().filter(|&x| x != b).collect();
            pairable(&rest, lv)
        }
    })
}

fn check_round(
    players: &[Player],
    history: &History,
    round: &RoundPairings,
    format: Format,
) -> Result<(), TestCaseError> {
    let n = players.len();
    let ids: Vec<PlayerId> = players.iter().map(|p| p.id).collect();
    let mut seen = HashSet::new();
    for p in &round.pairings {
        prop_assert!(seen.insert(p.black) && seen.insert(p.white), "paired twice");
    }
    if let Some(b) = round.bye {
        prop_assert!(seen.insert(b), "bye also paired");
    }
    prop_assert_eq!(seen.len(), n, "someone unpaired");
    prop_assert_eq!(round.bye.is_some(), n % 2 == 1);
    if let Some(b) = round.bye {
        if history.byes(b) > 0 {
            prop_assert!(ids.iter().all(|&p| history.byes(p) > 0), "second bye");
        }
    }
    let score: HashMap<PlayerId, f64> = players
        .iter()
        .map(|p| (p.id, format.score(p, history)))
        .collect();
    let lv = |level| Level {
        level,
        history,
        score: &score,
        format,
    };
    let rematch = round.pairings.iter().any(|p| history.met(p.black, p.white));
    let colour_before_ok = ids.iter().all(|&p| history.colour_balance(p).abs() <= 1);
    let colour_broken = round.pairings.iter().any(|p| {
        p.handicap == 0
            && (history.colour_balance(p.black) + 1 > 1 || history.colour_balance(p.white) - 1 < -1)
    });
    if n <= 10 {
        if rematch {
            prop_assert!(!field_pairable(&ids, &lv(1)), "avoidable rematch");
        }
        if colour_before_ok && colour_broken {
            prop_assert!(!field_pairable(&ids, &lv(0)), "avoidable colour imbalance");
        }
        let level = (0..4).find(|&l| field_pairable(&ids, &lv(l))).unwrap();
        let l = lv(level);
        // The engine's order: score, rating, rank down, id up.
        let mut order: Vec<&Player> = players.iter().collect();
        order.sort_by(|a, b| {
            score[&b.id]
                .total_cmp(&score[&a.id])
                .then(b.rating.total_cmp(&a.rating))
                .then(b.rank.cmp(&a.rank))
                .then(a.id.cmp(&b.id))
        });
        let pos: HashMap<PlayerId, usize> =
            order.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
        let mut left: Vec<PlayerId> = order.iter().map(|p| p.id).collect();
        if let Some(b) = round.bye {
            // Every player preferred for the bye was ineligible or stranded the rest.
            let mut bye_order: Vec<&Player> = players.iter().collect();
            bye_order.sort_by(|x, y| {
                score[&x.id]
                    .total_cmp(&score[&y.id])
                    .then(x.rank.cmp(&y.rank))
                    .then(x.rating.total_cmp(&y.rating))
                    .then(y.id.cmp(&x.id))
            });
            for c in bye_order.iter().take_while(|c| c.id != b) {
                let rest: Vec<PlayerId> = left.iter().copied().filter(|&x| x != c.id).collect();
                prop_assert!(
                    !(l.bye_ok(c.id) && pairable(&rest, &l)),
                    "bye to {} passed over {}",
                    b,
                    c.id
                );
            }
            left.retain(|&x| x != b);
        }
        for p in &round.pairings {
            let (top, other) = if pos[&p.black] < pos[&p.white] {
                (p.black, p.white)
            } else {
                (p.white, p.black)
            };
            prop_assert_eq!(left[0], top, "boards out of order");
            if score[&other] != score[&top] {
                for &q in &left[1..] {
                    if q != other && score[&q] == score[&top] && l.edge(top, q) {
                        let rest: Vec<PlayerId> =
                            left[1..].iter().copied().filter(|&x| x != q).collect();
                        prop_assert!(
                            !pairable(&rest, &l),
                            "{} floated though {} in its group could pair",
                            top,
                            q
                        );
                    }
                }
            }
            left.retain(|&x| x != top && x != other);
        }
    } else if n.is_multiple_of(2) && history.rounds.len() < n / 2 {
        prop_assert!(!rematch, "rematch in a field where one is always avoidable");
    }
    Ok(())
}

/// Recomputes score, SOS, SOSOS and SODOS from the crosstable's text and compares.
fn check_tiebreaks(
    players: &[Player],
    history: &History,
    format: Format,
) -> Result<(), TestCaseError> {
    let st = match format {
        Format::Swiss(s) => s.standings(players, history),
        Format::McMahon(m) => m.standings(players, history),
    };
    let rows = &st.rows;
    // Per place: start score and (opponent place or 0, points) per round, read from the text.
    let mut parsed: Vec<(f64, Vec<(usize, f64)>)> = Vec::new();
    for r in rows {
        let cells = r
            .cells
            .iter()
            .map(|c| {
                let t = st.cell_text(c);
                let head = t.split('/').next().unwrap();
                let (place, sign) = head.split_at(head.len() - 1);
                let place: usize = place.parse().unwrap();
                let pts: f64 = match sign {
                    "+" => 1.0,
                    "=" => 0.5,
                    _ => 0.0,
                };
                // A bye's points are the format's: "0+" / "0=" name them.
                (
                    place,
                    if place == 0 {
                        pts.min(format.bye_points())
                    } else {
                        pts
                    },
                )
            })
            .collect();
        parsed.push((format.start(&r.player), cells));
    }
    let score: Vec<f64> = parsed
        .iter()
        .map(|(s, c)| s + c.iter().map(|x| x.1).sum::<f64>())
        .collect();
    let sos: Vec<f64> = parsed
        .iter()
        .map(|(s, c)| {
            c.iter()
                .map(|&(o, _)| if o == 0 { *s } else { score[o - 1] })
                .sum()
        })
        .collect();
    for (i, r) in rows.iter().enumerate() {
        let c = &parsed[i].1;
        let sosos: f64 = c.iter().filter(|x| x.0 > 0).map(|x| sos[x.0 - 1]).sum();
        let sodos: f64 = c
            .iter()
            .filter(|x| x.0 > 0)
            .map(|x| x.1 * score[x.0 - 1])
            .sum();
        prop_assert_eq!(r.score, score[i]);
        prop_assert_eq!(r.sos, sos[i]);
        prop_assert_eq!(r.sosos, sosos);
        prop_assert_eq!(r.sodos, sodos);
        if i > 0 {
            let p = &rows[i - 1];
            prop_assert!(
                (p.score, p.sos, p.sosos, p.sodos) >= (r.score, r.sos, r.sosos, r.sodos),
                "table out of order"
            );
        }
    }
    Ok(())
}

fn run_event(n: usize, rounds: usize, seed: u64, format: Format) -> Result<(), TestCaseError> {
    let mut rng = Rng::new(seed);
    let players = field(n, &mut rng);
    let mut history = History::default();
    for _ in 0..rounds {
        let round = format.pair(&players, &history);
        check_round(&players, &history, &round, format)?;
        let played = round.finish(|_| random_outcome(&mut rng));
        history.rounds.push(played);
    }
    check_tiebreaks(&players, &history, format)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn swiss_rounds_keep_their_rules(n in 2usize..=60, rounds in 1usize..=7, seed in any::<u64>()) {
        let rounds = rounds.min(n.max(2));
        run_event(n, rounds, seed, Format::Swiss(Swiss { seed, ..Swiss::default() }))?;
    }

    #[test]
    fn small_swiss_rounds_keep_their_rules(n in 2usize..=10, rounds in 1usize..=9, seed in any::<u64>()) {
        run_event(n, rounds, seed, Format::Swiss(Swiss { seed, ..Swiss::default() }))?;
    }

    #[test]
    fn mcmahon_rounds_keep_their_rules(n in 2usize..=60, rounds in 1usize..=7, seed in any::<u64>(), handicap in any::<bool>()) {
        let mut m = McMahon::new("2d".parse().unwrap(), "20k".parse().unwrap());
        m.seed = seed;
        m.handicap = handicap.then_some(HandicapRule { reduction: 1, max: 9 });
        run_event(n, rounds, seed, Format::McMahon(m))?;
    }

    #[test]
    fn small_mcmahon_rounds_keep_their_rules(n in 2usize..=10, rounds in 1usize..=9, seed in any::<u64>(), handicap in any::<bool>()) {
        let mut m = McMahon::new("1d".parse().unwrap(), "15k".parse().unwrap());
        m.seed = seed;
        m.handicap = handicap.then_some(HandicapRule { reduction: 0, max: 9 });
        run_event(n, rounds, seed, Format::McMahon(m))?;
    }
}
