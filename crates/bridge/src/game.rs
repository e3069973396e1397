//! One game on the server played by one engine: the game's stream read until the game ends
//! (reconnecting when it breaks), the engine set up and kept in step with the moves, asked
//! for a move with its clock whenever it is the bot's turn, and its chat passed on.

use crate::engine::{Chat, Engine};
use crate::log::Log;
use crate::server::{CallError, Server};
use crate::setup;
use baduk_gtp::ClientError;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Illegal moves in a row the bridge sends before it resigns (the server forfeits the third).
pub const ILLEGAL_TRIES: u32 = 2;
/// How long an engine may think when the game has no clock.
pub const NO_CLOCK_THINK: Duration = Duration::from_secs(600);
/// Set-up commands' time limit.
const SETUP_LIMIT: Duration = Duration::from_secs(60);

/// What starts an engine: the program and its arguments.
#[derive(Clone, Debug)]
pub struct EngineCmd {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// How a game ended for the bridge.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The game finished (its result text).
    Finished(String),
    /// The engine failed and the game was resigned.
    EngineFailed(String),
}

/// The engine's side of the game: what it has been told.
struct Synced {
    engine: Engine,
    /// The moves played into it (the state's `moves`).
    moves: Vec<String>,
    set_up: bool,
}

/// Plays game `id` (as the event stream's `gameStart` gave it, `info`) to its end.
pub async fn play(server: Server, id: String, info: Value, cmd: EngineCmd, log: Log) -> Outcome {
    let (chat_tx, chat_rx) = mpsc::unbounded_channel();
    let chat_task = tokio::spawn(pass_chat(server.clone(), id.clone(), chat_rx, log.clone()));
    let outcome = run(&server, &id, &info, &cmd, chat_tx, &log).await;
    chat_task.abort();
    match &outcome {
        Outcome::Finished(r) => log.game(
            &id,
            "finished",
            &format!("result {r}"),
            json!({"result": r}),
        ),
        Outcome::EngineFailed(why) => log.game(&id, "engine_failed", why, json!({})),
    }
    outcome
}

async fn pass_chat(server: Server, id: String, mut rx: mpsc::UnboundedReceiver<Chat>, log: Log) {
    while let Some(c) = rx.recv().await {
        let (channel, text) = match c {
            Chat::Spectators(t) => ("spectators", t),
            Chat::Players(t) => ("players", t),
        };
        let text: String = text.chars().take(400).collect();
        if let Err(e) = server
            .post(
                &format!("/api/games/{id}/chat"),
                &json!({"text": text, "channel": channel}),
            )
            .await
        {
            log.game(&id, "chat_refused", &e.to_string(), json!({}));
        }
    }
}

async fn run(
    server: &Server,
    id: &str,
    info: &Value,
    cmd: &EngineCmd,
    chat: mpsc::UnboundedSender<Chat>,
    log: &Log,
) -> Outcome {
    let engine = match Engine::start(&cmd.program, &cmd.args, chat.clone()).await {
        Ok(e) => e,
        Err(e) => return resign(server, id, None, &e.to_string(), log).await,
    };
    let mut synced = Synced {
        engine,
        moves: Vec::new(),
        set_up: false,
    };
    let mut acted_at_version = -1i64;
    let mut illegal = 0u32;
    let mut backoff = Duration::from_millis(500);
    loop {
        let mut stream = match server.stream(&format!("/api/stream/games/{id}")).await {
            Ok(s) => s,
            Err(CallError::Refused { status: 404, .. }) => {
                return Outcome::Finished("the game is gone".into())
            }
            Err(e) => {
                log.game(id, "reconnecting", &e.to_string(), json!({}));
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(15));
                continue;
            }
        };
        backoff = Duration::from_millis(500);
        while let Some(line) = stream.next().await {
            let Some(state) = line.get("state") else {
                continue;
            };
            let received = Instant::now();
            if matches!(state["status"].as_str(), Some("finished" | "cancelled")) {
                synced.engine.quit().await;
                return Outcome::Finished(
                    state["result"]["text"].as_str().unwrap_or("?").to_string(),
                );
            }
            let Some(you) = state["you"].as_str().map(str::to_string) else {
                continue;
            };
            let version = state["version"].as_i64().unwrap_or(0);
            // An undo the opponent asks for: accepted, as the server's own bots do.
            if state["undo_request"].as_str().is_some_and(|s| s != you) {
                let _ = act(server, id, "undo-accept").await;
                continue;
            }
            if state["to_move"].as_str() != Some(you.as_str()) || version <= acted_at_version {
                continue;
            }
            let phase = state["phase"].as_str().unwrap_or("");
            let step = match phase {
                "handicap" => place_handicap(server, id, state, &mut synced).await,
                "play" => loop {
                    let r = move_once(server, id, info, state, received, &mut synced, log).await;
                    match r {
                        Ok(Played::Move) => {
                            illegal = 0;
                            break Ok(());
                        }
                        Ok(Played::Illegal(why)) => {
                            illegal += 1;
                            log.game(id, "illegal", &why, json!({"in_a_row": illegal}));
                            // Start the engine's board again from the server's moves, and ask
                            // again (the turn stays the bot's).
                            synced.set_up = false;
                            if illegal > ILLEGAL_TRIES {
                                break Err(format!("{illegal} illegal moves in a row: {why}"));
                            }
                        }
                        Err(e) => break Err(e),
                    }
                },
                _ => Ok(()),
            };
            match step {
                Ok(()) => acted_at_version = version,
                Err(why) => return resign(server, id, Some(synced.engine), &why, log).await,
            }
        }
        log.game(id, "reconnecting", "the game's stream ended", json!({}));
        tokio::time::sleep(backoff).await;
    }
}

enum Played {
    Move,
    Illegal(String),
}

/// Brings the engine to the state's position: set up once (or again after an illegal move or
/// an undo), then the moves it has not seen.
async fn sync(
    server: &Server,
    id: &str,
    info: &Value,
    state: &Value,
    s: &mut Synced,
) -> Result<(), ClientError> {
    let moves: Vec<String> = state["moves"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let handicap = state["handicap"].as_u64().unwrap_or(0);
    if !s.set_up || !moves.starts_with(&s.moves) {
        let e = &mut s.engine;
        let size = setup::square_size(&state["size"])
            .ok_or_else(|| ClientError::Protocol("a rectangular board".into()))?;
        e.send(&format!("boardsize {size}"), SETUP_LIMIT).await?;
        e.send("clear_board", SETUP_LIMIT).await?;
        let komi = state["komi"].as_f64().unwrap_or(0.0);
        e.send(&format!("komi {komi}"), SETUP_LIMIT).await?;
        let rules = state["rules_label"]
            .as_str()
            .or(state["rules"].as_str())
            .unwrap_or("japanese");
        if e.knows("baduk-rules") {
            // Our own engine reads the server's rules string exactly.
            let _ = e.send(&format!("baduk-rules {rules}"), SETUP_LIMIT).await;
        } else if e.knows("kgs-rules") {
            let _ = e
                .send(
                    &format!("kgs-rules {}", setup::kgs_rules(rules)),
                    SETUP_LIMIT,
                )
                .await;
        }
        let clock = info["settings"]["clock"]
            .as_str()
            .or(state["clock"].as_str())
            .unwrap_or("none");
        for c in setup::time_commands(clock, e.knows("kgs-time_settings")) {
            let _ = e.send(&c, SETUP_LIMIT).await;
        }
        if handicap >= 2 {
            let start = server
                .get(&format!("/api/games/{id}?move=0"))
                .await
                .map_err(|e| ClientError::Io(e.to_string()))?;
            let columns = start["columns"]
                .as_str()
                .unwrap_or("ABCDEFGHJKLMNOPQRSTUVWXYZ");
            let stones = setup::black_stones(&start["board"], columns);
            if !stones.is_empty() {
                e.send(
                    &format!("set_free_handicap {}", stones.join(" ")),
                    SETUP_LIMIT,
                )
                .await?;
            }
        }
        s.moves.clear();
        s.set_up = true;
    }
    for (i, m) in moves.iter().enumerate().skip(s.moves.len()) {
        let c = setup::move_colour(i, handicap);
        s.engine.send(&format!("play {c} {m}"), SETUP_LIMIT).await?;
        s.moves.push(m.clone());
    }
    Ok(())
}

/// Asks the engine for a move and sends it.
async fn move_once(
    server: &Server,
    id: &str,
    info: &Value,
    state: &Value,
    received: Instant,
    s: &mut Synced,
    log: &Log,
) -> Result<Played, String> {
    let fail = |e: ClientError, s: &Synced| {
        format!("{e}; the engine's last words: {:?}", s.engine.stderr_tail())
    };
    if let Err(e) = sync(server, id, info, state, s).await {
        return Err(fail(e, s));
    }
    let you = state["you"].as_str().unwrap_or("black");
    let colour = if you == "white" { 'W' } else { 'B' };
    let elapsed = received.elapsed().as_millis() as i64;
    let mut think = NO_CLOCK_THINK;
    for (seat, c) in [("black", 'B'), ("white", 'W')] {
        if let Some((secs, stones)) = setup::time_left(&state["clocks"][seat], elapsed) {
            let _ = s
                .engine
                .send(&format!("time_left {c} {secs} {stones}"), SETUP_LIMIT)
                .await;
            if seat == you {
                // The whole clock (main time and every period) and a margin: past it the
                // server has already ended the game on time.
                let periods = state["clocks"][seat]["periods"]
                    .as_u64()
                    .unwrap_or(0)
                    .max(1);
                let period = state["clocks"][seat]["period_ms"].as_u64().unwrap_or(0) / 1000;
                think = Duration::from_secs(secs + periods * period + 10);
            }
        }
    }
    let t = Instant::now();
    let answer = match s.engine.send(&format!("genmove {colour}"), think).await {
        Ok(a) => a.trim().to_string(),
        Err(e) => return Err(fail(e, s)),
    };
    let action = match answer.to_ascii_lowercase().as_str() {
        "resign" => "resign".to_string(),
        "pass" => "pass".to_string(),
        v if v.len() <= 3 && v.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) => {
            v.to_ascii_uppercase()
        }
        _ => return Err(format!("the engine answered `genmove` with `{answer}`")),
    };
    match act(server, id, &action).await {
        Ok(()) => {
            if action != "resign" {
                s.moves.push(if action == "pass" {
                    "pass".into()
                } else {
                    action.clone()
                });
            }
            let number = state["moves"].as_array().map_or(0, |m| m.len()) + 1;
            log.game(
                id,
                "move",
                &format!(
                    "move {number}: {action} ({:.1} s)",
                    t.elapsed().as_secs_f64()
                ),
                json!({"number": number, "action": action, "seconds": t.elapsed().as_secs_f64()}),
            );
            Ok(Played::Move)
        }
        Err(CallError::Refused {
            status: 422, error, ..
        }) => Ok(Played::Illegal(format!("{action}: {error}"))),
        // The state moved on (a timeout, the opponent's resignation): the stream tells.
        Err(CallError::Refused { status: 409, .. }) => Ok(Played::Move),
        Err(e) => Err(format!("sending {action}: {e}")),
    }
}

/// Black's free handicap stones: where the engine puts them (`place_free_handicap`), one
/// action each.
async fn place_handicap(
    server: &Server,
    id: &str,
    state: &Value,
    s: &mut Synced,
) -> Result<(), String> {
    let left = state["handicap_left"].as_u64().unwrap_or(0);
    if left == 0 {
        return Ok(());
    }
    let size = setup::square_size(&state["size"]).unwrap_or(19);
    let e = &mut s.engine;
    let placed = async {
        e.send(&format!("boardsize {size}"), SETUP_LIMIT).await?;
        e.send("clear_board", SETUP_LIMIT).await?;
        if e.knows("place_free_handicap") {
            e.send(&format!("place_free_handicap {left}"), SETUP_LIMIT)
                .await
        } else {
            e.send(&format!("fixed_handicap {left}"), SETUP_LIMIT).await
        }
    }
    .await
    .map_err(|e| e.to_string())?;
    s.set_up = false;
    for v in placed.split_whitespace() {
        act(server, id, &v.to_ascii_uppercase())
            .await
            .map_err(|e| format!("handicap stone {v}: {e}"))?;
    }
    Ok(())
}

async fn act(server: &Server, id: &str, action: &str) -> Result<(), CallError> {
    server
        .post(
            &format!("/api/games/{id}/actions?ack=1"),
            &json!({ "action": action }),
        )
        .await
        .map(|_| ())
}

/// Resigns the game after the engine failed (`why`), logging the engine's last words.
async fn resign(
    server: &Server,
    id: &str,
    engine: Option<Engine>,
    why: &str,
    log: &Log,
) -> Outcome {
    if let Some(e) = &engine {
        log.game(
            id,
            "engine_stderr",
            &e.stderr_tail().join(" | "),
            json!({"stderr": e.stderr_tail()}),
        );
    }
    if let Some(e) = engine {
        e.quit().await;
    }
    if let Err(e) = act(server, id, "resign").await {
        log.game(id, "resign_refused", &e.to_string(), json!({}));
    }
    Outcome::EngineFailed(why.to_string())
}
