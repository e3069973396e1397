//! The standing ladder: reach, place taking, cooldowns and inactivity.

use baduk_pairing::{Ladder, LadderError};

const DAY: u64 = 86_400_000;

fn ladder_of(n: u32) -> Ladder {
    let mut l = Ladder::new(2, DAY, 7 * DAY);
    for id in 1..=n {
        l.join(id, 0);
    }
    l
}

#[test]
fn a_winning_challenger_takes_the_place_and_those_between_shift_down() {
    let mut l = ladder_of(5);
    l.record(5, 3, Some(5), 10).unwrap();
    assert_eq!(l.order(), &[1, 2, 5, 3, 4]);
    // A defended challenge or a jigo moves nobody.
    l.record(3, 2, Some(2), 20).unwrap();
    l.record(4, 5, None, 30).unwrap();
    assert_eq!(l.order(), &[1, 2, 5, 3, 4]);
}

#[test]
fn challenges_are_refused_out_of_reach_downwards_or_unknown() {
    let mut l = ladder_of(5);
    assert_eq!(l.can_challenge(5, 2, 0), Err(LadderError::TooFar));
    assert_eq!(l.can_challenge(2, 5, 0), Err(LadderError::NotAbove));
    assert_eq!(l.can_challenge(2, 2, 0), Err(LadderError::SamePlayer));
    assert_eq!(l.can_challenge(9, 2, 0), Err(LadderError::NotOnLadder(9)));
    assert_eq!(l.record(5, 1, Some(5), 0), Err(LadderError::TooFar));
    assert_eq!(l.order(), &[1, 2, 3, 4, 5]);
}

#[test]
fn the_same_two_wait_for_the_cooldown() {
    let mut l = ladder_of(3);
    l.record(3, 2, Some(2), 1_000).unwrap();
    assert_eq!(
        l.can_challenge(3, 2, 1_000 + DAY - 1),
        Err(LadderError::Cooldown {
            until_ms: 1_000 + DAY
        })
    );
    // Someone else is not held back.
    assert_eq!(l.can_challenge(3, 1, 1_000), Ok(()));
    assert_eq!(l.can_challenge(3, 2, 1_000 + DAY), Ok(()));
}

#[test]
fn inactivity_drops_one_place_per_period() {
    let mut l = ladder_of(4);
    // 3 and 4 play at day 5; 1 and 2 stay idle.
    l.record(4, 3, Some(3), 5 * DAY).unwrap();
    assert!(l.decay(7 * DAY - 1).is_empty());
    let dropped = l.decay(7 * DAY);
    assert_eq!(dropped, vec![2, 1]);
    assert_eq!(l.order(), &[3, 1, 2, 4]);
    // Nothing more until another period passes for anyone.
    assert!(l.decay(8 * DAY).is_empty());
    // Day 12: 3 (last game day 5) drops; 4 is at the bottom already. Day 14: 1 and 2 again.
    assert_eq!(l.decay(12 * DAY), vec![3]);
    assert_eq!(l.order(), &[1, 3, 2, 4]);
    assert_eq!(l.decay(14 * DAY), vec![2, 1]);
    assert_eq!(l.order(), &[3, 1, 4, 2]);
}

#[test]
fn leaving_moves_those_below_up() {
    let mut l = ladder_of(4);
    l.leave(2);
    assert_eq!(l.order(), &[1, 3, 4]);
    assert_eq!(l.position(4), Some(2));
    assert_eq!(l.join(2, 0), 3);
    assert_eq!(l.join(2, 0), 3);
}

#[test]
fn a_ladder_rebuilt_from_its_parts_keeps_the_cooldown_and_activity() {
    let mut l = ladder_of(3);
    l.record(2, 1, Some(2), 5_000).unwrap();
    let mut back = Ladder::new(l.reach, l.cooldown_ms, l.inactivity_ms);
    for &p in l.order() {
        back.join(p, l.active_since(p).unwrap());
    }
    for (a, b, at) in l.last_played() {
        back.set_last_played(a, b, at);
    }
    assert_eq!(back, l);
    assert!(matches!(
        back.can_challenge(1, 2, 5_001),
        Err(LadderError::Cooldown { .. })
    ));
}
