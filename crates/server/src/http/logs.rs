//! The server's logs: `tracing` events on standard error, as text or as one JSON object a line,
//! filtered by a `RUST_LOG`-style directive; and a log line for every HTTP request.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use std::time::Instant;

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object a line (`timestamp`, `level`, `target`, `fields`), for a log collector.
    Json,
}

impl std::str::FromStr for LogFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<LogFormat, String> {
        match s {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            _ => Err(format!("log format `{s}`: expected text or json")),
        }
    }
}

/// Starts logging to standard error. `filter` is a directive such as `info` or
/// `info,baduk::http=debug` (default: `RUST_LOG`, else `info`). Fails on a bad directive or
/// when logging was already started.
pub fn init(format: LogFormat, filter: Option<&str>) -> Result<(), String> {
    use tracing_subscriber::EnvFilter;
    let filter = match filter {
        Some(f) => EnvFilter::try_new(f).map_err(|e| format!("--log `{f}`: {e}"))?,
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let done = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    done.map_err(|e| format!("logging: {e}"))
}

/// Logs each request under target `baduk::http`: method, route (the pattern, never the query,
/// which may hold a token), status and microseconds; `debug` for answers below 500, `warn`
/// for a server failure.
pub async fn log_request(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "(no route)".to_string(), |m| m.as_str().to_string());
    let res = next.run(req).await;
    let status = res.status().as_u16();
    let micros = started.elapsed().as_micros() as u64;
    if status >= 500 {
        tracing::warn!(target: "baduk::http", %method, route, status, micros, "request failed");
    } else {
        tracing::debug!(target: "baduk::http", %method, route, status, micros, "request");
    }
    res
}
