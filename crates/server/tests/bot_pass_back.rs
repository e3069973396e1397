//! A bot seat after its opponent's pass in a real, settled game (the server's own bot path):
//! it passes back at once, at level 1 and at level 10, and the game goes to the count (the
//! dead-stone phase) instead of the player passing again and again.

use baduk_go::sgf::SgfGame;
use baduk_go::{Color, Move};
use baduk_server::game::bots::{BotLimits, Bots, Job, Models};
use baduk_server::game::go_room::Phase;
use baduk_server::game::room::{Core, Room, Seat, SeatSpec, Settings};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A real 9×9 game (GNU Go 3.8 against itself, Japanese rules, komi 6.5) up to Black's pass,
/// the first of its two in a row: a settled board by GNU Go's reading, White to move.
const RECORD: &str = include_str!("../../search/tests/data/settled-9x9-black-passed.sgf");

/// A Japanese 9×9 room, a human Black and the bot White at `options`, after every move of
/// [`RECORD`] (Black's pass last).
fn room_after_the_players_pass(options: &str) -> Room {
    room_after(options, "japanese,size=9", RECORD)
}

/// A room under `rules`, a human Black and the bot White at `options`, after every move of
/// `record`.
fn room_after(options: &str, rules: &str, record: &str) -> Room {
    let sgf = SgfGame::parse(record).unwrap();
    let game = sgf.replay(sgf.rules(None).unwrap(), None).unwrap();
    let bot = Seat {
        spec: SeatSpec {
            kind: "bot".into(),
            bot: Some("baduk".into()),
            options: Some(options.into()),
        },
        token_hash: None,
        joined: true,
        player: None,
    };
    let settings = Settings::Go {
        rules: rules.into(),
        handicap: 0,
    };
    let mut room = Room::new(
        "settledrecord".into(),
        settings,
        [Seat::joined_human(), bot],
        0,
    )
    .unwrap();
    for r in game.history() {
        let seat = if r.color == Color::Black { 0 } else { 1 };
        let action = match r.mv {
            Move::Pass => "pass".to_string(),
            Move::Play(p) => p.to_string(),
        };
        room.apply(seat, &action, 0, false).unwrap();
    }
    room
}

#[tokio::test]
async fn a_bot_seat_passes_back_in_a_settled_real_game_and_it_goes_to_the_count() {
    let bots = Arc::new(Bots::new(BotLimits::default(), Models::default(), false));
    // Level 10 with a playout cap instead of its clock: the room's seed decides.
    for options in ["level=1", "level=10,playouts=3000"] {
        let mut room = room_after_the_players_pass(options);
        let job = Job {
            room: room.clone(),
            seat: 1,
            spec: room.seats[1].spec.clone(),
            clock_ms: None,
        };
        let action = bots.think(job, Arc::new(AtomicBool::new(false))).await;
        assert_eq!(
            action,
            Ok(Some("pass".to_string())),
            "{options}: the bot did not pass back after the player's pass"
        );
        room.apply(1, "pass", 0, false).unwrap();
        match &room.core {
            Core::Go(g) => assert_eq!(g.phase, Phase::Marking, "{options}"),
            _ => unreachable!("a Go room"),
        }
    }
}

/// [`RECORD`] with one more exchange before Black's pass: a lone Black stone thrown in at B6,
/// deep inside White's side, and White's answer at C6 (the stone has three liberties and no
/// way to live).
fn record_with_a_dead_stone() -> String {
    RECORD.replace(";W[df];B[])", ";W[df];B[bd];W[cd];B[])")
}

#[tokio::test]
async fn under_chinese_rules_a_bot_seat_leaves_dead_stones_to_the_count_after_the_players_pass() {
    // Area scoring: capturing the dead stone costs the bot nothing, and GTP's bot does capture
    // it (an arena counts stones as they stand). A server seat's game goes to the dead-stone
    // phase, so the bot passes back and the stone is marked dead there instead of the player
    // passing again and again while the bot takes it.
    let record = record_with_a_dead_stone();
    assert_ne!(record, RECORD, "the record's last moves changed");
    let bots = Arc::new(Bots::new(BotLimits::default(), Models::default(), false));
    for options in ["level=1", "level=10,playouts=3000"] {
        let mut room = room_after(options, "chinese,size=9", &record);
        let job = Job {
            room: room.clone(),
            seat: 1,
            spec: room.seats[1].spec.clone(),
            clock_ms: None,
        };
        let action = bots.think(job, Arc::new(AtomicBool::new(false))).await;
        assert_eq!(
            action,
            Ok(Some("pass".to_string())),
            "{options}: the bot played on to capture instead of passing back"
        );
        room.apply(1, "pass", 0, false).unwrap();
        match &room.core {
            Core::Go(g) => {
                assert_eq!(g.phase, Phase::Marking, "{options}");
                let b6 = baduk_go::Point::from_gtp("B6", g.rules.size).unwrap();
                let marks = g.marking.as_ref().expect("the dead-stone phase has marks");
                assert!(
                    marks.dead.contains(b6),
                    "{options}: the thrown-in stone is not proposed dead"
                );
                assert_eq!(g.bot_marking_answer(), "accept", "{options}");
            }
            _ => unreachable!("a Go room"),
        }
    }
}
