//! A hand-made club McMahon (5 players, 3 rounds, bar 3d, floor 10k, bye ½) checked against a
//! hand computation: the pairings of each round, the standings with SOS, SOSOS and SODOS, and
//! the EGF results file, byte for byte against `data/club_mcmahon.h9`.
//!
//! Start MMS (30k = 0, bar 3d = 32, floor 10k = 20): A 5d → 32, B 3d → 32, C 1d → 30,
//! D 2k → 28, E 12k → 20.
//!
//! Round 1 (order A 32, B 32, C 30, D 28, E 20): odd field, the bye to the lowest group's
//! lowest: E. A pairs in its group with B; C floats to D. Played: A(b) beats B, D(w) beats C.
//! After: A 33, B 32, C 30, D 29, E 20.5; balances A +1, B −1, C +1, D −1, E 0.
//!
//! Round 2: E has had the bye; the next lowest, D, gets it (A–E, B–C pairs the rest). A has met
//! B and would take a second black against C (both +1), so A–E, then B–C. Colours by balance:
//! E black (0 < +1), B black (−1 < +1). Played: A(w) beats E, B–C jigo. D's bye.
//! After: A 34, B 32.5, C 30.5, D 29.5, E 20.5.
//!
//! Round 3: E and D have had a bye; C gets it. A has met B and E: A–D, then B–E. Colours: D
//! black (−1 < 0), B black (0 < +1). Played: D(b) beats A, B(b) beats E.
//!
//! Final MMS: A 34, B 33.5, C 31 (30 + ½ + ½ bye), D 30.5, E 20.5.
//! SOS (a bye round adds the player's own start MMS):
//!   A: B 33.5 + E 20.5 + D 30.5 = 84.5;  B: A 34 + C 31 + E 20.5 = 85.5;
//!   C: D 30.5 + B 33.5 + 30 = 94;        D: C 31 + 28 + A 34 = 93;
//!   E: 20 + A 34 + B 33.5 = 87.5.
//! SOSOS (bye rounds add 0): A: 85.5 + 87.5 + 93 = 266; B: 84.5 + 94 + 87.5 = 266;
//!   C: 93 + 85.5 = 178.5; D: 94 + 84.5 = 178.5; E: 84.5 + 85.5 = 170.
//! SODOS (half for a jigo): A: B 33.5 + E 20.5 = 54; B: C 31 / 2 + E 20.5 = 36;
//!   C: B 33.5 / 2 = 16.75; D: C 31 + A 34 = 65; E: 0.

use baduk_pairing::{
    EgfHeader, Game, History, McMahon, Outcome, Person, Player, PlayerId, Round, TieBreak,
};
use std::collections::HashMap;

const A: PlayerId = 1;
const B: PlayerId = 2;
const C: PlayerId = 3;
const D: PlayerId = 4;
const E: PlayerId = 5;

fn players() -> Vec<Player> {
    [
        (A, 2500.0, "5d"),
        (B, 2300.0, "3d"),
        (C, 2100.0, "1d"),
        (D, 1900.0, "2k"),
        (E, 1000.0, "12k"),
    ]
    .into_iter()
    .map(|(id, rating, rank)| Player {
        id,
        rating,
        rank: rank.parse().unwrap(),
    })
    .collect()
}

fn event() -> McMahon {
    McMahon::new("3d".parse().unwrap(), "10k".parse().unwrap())
}

fn game(black: PlayerId, white: PlayerId, outcome: Outcome) -> Game {
    Game {
        black,
        white,
        outcome,
        handicap: 0,
        komi: 6.5,
    }
}

fn rounds() -> Vec<Round> {
    vec![
        Round {
            games: vec![
                game(A, B, Outcome::BlackWins),
                game(C, D, Outcome::WhiteWins),
            ],
            bye: Some(E),
        },
        Round {
            games: vec![game(E, A, Outcome::WhiteWins), game(B, C, Outcome::Jigo)],
            bye: Some(D),
        },
        Round {
            games: vec![
                game(D, A, Outcome::BlackWins),
                game(B, E, Outcome::BlackWins),
            ],
            bye: Some(C),
        },
    ]
}

#[test]
fn each_round_pairs_as_computed_by_hand() {
    let players = players();
    let mm = event();
    let all = rounds();
    let mut history = History::default();
    // Round 1: the pairs (colours are the seeded coin's) and the bye.
    let r1 = mm.pair(&players, &history);
    assert_eq!(r1.bye, Some(E));
    let mut pairs: Vec<(PlayerId, PlayerId)> = r1
        .pairings
        .iter()
        .map(|p| (p.black.min(p.white), p.black.max(p.white)))
        .collect();
    pairs.sort();
    assert_eq!(pairs, vec![(A, B), (C, D)]);
    // Rounds 2 and 3: colours follow the balances, so the boards are exact.
    for r in 1..3 {
        history.rounds.push(all[r - 1].clone());
        let paired = mm.pair(&players, &history);
        assert_eq!(paired.bye, all[r].bye, "round {}", r + 1);
        let boards: Vec<(PlayerId, PlayerId)> =
            paired.pairings.iter().map(|p| (p.black, p.white)).collect();
        let expected: Vec<(PlayerId, PlayerId)> =
            all[r].games.iter().map(|g| (g.black, g.white)).collect();
        assert_eq!(boards, expected, "round {}", r + 1);
        assert!(paired
            .pairings
            .iter()
            .all(|p| p.handicap == 0 && p.komi == 6.5));
    }
}

#[test]
fn standings_match_the_hand_computation() {
    let history = History { rounds: rounds() };
    let st = event().standings(&players(), &history);
    let got: Vec<(PlayerId, f64, f64, f64, f64)> = st
        .rows
        .iter()
        .map(|r| (r.player.id, r.score, r.sos, r.sosos, r.sodos))
        .collect();
    assert_eq!(
        got,
        vec![
            (A, 34.0, 84.5, 266.0, 54.0),
            (B, 33.5, 85.5, 266.0, 36.0),
            (C, 31.0, 94.0, 178.5, 16.75),
            (D, 30.5, 93.0, 178.5, 65.0),
            (E, 20.5, 87.5, 170.0, 0.0),
        ]
    );
    assert_eq!(
        st.order,
        vec![
            TieBreak::Score,
            TieBreak::Sos,
            TieBreak::Sosos,
            TieBreak::Sodos
        ]
    );
}

fn people() -> HashMap<PlayerId, Person> {
    [
        (A, "Kim Minsu", "KR", "Seou"),
        (B, "Novak Jan", "CZ", "Brno"),
        (C, "Lee Sora", "KR", "Busa"),
        (D, "Smith Anna", "GB", "Lond"),
        (E, "Park Jiho", "KR", "Seou"),
    ]
    .into_iter()
    .map(|(id, name, country, club)| {
        (
            id,
            Person {
                name: name.into(),
                country: country.into(),
                club: club.into(),
            },
        )
    })
    .collect()
}

#[test]
fn egf_results_file_matches_the_hand_written_one() {
    let history = History { rounds: rounds() };
    let st = event().standings(&players(), &history);
    let header = EgfHeader {
        class: "C".into(),
        event: "Club McMahon".into(),
        place: "KR, Seoul".into(),
        dates: "2026-12-05,2026-12-05".into(),
        handicap: "h0".into(),
        komi: "6.5".into(),
        time: "40".into(),
    };
    let expected = include_str!("data/club_mcmahon.h9");
    assert_eq!(st.to_egf(&header, &people()), expected);
}

#[test]
fn csv_has_one_line_a_player_with_the_crosstable() {
    let history = History { rounds: rounds() };
    let st = event().standings(&players(), &history);
    let mut people = people();
    people.get_mut(&B).unwrap().name = "Novak, \"Honza\" Jan".into();
    let csv = st.to_csv(&people);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "place,name,rank,mms,sos,sosos,sodos,round 1,round 2,round 3"
    );
    assert_eq!(lines[1], "1,Kim Minsu,5d,34,84.5,266,54,2+/b,5+/w,4-/w");
    assert_eq!(
        lines[2],
        "2,\"Novak, \"\"Honza\"\" Jan\",3d,33.5,85.5,266,36,1-/w,3=/b,5+/b"
    );
    assert_eq!(lines[5], "5,Park Jiho,12k,20.5,87.5,170,0,0=,1-/b,2-/w");
    assert_eq!(lines.len(), 6);
}
