use super::*;

/// A room with two joined human seats.
fn room_of(settings: Settings) -> Room {
    Room::new(
        "t".into(),
        settings,
        [Seat::joined_human(), Seat::joined_human()],
        0,
    )
    .unwrap()
}

fn wall_room(turn_ms: i64) -> Room {
    room_of(Settings::Wallgo {
        variant: "placement=ABAB".into(),
        turn_ms,
    })
}

fn go_room(rules: &str) -> Room {
    room_of(Settings::Go {
        rules: rules.into(),
        handicap: 0,
    })
}

#[test]
fn a_resignation_on_ones_turn_is_charged_the_time_since_the_last_move() {
    for clock in [
        "absolute:300",
        "fischer:300:5",
        "byo-yomi:0:3:30",
        "canadian:300:5:60",
    ] {
        let mut r = go_room(&format!("japanese,size=9,time={clock}"));
        r.apply(0, "E5", 1_000, false).unwrap();
        let before = r.clocks.sides[1];
        let shown = r.clocks.view(1, true, 4_000);
        r.apply(1, "resign", 5_000, false).unwrap();
        assert!(r.is_over());
        let after = r.clocks.view(1, false, 0);
        for k in ["main_ms", "period_ms", "periods"] {
            assert_eq!(after[k], shown[k], "{clock} {k}: {after} vs {shown}");
        }
        assert_ne!(r.clocks.sides[1], before, "{clock}: 4 s were charged");
        // The stored row replays to the same clocks.
        let rebuilt = Room::from_stored(
            "t",
            crate::store::StoredGame {
                settings: r.settings.clone(),
                seats: r
                    .seats
                    .iter()
                    .map(|s| (s.spec.clone(), None, true))
                    .collect(),
                actions: r.actions.clone(),
                created_at: 0,
                players: vec![None, None],
                rated: false,
                rating_changes: Vec::new(),
                owner: None,
            },
        );
        assert_eq!(rebuilt.map(|x| x.clocks), Ok(r.clocks), "{clock}");
    }
}

#[test]
fn every_ru_the_server_writes_is_read_back_for_every_preset_and_clock() {
    for preset in Rules::presets() {
        for clock in [
            "none",
            "absolute:600",
            "byo-yomi:180:3:10",
            "canadian:300:25:300",
            "fischer:300:5",
            "ing:3600",
        ] {
            for extra in ["", ",komi=0", ",ko=situational"] {
                let rules = format!("{},size=9,time={clock}{extra}", preset.preset.word());
                let Ok(parsed) = Rules::parse(&rules) else {
                    continue;
                };
                let room = go_room(&rules);
                let sgf = room.record();
                let ru = sgf
                    .split("RU[")
                    .nth(1)
                    .and_then(|t| t.split(']').next())
                    .unwrap();
                assert!(!ru.contains("time="), "{rules}: RU[{ru}]");
                let g = baduk_go::SgfGame::parse(&sgf).unwrap();
                let back = g
                    .rules(None)
                    .unwrap_or_else(|e| panic!("{rules}: RU[{ru}]: {e}"));
                let want = Rules {
                    time: Rules::preset(parsed.preset).time,
                    ..parsed
                };
                assert_eq!(back, want, "{rules}: RU[{ru}]");
            }
        }
    }
}

#[test]
fn wall_go_expired_turn_is_played_by_the_server_and_the_next_turn_has_full_time() {
    let mut r = wall_room(2_000);
    assert_eq!(r.timeout_action(1_000), None);
    let (seat, action) = r.timeout_action(2_500).expect("A's time ran out");
    assert_eq!(seat, 0);
    r.apply_timeout(seat, &action, 2_500)
        .expect("the expiry action is stored");
    assert!(r.actions[0].auto);
    assert_eq!(r.to_move(), Some(1));
    assert_eq!(r.deadline(), Some(4_500));
    // A's clock is not flagged: its next turn shows the full 2 s again, not 0:00.
    assert_eq!(r.clocks.sides[0].main_ms, 2_000);
    // A human's own late action is still refused.
    assert_eq!(
        r.apply(1, "place D4", 5_000, false).unwrap_err().status,
        409
    );
}
