//! The bridge's log: a line per event on standard output, as text for a terminal or as JSON
//! objects for a service's journal (`--log-format json`).

use serde_json::{json, Value};
use std::io::Write;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// `12:03:04 game abc123: move 23: D4 (1.2 s)`.
    Text,
    /// `{"at": MS, "event": "move", "game": "abc123", "message": "…", …}`.
    Json,
}

/// Where the bridge tells what it does.
#[derive(Clone, Debug)]
pub struct Log {
    format: LogFormat,
}

impl Log {
    /// A log in `format`.
    pub fn new(format: LogFormat) -> Log {
        Log { format }
    }

    /// A line about the bridge itself.
    pub fn info(&self, event: &str, message: &str, extra: Value) {
        self.write(None, event, message, extra);
    }

    /// A line about game `id`.
    pub fn game(&self, id: &str, event: &str, message: &str, extra: Value) {
        self.write(Some(id), event, message, extra);
    }

    fn write(&self, game: Option<&str>, event: &str, message: &str, extra: Value) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let line = match self.format {
            LogFormat::Json => {
                let mut v =
                    json!({"at": now.as_millis() as u64, "event": event, "message": message});
                if let Some(g) = game {
                    v["game"] = json!(g);
                }
                if let Value::Object(m) = extra {
                    for (k, x) in m {
                        v[k] = x;
                    }
                }
                v.to_string()
            }
            LogFormat::Text => {
                let s = now.as_secs() % 86_400;
                let clock = format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
                match game {
                    Some(g) => format!("{clock} game {g}: {message}"),
                    None => format!("{clock} {message}"),
                }
            }
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}
