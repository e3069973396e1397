//! `baduk bot connect` against a real `baduk serve`: bot accounts with their own engines (GNU Go,
//! and `baduk go gtp`) accept challenges over the Bot API and play them to the end, with the
//! server's clock reaching the engine; two bridged engines play each other; the bridge picks its
//! game up after the server is killed and restarted; an engine that dies mid-game resigns that
//! game and the next challenge gets a fresh engine; an engine's `MALKOVICH:` line reaches the
//! spectators' chat.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{free_port, wait_up, BIN};

const GNUGO: &str = "/usr/games/gnugo";

/// `baduk serve` on `db` at `port`, killed when dropped.
struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn serve(db: &str, port: u16) -> Serve {
    let child = Command::new(BIN)
        .args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--database",
            db,
        ])
        .args(["--no-limits"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("baduk serve starts");
    wait_up(&format!("http://127.0.0.1:{port}")).await;
    Serve(child)
}

/// A bridge process, its log in a file; killed when dropped.
struct Bridge {
    child: Child,
    log: PathBuf,
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Bridge {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

fn bridge(
    dir: &Path,
    name: &str,
    base: &str,
    token: &str,
    flags: &[&str],
    engine: &[&str],
) -> Bridge {
    let log = dir.join(format!("{name}.log"));
    let out = std::fs::File::create(&log).unwrap();
    let child = Command::new(BIN)
        .args(["bot", "connect", "--server", base])
        .args(flags)
        .arg("--")
        .args(engine)
        .env("BADUK_BOT_TOKEN", token)
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .expect("the bridge starts");
    Bridge { child, log }
}

/// A signed-in account: its session cookie, CSRF token and an API token.
struct Account {
    name: String,
    token: String,
}

async fn request(
    base: &str,
    method: reqwest::Method,
    path: &str,
    auth: Option<&str>,
    cookie: Option<(&str, &str)>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut r = reqwest::Client::new().request(method, format!("{base}{path}"));
    if let Some(t) = auth {
        r = r.bearer_auth(t);
    }
    if let Some((c, csrf)) = cookie {
        r = r
            .header("cookie", format!("baduk_session={c}"))
            .header("x-csrf-token", csrf);
    }
    if let Some(b) = body {
        r = r.json(&b);
    }
    let resp = r.send().await.expect("the server answers");
    let s = resp.status().as_u16();
    let set = resp
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut v: Value = resp.json().await.unwrap_or(Value::Null);
    if let Some(set) = set {
        v["_cookie"] = json!(set
            .split(';')
            .next()
            .and_then(|kv| kv.strip_prefix("baduk_session="))
            .unwrap_or(""));
    }
    (s, v)
}

/// Signs `name` up; a bot account (`POST /api/account/bot`) with a `bot` token, or a player
/// with a `read,play,challenge` token.
async fn account(base: &str, name: &str, bot: bool) -> Account {
    let (s, v) = request(
        base,
        reqwest::Method::POST,
        "/api/auth/signup",
        None,
        None,
        Some(json!({"username": name, "password": "tengen-hoshi-komoku"})),
    )
    .await;
    assert_eq!(s, 201, "signup {name}: {v}");
    let cookie = v["_cookie"].as_str().unwrap().to_string();
    let csrf = v["csrf"].as_str().unwrap().to_string();
    let session = Some((cookie.as_str(), csrf.as_str()));
    if bot {
        let (s, v) = request(
            base,
            reqwest::Method::POST,
            "/api/account/bot",
            None,
            session,
            None,
        )
        .await;
        assert_eq!(s, 200, "{name} becomes a bot: {v}");
    }
    let scopes = if bot {
        json!(["bot"])
    } else {
        json!(["read", "play", "challenge"])
    };
    let (s, v) = request(
        base,
        reqwest::Method::POST,
        "/api/tokens",
        None,
        session,
        Some(json!({"label": "test", "scopes": scopes})),
    )
    .await;
    assert!(s == 200 || s == 201, "{name}'s token: {v}");
    Account {
        name: name.to_string(),
        token: v["token"].as_str().unwrap().to_string(),
    }
}

async fn get(base: &str, path: &str, token: Option<&str>) -> Value {
    request(base, reqwest::Method::GET, path, token, None, None)
        .await
        .1
}

async fn post(base: &str, path: &str, token: &str, body: Value) -> (u16, Value) {
    request(
        base,
        reqwest::Method::POST,
        path,
        Some(token),
        None,
        Some(body),
    )
    .await
}

/// Polls `check` every 100 ms until it gives a value (`secs` at most; the bridge's `log` in
/// the failure).
async fn until<T, F, Fut>(secs: u64, what: &str, log: &dyn Fn() -> String, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            Instant::now() < end,
            "{what}: timed out; the bridge's log:\n{}",
            log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until `bot` is online (its bridge holds the event stream).
async fn online(base: &str, bot: &str, log: &dyn Fn() -> String) {
    until(60, &format!("{bot} online"), log, || async {
        let v = get(base, "/api/bots", None).await;
        v["bots"]
            .as_array()?
            .iter()
            .any(|b| b["name"] == bot && b["online"] == true)
            .then_some(())
    })
    .await
}

/// `from` challenges `to` with `settings`; the game once the bot accepted it.
async fn challenge(
    base: &str,
    from: &Account,
    to: &str,
    settings: Value,
    log: &dyn Fn() -> String,
) -> String {
    let mut body = settings;
    body["to"] = json!(to);
    let (s, v) = post(base, "/api/challenges", &from.token, body).await;
    assert_eq!(s, 201, "challenge: {v}");
    let id = v["challenge"]["id"].as_str().unwrap().to_string();
    until(60, "the challenge accepted", log, || async {
        let v = get(base, &format!("/api/challenges/{id}"), Some(&from.token)).await;
        let c = &v["challenge"];
        assert_ne!(c["status"], "declined", "declined: {c}");
        c["game"].as_str().map(str::to_string)
    })
    .await
}

/// The human plays its seat of game `id` until it ends: the first legal move of a fixed
/// order for `moves` moves, then passes; in the dead-stone phase it accepts. Returns the final
/// state.
async fn play_out(
    base: &str,
    human: &Account,
    id: &str,
    moves: usize,
    log: &dyn Fn() -> String,
) -> Value {
    let mut played = 0;
    let end = Instant::now() + Duration::from_secs(300);
    loop {
        assert!(
            Instant::now() < end,
            "game {id} did not end; the bridge's log:\n{}",
            log()
        );
        let st = get(base, &format!("/api/games/{id}"), Some(&human.token)).await;
        if st["status"] == "finished" {
            return st;
        }
        let you = st["you"].as_str().unwrap_or("").to_string();
        let action = if st["phase"] == "marking" {
            (st["marking"]["accepted"][&you] != true).then(|| "accept".to_string())
        } else if st["to_move"] == you.as_str() {
            let legal: Vec<&str> = st["legal"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|m| m.as_str())
                        .filter(|m| *m != "pass")
                        .collect()
                })
                .unwrap_or_default();
            Some(if played < moves && !legal.is_empty() {
                played += 1;
                legal[(played * 7) % legal.len()].to_string()
            } else {
                "pass".to_string()
            })
        } else {
            None
        };
        if let Some(a) = action {
            let (s, v) = post(
                base,
                &format!("/api/games/{id}/actions"),
                &human.token,
                json!({"action": a}),
            )
            .await;
            assert!(s == 200 || s == 409, "{a}: {s} {v}");
        } else {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

async fn record(base: &str, id: &str) -> String {
    reqwest::get(format!("{base}/api/games/{id}/record"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// A fresh `baduk serve` on a SQLite file of a new folder: the folder, the server, its URL.
async fn fresh() -> (tempfile::TempDir, Serve, String) {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let s = serve(
        &format!("sqlite:{}", dir.path().join("b.db").display()),
        port,
    )
    .await;
    (dir, s, format!("http://127.0.0.1:{port}"))
}

/// The human plays the first legal move (not a pass) of the state `st` of game `id`.
async fn first_legal_move(base: &str, human: &Account, id: &str, st: &Value) {
    let mv = st["legal"]
        .as_array()
        .and_then(|a| a.iter().filter_map(|m| m.as_str()).find(|m| *m != "pass"))
        .expect("a legal move")
        .to_string();
    post(
        base,
        &format!("/api/games/{id}/actions"),
        &human.token,
        json!({"action": mv}),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gnu_go_through_the_bridge_plays_a_challenge_to_the_count() {
    let (dir, _s, base) = fresh().await;
    let bot = account(&base, "gnugobot", true).await;
    let human = account(&base, "kimhuman", false).await;
    let b = bridge(
        dir.path(),
        "gnugo",
        &base,
        &bot.token,
        &["--sizes", "9"],
        &[GNUGO, "--mode", "gtp", "--level", "1"],
    );
    let log = || b.log();
    online(&base, &bot.name, &log).await;
    // A size its filters refuse is refused by the server before it reaches the engine.
    let (s, v) = post(
        &base,
        "/api/challenges",
        &human.token,
        json!({"to": bot.name, "game": "go", "size": 19}),
    )
    .await;
    assert_eq!(
        (s, v["code"].as_str()),
        (422, Some("challenge.not_accepted")),
        "{v}"
    );
    let id = challenge(
        &base,
        &human,
        &bot.name,
        json!({"game": "go", "size": 9, "rules": "japanese", "colour": "black"}),
        &log,
    )
    .await;
    let st = play_out(&base, &human, &id, 20, &log).await;
    let result = &st["result"];
    assert_eq!(result["reason"], "score", "{result}");
    let sgf = record(&base, &id).await;
    let white_moves = sgf.matches(";W[").count();
    assert!(white_moves >= 10, "GNU Go's moves in the record: {sgf}");
    assert!(sgf.contains(&format!("PW[{}]", bot.name)), "{sgf}");
    assert!(
        log().contains("move"),
        "a progress line per move: {}",
        log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_engine_through_the_bridge_gets_the_byo_yomi_clock_on_19x19() {
    let (dir, _s, base) = fresh().await;
    let bot = account(&base, "badukbot", true).await;
    let human = account(&base, "leehuman", false).await;
    // The engine's input is kept: the transcript of what the bridge told it.
    let transcript = dir.path().join("gtp-in.txt");
    let script = format!(
        "echo 'MALKOVICH: reading the corners' >&2; tee -a {} | {BIN} go gtp --bot playouts=50",
        transcript.display()
    );
    let b = bridge(
        dir.path(),
        "ours",
        &base,
        &bot.token,
        &["--log-format", "json"],
        &["sh", "-c", &script],
    );
    let log = || b.log();
    online(&base, &bot.name, &log).await;
    let id = challenge(
        &base,
        &human,
        &bot.name,
        json!({"game": "go", "size": 19, "rules": "chinese", "clock": "byo-yomi:300:3:30", "colour": "white"}),
        &log,
    )
    .await;
    // Four moves of the bot's, then the human resigns.
    until(120, "the bot's fourth move", &log, || async {
        let st = get(&base, &format!("/api/games/{id}"), Some(&human.token)).await;
        if st["to_move"] == "white" {
            first_legal_move(&base, &human, &id, &st).await;
        }
        (st["moves"].as_array().map_or(0, |m| m.len()) >= 8).then_some(())
    })
    .await;
    let (s, v) = post(
        &base,
        &format!("/api/games/{id}/actions"),
        &human.token,
        json!({"action": "resign"}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let gtp = std::fs::read_to_string(&transcript).unwrap();
    assert!(gtp.contains("boardsize 19"), "{gtp}");
    assert!(gtp.contains("kgs-time_settings byoyomi 300 30 3"), "{gtp}");
    assert!(
        gtp.contains("time_left B"),
        "the clock reaches the engine: {gtp}"
    );
    assert!(gtp.contains("baduk-rules chinese"), "{gtp}");
    // The engine's `MALKOVICH:` line is in the spectators' chat, as text.
    until(30, "the engine's chat line", &log, || async {
        let v = get(&base, &format!("/api/games/{id}/chat"), None).await;
        v["messages"]
            .as_array()?
            .iter()
            .any(|m| m["text"] == "reading the corners" && m["channel"] == "spectators")
            .then_some(())
    })
    .await;
    // JSON log lines, one an object each.
    let l = log();
    let first_move = l
        .lines()
        .filter_map(|x| serde_json::from_str::<Value>(x).ok())
        .find(|v| v["event"] == "move")
        .unwrap_or_else(|| panic!("a JSON move line: {l}"));
    assert_eq!(first_move["game"], json!(id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bridged_engines_play_each_other_when_both_accept_bots() {
    let (dir, _s, base) = fresh().await;
    let a = account(&base, "gnugoa", true).await;
    let b = account(&base, "badukb", true).await;
    let ba = bridge(
        dir.path(),
        "a",
        &base,
        &a.token,
        &["--accept-bots"],
        &[GNUGO, "--mode", "gtp", "--level", "1"],
    );
    let bb = bridge(
        dir.path(),
        "b",
        &base,
        &b.token,
        &["--accept-bots"],
        &[BIN, "go", "gtp", "--bot", "playouts=50"],
    );
    let log = || format!("{}\n---\n{}", ba.log(), bb.log());
    online(&base, &a.name, &log).await;
    online(&base, &b.name, &log).await;
    let id = challenge(
        &base,
        &a,
        &b.name,
        json!({"game": "go", "size": 9, "rules": "chinese"}),
        &log,
    )
    .await;
    let st = until(300, "the bots' game ends", &log, || async {
        let st = get(&base, &format!("/api/games/{id}"), None).await;
        (st["status"] == "finished").then_some(st)
    })
    .await;
    assert!(st["moves"].as_array().unwrap().len() >= 10, "{st}");
    assert!(st["result"]["text"].as_str().is_some(), "{st}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_picks_its_game_up_after_the_server_is_killed_and_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let db = format!("sqlite:{}", dir.path().join("b.db").display());
    let mut s = serve(&db, port).await;
    let base = format!("http://127.0.0.1:{port}");
    let bot = account(&base, "phoenixbot", true).await;
    let human = account(&base, "parkhuman", false).await;
    let b = bridge(
        dir.path(),
        "p",
        &base,
        &bot.token,
        &[],
        &[GNUGO, "--mode", "gtp", "--level", "1"],
    );
    let log = || b.log();
    online(&base, &bot.name, &log).await;
    let id = challenge(
        &base,
        &human,
        &bot.name,
        json!({"game": "go", "size": 9, "colour": "black"}),
        &log,
    )
    .await;
    let moves_of = |st: &Value| st["moves"].as_array().map_or(0, |m| m.len());
    // Two moves each, then SIGKILL and a restart on the same file and port.
    until(60, "two moves each", &log, || async {
        let st = get(&base, &format!("/api/games/{id}"), Some(&human.token)).await;
        if st["to_move"] == "black" && moves_of(&st) < 4 {
            first_legal_move(&base, &human, &id, &st).await;
        }
        (moves_of(&st) >= 4).then_some(())
    })
    .await;
    Command::new("kill")
        .args(["-9", &s.0.id().to_string()])
        .status()
        .unwrap();
    let _ = s.0.wait();
    drop(s);
    let _s = serve(&db, port).await;
    let st = play_out(&base, &human, &id, 12, &log).await;
    assert_eq!(st["status"], "finished");
    assert!(
        moves_of(&st) >= 14,
        "the bot played on after the restart: {st}"
    );
    assert!(log().contains("reconnecting"), "{}", log());
}

/// A wrapper of GNU Go that dies at its sixth `genmove`.
fn dying_engine(dir: &Path) -> PathBuf {
    let p = dir.join("dies-after-5.sh");
    std::fs::write(
        &p,
        format!(
            "#!/bin/bash\ncoproc G {{ {GNUGO} --mode gtp --level 1; }}\nn=0\n\
             while IFS= read -r line; do\n\
               case \"$line\" in *genmove*) n=$((n+1)); if [ $n -gt 5 ]; then echo 'out of memory, bye' >&2; exit 3; fi;; esac\n\
               echo \"$line\" >&\"${{G[1]}}\"\n\
               while IFS= read -r resp <&\"${{G[0]}}\"; do echo \"$resp\"; [ -z \"$resp\" ] && break; done\n\
             done\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_dies_resigns_its_game_and_the_next_gets_a_fresh_one() {
    let (dir, _s, base) = fresh().await;
    let bot = account(&base, "fragilebot", true).await;
    let human = account(&base, "choihuman", false).await;
    let engine = dying_engine(dir.path());
    let b = bridge(
        dir.path(),
        "d",
        &base,
        &bot.token,
        &[],
        &[engine.to_str().unwrap()],
    );
    let log = || b.log();
    online(&base, &bot.name, &log).await;
    let settings = json!({"game": "go", "size": 9, "colour": "black", "clock": "absolute:600"});
    let id = challenge(&base, &human, &bot.name, settings.clone(), &log).await;
    let st = play_out(&base, &human, &id, 40, &log).await;
    assert_eq!(st["result"]["reason"], "resignation", "{}", st["result"]);
    assert_eq!(st["result"]["winner"], "black");
    assert_eq!(
        st["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|_| true)
            .count()
            / 2,
        5,
        "{st}"
    );
    assert!(
        log().contains("out of memory, bye"),
        "the engine's last words: {}",
        log()
    );
    // The next challenge: a fresh engine makes its first move.
    let id2 = challenge(&base, &human, &bot.name, settings, &log).await;
    post(
        &base,
        &format!("/api/games/{id2}/actions"),
        &human.token,
        json!({"action": "E5"}),
    )
    .await;
    until(60, "the fresh engine's first move", &log, || async {
        let st = get(&base, &format!("/api/games/{id2}"), None).await;
        (st["moves"].as_array().map_or(0, |m| m.len()) >= 2).then_some(())
    })
    .await;
}
