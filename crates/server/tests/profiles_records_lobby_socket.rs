//! Profiles, game records and the lobby socket, over real HTTP and WebSocket on SQLite and
//! PostgreSQL: the profile names the profile's own seat of each game (a guest's game keeps the
//! guest's old name), the rating history says where each game started from, the game record has
//! its date and both ranks; the lobby's socket pushes the open seeks as they change; a bot's
//! seat shows its fixed rating; a bot seat passes back on a settled board after the opponent's
//! pass (the server's own bot path).

mod common;

use common::accounts::{call, get, next_of, signup, uniq, ws, wsend, Session};
use common::{databases, Server};
use serde_json::{json, Value};

/// The value of SGF property `prop` in `sgf` (the first one), if any.
fn prop<'a>(sgf: &'a str, prop: &str) -> Option<&'a str> {
    let at = sgf.find(&format!("{prop}["))? + prop.len() + 1;
    let end = sgf[at..].find(']')?;
    Some(&sgf[at..at + end])
}

#[tokio::test]
async fn a_guest_game_kept_at_sign_up_names_its_seat_and_its_record_has_date_and_ranks() {
    for db in databases() {
        let s = Server::start(&db).await;
        let name = uniq("dora");
        let (id, _, _) =
            common::accounts::guest_resigns_to_the_bot_then_signs_up(&s, "level=3", &name).await;
        let (st, p) = get(&s, &format!("/api/players/{name}"), &Session::default()).await;
        assert_eq!(st, 200, "{p}");
        let game = p["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == json!(id))
            .unwrap_or_else(|| panic!("the guest game is listed: {p}"));
        // The summary still says the guest's old name; the seat says whose game it is.
        assert_eq!(game["seat"], "black", "{game}");
        assert_ne!(game["seats"]["black"]["player"]["name"], json!(name));
        assert_eq!(game["seats"]["white"]["options"], "level=3", "{game}");
        assert_eq!(game["seats"]["white"]["rating"]["rating"], 640.0, "{game}");
        let (st, sgf) = get(
            &s,
            &format!("/api/players/{name}/games.sgf"),
            &Session::default(),
        )
        .await;
        assert_eq!(st, 200);
        let sgf = sgf.as_str().unwrap().to_string();
        let dt = prop(&sgf, "DT").unwrap_or_else(|| panic!("no DT: {sgf}"));
        assert!(
            dt.len() == 10 && dt.as_bytes()[4] == b'-' && dt.as_bytes()[7] == b'-',
            "{dt}"
        );
        // A new player is 1500 ± 350 (6k, provisional); level 3 is 640 on 9×9.
        assert_eq!(prop(&sgf, "BR"), Some("6k?"), "{sgf}");
        assert_eq!(
            prop(&sgf, "WR"),
            Some(baduk_rating::go_rank(640.0).as_str()),
            "{sgf}"
        );
        let (_, one) = get(&s, &format!("/api/games/{id}/record"), &Session::default()).await;
        assert_eq!(prop(one.as_str().unwrap(), "DT"), Some(dt));
    }
}

#[tokio::test]
async fn the_rating_history_says_where_the_first_game_started() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (a, b) = (uniq("ann"), uniq("ben"));
        let (sa, sb) = (signup(&s, &a).await, signup(&s, &b).await);
        let seek = json!({"game": "go", "size": 9, "rated": true});
        let (st, first) = call(&s, "POST", "/api/seeks", &sa, Some(seek.clone())).await;
        assert_eq!(st, 201, "{first}");
        let (st, second) = call(&s, "POST", "/api/seeks", &sb, Some(seek)).await;
        assert_eq!(st, 201, "{second}");
        let id = second["game"]["id"].as_str().unwrap().to_string();
        let b_black = second["game"]["seat"] == "black";
        let (black, white) = if b_black { (&sb, &sa) } else { (&sa, &sb) };
        for (who, mv) in [
            (black, "C3"),
            (white, "G7"),
            (black, "C7"),
            (white, "G3"),
            (black, "resign"),
        ] {
            let (st, v) = call(
                &s,
                "POST",
                &format!("/api/games/{id}/actions"),
                who,
                Some(json!({ "action": mv })),
            )
            .await;
            assert_eq!(st, 200, "{mv}: {v}");
        }
        for name in [&a, &b] {
            let (_, p) = get(&s, &format!("/api/players/{name}"), &Session::default()).await;
            let h = &p["history"]["go-small"][0];
            assert_eq!(h["rating_before"], 1500.0, "{p}");
            assert_eq!(h["deviation_before"], 350.0, "{p}");
            assert_ne!(h["rating"], 1500.0, "{p}");
        }
    }
}

/// The next `seeks` message of the lobby's socket whose list satisfies `pred`.
async fn seeks_where(lobby: &mut common::accounts::Ws, pred: impl Fn(&[Value]) -> bool) -> Value {
    // Pushed at once; the list is read again every 5 s anyway, so 3 s proves the push.
    loop {
        let m = next_of(lobby, "seeks", 3).await;
        if pred(m["seeks"].as_array().expect("a list")) {
            return m;
        }
    }
}

/// Makes a seek for a `size`×`size` Go game as `who`: the answer (its id, a game if paired).
async fn seek(s: &Server, who: &Session, size: u32) -> Value {
    let (st, made) = call(
        s,
        "POST",
        "/api/seeks",
        who,
        Some(json!({"game": "go", "size": size})),
    )
    .await;
    assert_eq!(st, 201, "{made}");
    made
}

fn has(list: &[Value], id: &str) -> bool {
    list.iter().any(|x| x["id"] == json!(id))
}

#[tokio::test]
async fn the_lobby_socket_pushes_seeks_made_and_cancelled_either_way() {
    for db in databases() {
        let s = Server::start(&db).await;
        let mut lobby = ws(&s, "/ws/lobby", &Session::default()).await;
        let now = next_of(&mut lobby, "seeks", 5).await;
        assert!(now["seeks"].is_array(), "{now}");
        wsend(&mut lobby, json!({"type": "ping"})).await;
        next_of(&mut lobby, "pong", 5).await;
        let sam = signup(&s, &uniq("sam")).await;
        let made = seek(&s, &sam, 13).await;
        let id = made["id"].as_str().unwrap().to_string();
        let listed = seeks_where(&mut lobby, |l| has(l, &id)).await;
        let mine = listed["seeks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == json!(id))
            .unwrap()
            .clone();
        assert_eq!(mine["size"], 13, "{mine}");
        assert_eq!(mine["rating"], 1500.0, "{mine}");
        // Its socket closed: the seek is dropped and the lobby told.
        let mut watch = ws(&s, &format!("/ws/seeks/{id}"), &sam).await;
        watch.close(None).await.unwrap();
        seeks_where(&mut lobby, |l| !has(l, &id)).await;
        // A seek cancelled with DELETE: the same.
        let made = seek(&s, &sam, 13).await;
        let id = made["id"].as_str().unwrap().to_string();
        seeks_where(&mut lobby, |l| has(l, &id)).await;
        let (st, v) = call(&s, "DELETE", &format!("/api/seeks/{id}"), &sam, None).await;
        assert_eq!(st, 200, "{v}");
        seeks_where(&mut lobby, |l| !has(l, &id)).await;
        // Two seeks paired: both leave the list.
        let one = seek(&s, &sam, 9).await;
        let one = one["id"].as_str().unwrap().to_string();
        seeks_where(&mut lobby, |l| has(l, &one)).await;
        let tom = signup(&s, &uniq("tom")).await;
        let two = seek(&s, &tom, 9).await;
        assert!(two["game"]["id"].is_string(), "{two}");
        seeks_where(&mut lobby, |l| !has(l, &one)).await;
        // Anything but a ping is refused, and the socket stays.
        wsend(&mut lobby, json!({"type": "accept_bot"})).await;
        let e = next_of(&mut lobby, "error", 5).await;
        assert_eq!(e["status"], 400, "{e}");
    }
}

#[tokio::test]
async fn a_bot_seat_shows_its_fixed_rating() {
    for db in databases() {
        let s = Server::start(&db).await;
        let (st, g) = s
            .post(
                "/api/games",
                None,
                &json!({"game": "go", "size": 9,
                "seats": {"black": {"kind": "human"}, "white": {"kind": "bot", "bot": "baduk", "options": "level=3"}}})
                .to_string(),
            )
            .await;
        assert_eq!(st, 201, "{g}");
        let state = s.state(g["id"].as_str().unwrap()).await;
        let white = &state["seats"]["white"];
        assert_eq!(white["rating"]["rating"], 640.0, "{white}");
        assert_eq!(
            white["rating"]["rank"],
            json!(baduk_rating::go_rank(640.0)),
            "{white}"
        );
        assert!(state["seats"]["black"].get("rating").is_none(), "{state}");
    }
}

/// A 9×9 Japanese room whose moves build a settled board (ten one-point eyes each side, the E
/// column dame), the bot in seat `bot_seat` at `options`, then the other seat's pass.
fn settled_room(bot_seat: usize, options: &str) -> baduk_server::game::room::Room {
    use baduk_server::game::room::{Room, Seat, SeatSpec, Settings};
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
    let seats = if bot_seat == 0 {
        [bot, Seat::joined_human()]
    } else {
        [Seat::joined_human(), bot]
    };
    let settings = Settings::Go {
        rules: "japanese,size=9".into(),
        handicap: 0,
    };
    let mut room = Room::new("settled42".into(), settings, seats, 0).unwrap();
    // Rows 9, 7, 5, 3, 1: B and D Black, F and H White; rows 8, 6, 4, 2: A–D Black, F–J White.
    let mut black = Vec::new();
    let mut white = Vec::new();
    for row in 1..=9 {
        let (b, w): (&[char], &[char]) = if row % 2 == 1 {
            (&['B', 'D'], &['F', 'H'])
        } else {
            (&['A', 'B', 'C', 'D'], &['F', 'G', 'H', 'J'])
        };
        black.extend(b.iter().map(|c| format!("{c}{row}")));
        white.extend(w.iter().map(|c| format!("{c}{row}")));
    }
    // For White to pass with the bot Black to move, White's last stone (H9) is left out: the
    // corner stays White's.
    if bot_seat == 0 {
        white.pop();
    }
    for (i, b) in black.iter().enumerate() {
        room.apply(0, b, 0, false).unwrap();
        if let Some(w) = white.get(i) {
            room.apply(1, w, 0, false).unwrap();
        }
    }
    room.apply(1 - bot_seat, "pass", 0, false).unwrap();
    room
}

#[tokio::test]
async fn a_server_bot_seat_passes_back_on_a_settled_board() {
    use baduk_server::game::bots::{BotLimits, Bots, Job, Models};
    let bots = std::sync::Arc::new(Bots::new(BotLimits::default(), Models::default(), false));
    for bot_seat in [0, 1] {
        // Level 10 with a playout cap instead of its clock: a seed decides.
        for options in ["level=1", "level=4", "level=6", "level=10,playouts=3000"] {
            let room = settled_room(bot_seat, options);
            let spec = room.seats[bot_seat].spec.clone();
            let job = Job {
                room,
                seat: bot_seat,
                spec,
                clock_ms: None,
            };
            let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let action = bots.think(job, cancel).await.unwrap();
            assert_eq!(
                action.as_deref(),
                Some("pass"),
                "seat {bot_seat}, {options}: the bot did not pass back after the opponent's pass"
            );
        }
    }
}
