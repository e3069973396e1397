//! Chat of a game: two channels (the players', and the spectators'), stored with the game,
//! length- and rate-limited, plain text; and reports of messages for moderators. docs/api.md,
//! "Chat".

use crate::game::hub::{new_id, now_ms, Handle};
use crate::game::room::ActError;
use crate::players::accounts::{self, Identity};
use crate::players::Auth;
use crate::state::limit::ClientKey;
use crate::state::AppState;
use crate::store::StoreError;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::Row;
use std::sync::Arc;

/// The longest message, in characters.
pub const MAX_CHARS: usize = 500;
/// The most messages one channel of a game's chat keeps (each channel its own: the
/// spectators cannot fill the players' channel).
pub const MAX_MESSAGES: i64 = 2_000;
/// The channels.
pub const CHANNELS: &[&str] = &["players", "spectators"];

/// The routes of chat history and reports.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/games/{id}/chat", get(history).post(say))
        .route("/api/games/{id}/chat/{seq}/report", post(report))
}

/// Whether `c` is an invisible format character a message loses: the bidirectional controls
/// (U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C, which can turn text around) and the other
/// format characters of category Cf that show nothing (zero-width spaces, word joiners,
/// invisible operators, the byte-order mark, tags, interlinear annotations…). The zero-width
/// joiner and non-joiner stay: emoji sequences and Persian need them, and they move nothing.
pub fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{0600}'..='\u{0605}' | '\u{061C}' | '\u{06DD}' | '\u{070F}'
        | '\u{0890}'..='\u{0891}' | '\u{08E2}' | '\u{180E}' | '\u{200B}' | '\u{200E}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}' | '\u{110BD}' | '\u{110CD}'
        | '\u{13430}'..='\u{1343F}' | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0001}' | '\u{E0020}'..='\u{E007F}')
}

/// The text of a message as stored: trimmed, control characters and invisible format
/// characters (bidirectional overrides among them) removed; 400 when empty or too long.
pub fn clean(text: &str) -> Result<String, ActError> {
    let t: String = text
        .chars()
        .filter(|c| (!c.is_control() || *c == '\n') && !is_invisible_format(*c))
        .collect::<String>()
        .trim()
        .to_string();
    if t.is_empty() {
        return Err(ActError::bad_request("chat: the message is empty")
            .with_code("chat.empty", Value::Null));
    }
    if t.chars().count() > MAX_CHARS {
        return Err(
            ActError::bad_request(format!("chat: at most {MAX_CHARS} characters"))
                .with_code("chat.long", json!({"max": MAX_CHARS})),
        );
    }
    Ok(t)
}

fn db(e: sqlx::Error) -> ActError {
    accounts::storage(StoreError::from(e))
}

/// Whether the asker holds a seat of this game (by account, or by a seat token).
async fn is_player(h: &Handle, auth: &Auth, headers: &HeaderMap) -> bool {
    let room = h.room.lock().await;
    if let Some(a) = auth.account_id() {
        if room.seat_of_account(a).is_some() {
            return true;
        }
    }
    let token = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    token.is_some_and(|t| crate::game::hub::Hub::seat_of_token(&room, t.trim()).is_ok())
}

/// Posts a message from a signed-in socket; returns the stored message. `player`: the socket
/// holds a seat (only players write to the players' channel).
pub async fn post_message(
    st: &AppState,
    h: &Arc<Handle>,
    who: &Identity,
    player: bool,
    client: &ClientKey,
    channel: &str,
    text: &str,
) -> Result<Value, ActError> {
    if !CHANNELS.contains(&channel) {
        return Err(ActError::bad_request("chat: channel players or spectators")
            .with_code("chat.channel", Value::Null));
    }
    if channel == "players" && !player {
        return Err(
            ActError::forbidden("chat: only the players write to the players' channel")
                .with_code("chat.channel", Value::Null),
        );
    }
    let text = clean(text)?;
    for r in [
        st.chat_accounts.check(&who.account.id),
        st.chat_clients.check(client),
    ] {
        if let Err(r) = r {
            return Err(r.to_error());
        }
    }
    let id = h.room.lock().await.id.clone();
    let store = &st.hub.store;
    let at = now_ms();
    let mut seq = 0;
    for _ in 0..5 {
        let mut tx = store.writer.begin().await.map_err(db)?;
        let n: i64 = sqlx::query("SELECT COALESCE(MAX(seq), 0) FROM chat WHERE game_id = $1")
            .bind(&id)
            .fetch_one(&mut *tx)
            .await
            .map_err(db)?
            .try_get(0)
            .map_err(db)?;
        let in_channel: i64 =
            sqlx::query("SELECT COUNT(*) FROM chat WHERE game_id = $1 AND channel = $2")
                .bind(&id)
                .bind(channel)
                .fetch_one(&mut *tx)
                .await
                .map_err(db)?
                .try_get(0)
                .map_err(db)?;
        if in_channel >= MAX_MESSAGES {
            return Err(ActError::too_many(format!(
                "chat: this game's {channel} channel is full ({MAX_MESSAGES} messages a channel)"
            ))
            .with_code(
                "chat.full",
                json!({"channel": channel, "max": MAX_MESSAGES}),
            ));
        }
        let done = sqlx::query(
            "INSERT INTO chat (game_id, seq, channel, account_id, name, text, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&id)
        .bind(n + 1)
        .bind(channel)
        .bind(&who.account.id)
        .bind(&who.account.name)
        .bind(&text)
        .bind(at)
        .execute(&mut *tx)
        .await;
        match done {
            Ok(_) => {
                seq = n + 1;
                // The other processes' watchers hear of it from the bus, when it commits.
                let event = chat_event(seq, channel, &who.account, &text, at);
                if let Some(p) = crate::cluster::bus::chat_payload(
                    &id,
                    &st.hub.cluster.node,
                    channel == "players",
                    &event,
                ) {
                    store
                        .notify_payload(&mut tx, &p)
                        .await
                        .map_err(accounts::storage)?;
                }
                tx.commit().await.map_err(db)?;
                break;
            }
            Err(sqlx::Error::Database(d)) if d.is_unique_violation() => continue,
            Err(e) => return Err(db(e)),
        }
    }
    if seq == 0 {
        return Err(ActError::conflict("chat: busy, try again"));
    }
    let event: Arc<str> = chat_event(seq, channel, &who.account, &text, at).into();
    let _ = h.chat.send((channel == "players", event));
    Ok(chat_message(
        seq,
        channel,
        (&who.account.name, who.account.bot),
        &text,
        at,
    ))
}

/// One stored chat message as clients read it (`bot`: its author is a bot account).
fn chat_message(seq: i64, channel: &str, (name, bot): (&str, bool), text: &str, at: i64) -> Value {
    json!({"seq": seq, "channel": channel, "name": name, "text": text, "at": at, "bot": bot})
}

/// The socket message that brings one chat message to watchers.
fn chat_event(seq: i64, channel: &str, author: &accounts::Account, text: &str, at: i64) -> String {
    let m = chat_message(seq, channel, (&author.name, author.bot), text, at);
    json!({"type": "chat", "message": m}).to_string()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SayReq {
    text: String,
    /// `players` (a seat's holder only) or `spectators` (the default).
    #[serde(default)]
    channel: Option<String>,
}

/// `POST /api/games/{id}/chat` `{"text", "channel"}`: a message from a signed-in account (a
/// bot's with its `bot` token), as the game socket's `chat` sends one; `201 {"message"}`.
async fn say(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ActError> {
    let who = auth.require()?;
    who.may_play()?;
    let req: SayReq = crate::state::parse_json(&body)?;
    let h = st.hub.get(&id).await?;
    let player = is_player(&h, &auth, &headers).await;
    let channel = req.channel.as_deref().unwrap_or("spectators");
    let m = post_message(&st, &h, who, player, &client, channel, &req.text).await?;
    Ok((StatusCode::CREATED, Json(json!({ "message": m }))).into_response())
}

async fn history(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let h = st.hub.get(&id).await?;
    let player = is_player(&h, &auth, &headers).await;
    let rows = sqlx::query(
        "SELECT c.seq, c.channel, c.name, c.text, c.at, COALESCE(a.bot, 0) FROM chat c \
         LEFT JOIN accounts a ON a.id = c.account_id WHERE c.game_id = $1 ORDER BY c.seq",
    )
    .bind(&id)
    .fetch_all(&st.hub.store.pool)
    .await
    .map_err(db)?;
    let mut out = Vec::new();
    for r in rows {
        let channel: String = r.try_get(1).map_err(db)?;
        if channel == "players" && !player {
            continue;
        }
        out.push(json!({"seq": r.try_get::<i64, _>(0).map_err(db)?, "channel": channel,
            "name": r.try_get::<String, _>(2).map_err(db)?, "text": r.try_get::<String, _>(3).map_err(db)?,
            "at": r.try_get::<i64, _>(4).map_err(db)?, "bot": r.try_get::<i64, _>(5).map_err(db)? != 0}));
    }
    Ok(Json(json!({ "messages": out })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportReq {
    #[serde(default)]
    reason: Option<String>,
}

async fn report(
    State(st): State<AppState>,
    Extension(auth): Extension<Auth>,
    Extension(client): Extension<ClientKey>,
    Path((id, seq)): Path<(String, i64)>,
    body: Bytes,
) -> Result<Response, ActError> {
    let who = auth.require()?;
    let req: ReportReq = if body.is_empty() {
        ReportReq { reason: None }
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ActError::bad_request(format!("bad JSON body: {e}")))?
    };
    let reason: String = req
        .reason
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    if reason.chars().count() > MAX_CHARS {
        return Err(ActError::bad_request(format!(
            "reason: at most {MAX_CHARS} characters"
        )));
    }
    if let Err(r) = st.budgets.creates.check(&client) {
        return Ok(crate::state::too_many(r));
    }
    let exists = sqlx::query("SELECT 1 FROM chat WHERE game_id = $1 AND seq = $2")
        .bind(&id)
        .bind(seq)
        .fetch_optional(&st.hub.store.pool)
        .await
        .map_err(db)?;
    if exists.is_none() {
        return Err(ActError::not_found("no such chat message"));
    }
    sqlx::query(
        "INSERT INTO reports (id, game_id, seq, reporter_id, reason, at) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(new_id())
    .bind(&id)
    .bind(seq)
    .bind(&who.account.id)
    .bind(&reason)
    .bind(now_ms())
    .execute(&st.hub.store.writer)
    .await
    .map_err(db)?;
    Ok((StatusCode::CREATED, Json(json!({"ok": true}))).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_trimmed_cleaned_and_capped() {
        assert_eq!(clean("  hi\u{7}  ").unwrap(), "hi");
        assert_eq!(clean("<b>x</b>").unwrap(), "<b>x</b>");
        assert_eq!(clean(" \u{0} ").unwrap_err().code, "chat.empty");
        assert_eq!(clean(&"가".repeat(501)).unwrap_err().code, "chat.long");
        assert!(clean(&"가".repeat(500)).is_ok());
    }

    #[test]
    fn bidi_controls_and_invisible_format_characters_are_removed() {
        assert_eq!(clean("a\u{202E}cba\u{202C}!").unwrap(), "acba!");
        for c in [
            '\u{202A}',
            '\u{2066}',
            '\u{2069}',
            '\u{200B}',
            '\u{FEFF}',
            '\u{2060}',
            '\u{E0041}',
        ] {
            assert_eq!(
                clean(&format!("x{c}y")).unwrap(),
                "xy",
                "U+{:04X}",
                c as u32
            );
        }
        assert_eq!(clean("\u{202E}\u{200B}").unwrap_err().code, "chat.empty");
        // Emoji sequences keep their joiner.
        assert_eq!(clean("👩\u{200D}💻").unwrap(), "👩\u{200D}💻");
    }
}
