//! The server's Bot API as the bridge uses it: HTTP calls with the bot's token, and NDJSON
//! streams read line by line.

use serde_json::Value;
use std::time::Duration;

/// The longest NDJSON line read from the server; longer ends the stream (the server's states
/// are far smaller).
pub const MAX_STREAM_LINE: usize = 4 << 20;

/// How long a stream may stay silent before the bridge takes it for dead (the server sends a
/// keep-alive line at least every 7 s).
pub const STREAM_SILENCE: Duration = Duration::from_secs(30);

/// A server and the bot's token.
#[derive(Clone)]
pub struct Server {
    http: reqwest::Client,
    base: String,
    token: String,
}

/// Why a call failed: the server's refusal (status, `code`, `error`) or no answer.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// The server answered with an error status.
    Refused {
        /// The status.
        status: u16,
        /// The error's `code`.
        code: String,
        /// The error's sentence.
        error: String,
    },
    /// No answer (connection refused, dropped, timed out).
    Unreachable(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Refused {
                status,
                code,
                error,
            } => write!(f, "{status} {code}: {error}"),
            CallError::Unreachable(m) => write!(f, "server unreachable: {m}"),
        }
    }
}

impl Server {
    /// The server at `base` (`http://host:port`), acting with `token`.
    pub fn new(base: &str, token: &str) -> Result<Server, String> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("an HTTP client: {e}"))?;
        Ok(Server {
            http,
            base: base.trim_end_matches('/').to_string(),
            token: token.to_string(),
        })
    }

    /// The server at `base` acting with `token` through `http` (a client of the caller's: a
    /// load generator's, bound to an address of its own).
    pub fn with_client(http: reqwest::Client, base: &str, token: &str) -> Server {
        Server {
            http,
            base: base.trim_end_matches('/').to_string(),
            token: token.to_string(),
        }
    }

    /// The server's address.
    pub fn base(&self) -> &str {
        &self.base
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, CallError> {
        let mut r = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .timeout(Duration::from_secs(30));
        if let Some(b) = body {
            r = r.json(b);
        }
        let resp = r
            .send()
            .await
            .map_err(|e| CallError::Unreachable(e.to_string()))?;
        let status = resp.status().as_u16();
        let v: Value = resp.json().await.unwrap_or(Value::Null);
        if (200..300).contains(&status) {
            Ok(v)
        } else {
            Err(CallError::Refused {
                status,
                code: v["code"].as_str().unwrap_or("").to_string(),
                error: v["error"].as_str().unwrap_or("").to_string(),
            })
        }
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Result<Value, CallError> {
        self.call(reqwest::Method::GET, path, None).await
    }

    /// `POST path` with a JSON body.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, CallError> {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }

    /// `PUT path` with a JSON body.
    pub async fn put(&self, path: &str, body: &Value) -> Result<Value, CallError> {
        self.call(reqwest::Method::PUT, path, Some(body)).await
    }

    /// Opens the NDJSON stream at `path`.
    pub async fn stream(&self, path: &str) -> Result<Stream, CallError> {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|e| CallError::Unreachable(e.to_string()))?;
        let status = resp.status().as_u16();
        if status != 200 {
            let v: Value = resp.json().await.unwrap_or(Value::Null);
            return Err(CallError::Refused {
                status,
                code: v["code"].as_str().unwrap_or("").to_string(),
                error: v["error"].as_str().unwrap_or("").to_string(),
            });
        }
        Ok(Stream {
            resp,
            buf: Vec::new(),
        })
    }
}

/// An NDJSON stream: one JSON object a line; empty lines keep it alive.
pub struct Stream {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl Stream {
    /// The next object; None when the stream ends, breaks, stays silent past
    /// [`STREAM_SILENCE`] or sends a line that is not JSON or too long.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = String::from_utf8_lossy(&line);
                if text.trim().is_empty() {
                    continue;
                }
                return serde_json::from_str(text.trim()).ok();
            }
            if self.buf.len() > MAX_STREAM_LINE {
                return None;
            }
            match tokio::time::timeout(STREAM_SILENCE, self.resp.chunk()).await {
                Ok(Ok(Some(c))) => self.buf.extend_from_slice(&c),
                _ => return None,
            }
        }
    }
}
