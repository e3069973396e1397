//! `baduk bot connect`: runs any GTP engine as a bot on a baduk server, over the server's Bot
//! API (docs/bots.md). It tells the server what the bot accepts, follows the account's event
//! stream, accepts the challenges its filters allow and declines the rest with the reason,
//! starts one engine per game (up to `max_games`), plays each game from the game's stream, and
//! reconnects after a dropped connection or a server restart, picking its games up again.

pub mod engine;
pub mod game;
pub mod log;
pub mod server;
pub mod setup;

use game::EngineCmd;
use log::Log;
use serde_json::{json, Value};
use server::{CallError, Server};
use setup::Filters;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What `baduk bot connect` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    /// The server (`http://host:port`).
    pub server: String,
    /// The bot's API token (scope `bot`).
    pub token: String,
    /// The challenges it accepts.
    pub filters: Filters,
    /// The engine started for each game.
    pub engine: EngineCmd,
    /// How the log is written.
    pub log: log::LogFormat,
}

/// The longest wait between two reconnection attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(15);

/// Runs the bridge until the process ends; an error only for what retrying cannot mend (the
/// token refused, the account not a bot).
pub async fn run(opts: Options) -> Result<(), String> {
    let server = Server::new(&opts.server, &opts.token)?;
    let log = Log::new(opts.log);
    let me = tell_accepts(&server, &opts.filters, &log).await?;
    log.info(
        "connected",
        &format!(
            "{me} on {}: accepting {} (at most {} games at once); engine {}",
            server.base(),
            opts.filters.accepts_json(),
            opts.filters.max_games,
            opts.engine.program
        ),
        json!({"bot": me}),
    );
    let running: Arc<Mutex<HashSet<String>>> = Arc::default();
    let mut backoff = Duration::from_millis(500);
    loop {
        let mut stream = match server.stream("/api/stream/events").await {
            Ok(s) => s,
            Err(CallError::Refused {
                status,
                code,
                error,
            }) if status == 401 || status == 403 => {
                return Err(format!("the server refused the token: {code}: {error}"));
            }
            Err(e) => {
                log.info("reconnecting", &format!("event stream: {e}"), json!({}));
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                continue;
            }
        };
        backoff = Duration::from_millis(500);
        while let Some(ev) = stream.next().await {
            match ev["type"].as_str() {
                Some("challenge") => {
                    on_challenge(
                        &server,
                        &me,
                        &ev["challenge"],
                        &opts.filters,
                        &running,
                        &log,
                    )
                    .await
                }
                Some("gameStart") => {
                    let id = ev["game"]["id"].as_str().unwrap_or_default().to_string();
                    if id.is_empty() || !running.lock().expect("games").insert(id.clone()) {
                        continue;
                    }
                    let info = ev["game"].clone();
                    let opponent = info["opponent"]["name"].as_str().unwrap_or("?").to_string();
                    log.game(
                        &id,
                        "start",
                        &format!(
                            "start against {opponent} ({} {}, {}), as {}",
                            size_text(&info["settings"]["size"]),
                            info["settings"]["rules"].as_str().unwrap_or("?"),
                            info["settings"]["clock"].as_str().unwrap_or("no clock"),
                            info["seat"].as_str().unwrap_or("?")
                        ),
                        json!({"opponent": opponent}),
                    );
                    let (server, cmd, log, running) = (
                        server.clone(),
                        opts.engine.clone(),
                        log.clone(),
                        running.clone(),
                    );
                    tokio::spawn(async move {
                        game::play(server, id.clone(), info, cmd, log).await;
                        running.lock().expect("games").remove(&id);
                    });
                }
                Some(other) => log.info(other, &format!("{other}: {}", brief(&ev)), json!({})),
                None => {}
            }
        }
        log.info("reconnecting", "the event stream ended", json!({}));
        tokio::time::sleep(backoff).await;
    }
}

/// Tells the server what the bot accepts and returns the bot's name; retries while the server
/// cannot be reached.
async fn tell_accepts(server: &Server, filters: &Filters, log: &Log) -> Result<String, String> {
    let mut backoff = Duration::from_millis(500);
    loop {
        let r = async {
            let me = server.get("/api/me").await?;
            server
                .put("/api/account/bot/accepts", &filters.accepts_json())
                .await?;
            Ok::<Value, CallError>(me)
        }
        .await;
        match r {
            Ok(me) => {
                let name = me["name"]
                    .as_str()
                    .or(me["account"]["name"].as_str())
                    .unwrap_or("?");
                return Ok(name.to_string());
            }
            Err(CallError::Refused {
                status,
                code,
                error,
            }) if (400..500).contains(&status) => {
                return Err(format!(
                    "the server refused the bot: {status} {code}: {error}"
                ));
            }
            Err(e) => {
                log.info("reconnecting", &e.to_string(), json!({}));
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

/// Accepts an open challenge to the bot that its filters allow, declines the others with the
/// reason.
async fn on_challenge(
    server: &Server,
    me: &str,
    c: &Value,
    filters: &Filters,
    running: &Arc<Mutex<HashSet<String>>>,
    log: &Log,
) {
    let id = c["id"].as_str().unwrap_or_default();
    if c["status"].as_str() != Some("open") || c["challenger"]["name"].as_str() == Some(me) {
        return;
    }
    let from = c["challenger"]["name"].as_str().unwrap_or("?");
    let playing = running.lock().expect("games").len();
    match filters.check(c, playing) {
        Ok(()) => match server
            .post(&format!("/api/challenges/{id}/accept"), &json!({}))
            .await
        {
            Ok(_) => log.info(
                "accepted",
                &format!("accepted {from}'s challenge {id}"),
                json!({"challenge": id}),
            ),
            Err(e) => log.info(
                "accept_failed",
                &format!("challenge {id}: {e}"),
                json!({"challenge": id}),
            ),
        },
        Err((code, text)) => {
            let _ = server
                .post(
                    &format!("/api/challenges/{id}/decline"),
                    &json!({"reason": code, "text": text}),
                )
                .await;
            log.info(
                "declined",
                &format!("declined {from}'s challenge {id}: {text}"),
                json!({"challenge": id, "reason": code}),
            );
        }
    }
}

fn size_text(v: &Value) -> String {
    match setup::square_size(v) {
        Some(n) => format!("{n}×{n}"),
        None => v.to_string(),
    }
}

fn brief(ev: &Value) -> String {
    let c = &ev["challenge"];
    if c.is_object() {
        format!(
            "challenge {} from {}",
            c["id"].as_str().unwrap_or("?"),
            c["challenger"]["name"].as_str().unwrap_or("?")
        )
    } else {
        ev["game"]["id"].as_str().unwrap_or("").to_string()
    }
}
