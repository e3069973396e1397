//! What every WebSocket of the server does alike: a send bounded in time, and the ping that
//! closes a silent socket.

use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket};
use std::time::Duration;

/// Sends one message within the send timeout; false: the socket is gone or too slow.
pub async fn send_within(socket: &mut WebSocket, msg: Message, limit: Duration) -> bool {
    matches!(
        tokio::time::timeout(limit, socket.send(msg)).await,
        Ok(Ok(()))
    )
}

/// A socket's ping tick: one silent (no message, no pong) for `idle` is closed, any other is
/// pinged. False: closed, gone or too slow.
pub async fn ping_or_close(
    socket: &mut WebSocket,
    heard: tokio::time::Instant,
    idle: Duration,
    send_limit: Duration,
) -> bool {
    if heard.elapsed() >= idle {
        let bye = Message::Close(Some(axum::extract::ws::CloseFrame {
            code: 1001,
            reason: "idle: nothing heard from this socket".into(),
        }));
        let _ = send_within(socket, bye, send_limit).await;
        return false;
    }
    send_within(socket, Message::Ping(Bytes::new()), send_limit).await
}
