//! The fuzz harness of `fuzz-server/` over a few thousand seeded inputs, so CI runs it without
//! cargo-fuzz: actions in every phase of Go and Wall Go rooms, and request bodies through the
//! real router. No panic, no 5xx, refusals are 4xx with a reason, accepted actions replay.

mod fuzz_harness;

use baduk_rng::Rng;
use fuzz_harness::{bot_options, room_actions, Api};

/// Words of both games' notations, the seeds of the generated actions.
const WORDS: &[&str] = &[
    "D4",
    "E5",
    "C3",
    "A1",
    "J9",
    "T19",
    "Z9",
    "I5",
    "A0",
    "A26",
    "pass",
    "resign",
    "undo",
    "undo-accept",
    "undo-decline",
    "dead C3",
    "alive C3",
    "dead E5",
    "accept",
    "dispute",
    "timeout",
    "place D4",
    "place A1",
    "D4",
    "B2-C3/E",
    "B2-B2/N",
    "B2 pass",
    "turn B2-C3/S",
    "G7-G6/W",
    "A1-A2/X",
    "",
    " ",
    "PASS",
    "Resign",
    "dead",
    "place",
    "-",
    "/",
    "D4 D5",
];

/// Characters that mutate a word: notation pieces, spaces, controls, other scripts.
const NOISE: &[char] = &[
    'A', 'D', 'J', 'T', 'Z', 'a', '0', '1', '9', '-', '/', ' ', '\t', '\n', '\r', '\0', 'N', 'E',
    'S', 'W', '"', '\\', '{', '}', '[', ']', ',', ':', 'é', '바', '둑', '\u{202e}', '\u{fffd}',
];

fn word(rng: &mut Rng) -> String {
    let mut w: Vec<char> = WORDS[rng.below(WORDS.len())].chars().collect();
    match rng.below(10) {
        0..=5 => {}
        6 | 7 => {
            for _ in 0..=rng.below(3) {
                let c = NOISE[rng.below(NOISE.len())];
                let at = rng.below(w.len() + 1);
                if rng.below(2) == 0 || w.is_empty() {
                    w.insert(at, c);
                } else {
                    let last = w.len() - 1;
                    w[at.min(last)] = c;
                }
            }
        }
        8 => {
            let n = rng.below(4);
            w.truncate(n);
        }
        _ => {
            w = (0..rng.below(80))
                .map(|_| NOISE[rng.below(NOISE.len())])
                .collect()
        }
    }
    w.into_iter().collect()
}

fn bytes(rng: &mut Rng, max: usize) -> Vec<u8> {
    (0..rng.below(max + 1))
        .map(|_| rng.next_u64() as u8)
        .collect()
}

fn room_input(rng: &mut Rng) -> Vec<u8> {
    let mut out = vec![rng.next_u64() as u8, rng.next_u64() as u8];
    if rng.below(8) == 0 {
        out.extend(bytes(rng, 64));
        return out;
    }
    let n = 1 + rng.below(8);
    let words: Vec<String> = (0..n).map(|_| word(rng)).collect();
    out.extend(words.join("\n").into_bytes());
    out
}

/// A create body: well formed with odd values, or mangled.
fn create_body(rng: &mut Rng) -> Vec<u8> {
    let templates = [
        r#"{"game": "go", "size": 9, "rules": "chinese", "komi": 7.5}"#,
        r#"{"game": "go", "size": [13, 9], "rules": "japanese", "handicap": 3, "clock": "byo-yomi:600:5:30"}"#,
        r#"{"game": "go", "size": 19, "rules": "korean,ko=situational", "clock": "ing:600"}"#,
        r#"{"game": "go", "seats": {"black": {"kind": "open"}, "white": {"kind": "human"}}}"#,
        r#"{"game": "wallgo", "variant": "placement=ABAB stay=out-and-back tiebreak=none", "turn_seconds": 60}"#,
        r#"{"game": "wallgo", "seats": {"A": {"kind": "bot", "bot": "nobody"}}}"#,
        r#"{"game": "go", "seats": {"red": {"kind": "human"}}}"#,
        r#"{"game": "chess"}"#,
        r#"{"game": "go", "size": 1e400, "komi": -1e308, "handicap": 4294967296}"#,
        r#"{"game": "go", "rules": "chinese", "unknown": 1}"#,
    ];
    let mut t: Vec<u8> = templates[rng.below(templates.len())].as_bytes().to_vec();
    match rng.below(4) {
        0 => {}
        1 => {
            // Replace a few bytes.
            for _ in 0..=rng.below(4) {
                let i = rng.below(t.len());
                t[i] = rng.next_u64() as u8;
            }
        }
        2 => {
            let n = rng.below(t.len());
            t.truncate(n);
        }
        _ => {
            // Swap a value for a word of the notations or noise.
            let w = word(rng);
            let text = String::from_utf8_lossy(&t).replacen("chinese", &w, 1);
            t = text.replacen("9", &w, 1).into_bytes();
        }
    }
    t
}

fn http_input(rng: &mut Rng) -> Vec<u8> {
    let kind = rng.below(7) as u8;
    let mut out = vec![kind, rng.next_u64() as u8];
    match kind {
        0 => out.extend(create_body(rng)),
        1 => {
            let fields: Vec<String> = (0..rng.below(9)).map(|_| word(rng)).collect();
            out.extend(fields.join("\n").into_bytes());
        }
        2 | 3 => {
            if rng.below(2) == 0 {
                out.extend(format!("{{\"action\": {:?}}}", word(rng)).into_bytes());
            } else if rng.below(2) == 0 {
                out.extend(bytes(rng, 40));
            } else {
                out.extend(format!("{{\"action\": \"D4\", \"x\": {}}}", rng.below(9)).into_bytes());
            }
        }
        4 | 5 => out.extend(word(rng).into_bytes()),
        _ => {
            let choices = [
                r#"{"seat": "black"}"#,
                r#"{"seat": "white"}"#,
                "status=finished&limit=3",
                "status=open&limit=0",
                "before=12:abc&limit=200",
                "status=live&limit=-1",
            ];
            out.extend(choices[rng.below(choices.len())].as_bytes());
            if rng.below(2) == 0 {
                out.extend(bytes(rng, 12));
            }
        }
    }
    out
}

#[test]
fn seeded_actions_in_every_room_phase_are_refused_cleanly_or_replay() {
    let mut rng = Rng::new(2026);
    for i in 0..4000 {
        let input = room_input(&mut rng);
        let r = std::panic::catch_unwind(|| room_actions(&input));
        assert!(
            r.is_ok(),
            "input {i}: {input:?} ({:?})",
            String::from_utf8_lossy(&input)
        );
    }
}

#[test]
fn seeded_request_bodies_through_the_router_never_fail_the_server() {
    let dir = tempfile::tempdir_in(if std::path::Path::new("/dev/shm").is_dir() {
        "/dev/shm"
    } else {
        "."
    })
    .or_else(|_| tempfile::tempdir())
    .expect("a temp dir");
    let mut api = Api::new(&format!("sqlite:{}", dir.path().join("fuzz.db").display()));
    let mut rng = Rng::new(2027);
    for i in 0..1500 {
        let input = http_input(&mut rng);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| api.request(&input)));
        assert!(
            r.is_ok(),
            "input {i}: {input:?} ({:?})",
            String::from_utf8_lossy(&input)
        );
    }
}

/// Option words of both games' bots, good and bad, and paths a stranger would try.
const OPTION_WORDS: &[&str] = &[
    "level=3",
    "level=11",
    "time=2",
    "time=1e9",
    "time=inf",
    "time=-1",
    "playouts=500",
    "playouts=99999999999",
    "threads=2",
    "threads=0",
    "priors=builtin",
    "priors=none",
    "priors=/etc/passwd",
    "resign=0.1",
    "nodes=20000",
    "nodes=18446744073709551616",
    "ms=500",
    "ms=0",
    "depth=2",
    "depth=99",
    "tt=16",
    "tt=26",
    "prune=0",
    "lmr=1",
    "model=/dev/zero",
    "model=../models/sedol.txt",
    "explore=1",
    "seed=3",
    "=",
    "nodes",
    ",",
    "level=NaN",
];

fn bot_input(rng: &mut Rng) -> Vec<u8> {
    let mut out = vec![rng.next_u64() as u8];
    if rng.below(3) == 0 {
        let names = [
            "baduk", "random", "easy", "medium", "expert", "sedol", "gnugo", "",
        ];
        out.extend(names[rng.below(names.len())].as_bytes());
        out.push(b':');
    }
    let n = rng.below(5);
    let words: Vec<String> = (0..n)
        .map(|_| {
            let mut w = OPTION_WORDS[rng.below(OPTION_WORDS.len())].to_string();
            if rng.below(6) == 0 {
                w.insert(rng.below(w.len() + 1), NOISE[rng.below(NOISE.len())]);
            }
            w
        })
        .collect();
    out.extend(words.join(",").into_bytes());
    out
}

fn socket_input(rng: &mut Rng) -> Vec<u8> {
    let mut out = vec![rng.next_u64() as u8];
    let n = 1 + rng.below(8);
    let lines: Vec<String> = (0..n)
        .map(|i| match rng.below(8) {
            0 => r#"{"type":"ping","id":1}"#.to_string(),
            1 => format!(r#"{{"type":"hello","token":"${}"}}"#, rng.below(2)),
            2 => format!(r#"{{"type":"hello","token":"{}"}}"#, word(rng)),
            3 => format!(
                r#"{{"id":{i},"token":"{}","action":{:?}}}"#,
                "0".repeat(64),
                word(rng)
            ),
            4 => String::from_utf8_lossy(&bytes(rng, 40)).into_owned(),
            5 => format!(r#"{{"type":"action","id":"x","action":{:?}}}"#, word(rng)),
            _ => format!(
                r#"{{"id":{i},"token":"${}","action":{:?}}}"#,
                rng.below(2),
                word(rng)
            ),
        })
        .collect();
    out.extend(lines.join("\n").into_bytes());
    out
}

#[test]
fn seeded_bot_options_are_refused_with_a_reason_or_normalised_within_range() {
    let mut rng = Rng::new(2028);
    for i in 0..4000 {
        let input = bot_input(&mut rng);
        let r = std::panic::catch_unwind(|| bot_options(&input));
        assert!(
            r.is_ok(),
            "input {i}: {:?}",
            String::from_utf8_lossy(&input)
        );
    }
}

#[test]
fn seeded_socket_message_sequences_never_fail_the_server_or_its_store() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut api = Api::new(&format!("sqlite:{}", dir.path().join("ws.db").display()));
    let mut rng = Rng::new(2029);
    for i in 0..600 {
        let input = socket_input(&mut rng);
        let r =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| api.socket_messages(&input)));
        assert!(
            r.is_ok(),
            "input {i}: {:?}",
            String::from_utf8_lossy(&input)
        );
    }
}
