//! A GTP engine in a child process, driven asynchronously: one command at a time with a time
//! limit, its standard error read line by line (the tail kept for the log, `MALKOVICH:` and
//! `DISCUSSION:` lines passed on for the game's chat).

use baduk_gtp::{parse_answer, ClientError};
use std::collections::{HashSet, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

/// Lines of the engine's standard error kept for the log when it fails.
pub const STDERR_TAIL: usize = 20;
/// The longest line read from the engine (standard output or error); longer is garbage.
pub const MAX_LINE: usize = 64 * 1024;
/// Lines one answer may have at most.
pub const MAX_ANSWER_LINES: usize = 1000;

/// A line the engine wrote on its standard error for the game's chat (gtp2ogs's convention).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chat {
    /// `MALKOVICH: …`: for the spectators.
    Spectators(String),
    /// `DISCUSSION: …`: for the players.
    Players(String),
}

impl Chat {
    /// The chat line of one standard-error line, if it is one.
    pub fn of(line: &str) -> Option<Chat> {
        if let Some(t) = line.strip_prefix("MALKOVICH:") {
            Some(Chat::Spectators(t.trim().to_string()))
        } else {
            line.strip_prefix("DISCUSSION:")
                .map(|t| Chat::Players(t.trim().to_string()))
        }
        .filter(|c| !matches!(c, Chat::Spectators(t) | Chat::Players(t) if t.is_empty()))
    }
}

/// A running engine.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    tail: Arc<Mutex<VecDeque<String>>>,
    /// The commands the engine lists (`list_commands`).
    pub commands: HashSet<String>,
    /// The program, for the log.
    pub program: String,
}

impl Engine {
    /// Starts `program` with `args`; its chat lines go to `chat`. Asks for its commands.
    pub async fn start(
        program: &str,
        args: &[String],
        chat: mpsc::UnboundedSender<Chat>,
    ) -> Result<Engine, ClientError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Spawn(format!("{program}: {e}")))?;
        let stdin = child
            .stdin
            .take()
            .ok_or(ClientError::Spawn("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or(ClientError::Spawn("no stdout".into()))?;
        let stderr = child
            .stderr
            .take()
            .ok_or(ClientError::Spawn("no stderr".into()))?;
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        {
            let tail = tail.clone();
            tokio::spawn(async move {
                let mut r = BufReader::new(stderr);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match read_line_capped(&mut r, &mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                    if let Some(c) = Chat::of(&line) {
                        let _ = chat.send(c);
                    }
                    let mut t = tail.lock().expect("stderr tail");
                    if t.len() == STDERR_TAIL {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            });
        }
        let mut e = Engine {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            next_id: 1,
            tail,
            commands: HashSet::new(),
            program: program.to_string(),
        };
        let list = e.send("list_commands", Duration::from_secs(30)).await?;
        e.commands = list.lines().map(|l| l.trim().to_string()).collect();
        Ok(e)
    }

    /// Whether the engine knows `command`.
    pub fn knows(&self, command: &str) -> bool {
        self.commands.contains(command)
    }

    /// Sends `command` and returns the text of its `=` answer, or why not: the engine's
    /// failure, its exit, garbage, or no answer within `limit`.
    pub async fn send(&mut self, command: &str, limit: Duration) -> Result<String, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let line = format!("{id} {command}\n");
        let exchange = async {
            self.stdin
                .write_all(line.as_bytes())
                .await
                .map_err(|e| ClientError::Io(e.to_string()))?;
            self.stdin
                .flush()
                .await
                .map_err(|e| ClientError::Io(e.to_string()))?;
            let mut lines: Vec<String> = Vec::new();
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let n = read_line_capped(&mut self.stdout, &mut buf)
                    .await
                    .map_err(|e| ClientError::Io(e.to_string()))?;
                if n == 0 {
                    return Err(ClientError::Io(format!(
                        "the engine closed its output during `{command}`"
                    )));
                }
                let text = String::from_utf8_lossy(&buf)
                    .trim_end_matches(['\n', '\r'])
                    .to_string();
                if text.trim().is_empty() {
                    if lines.is_empty() {
                        continue;
                    }
                    break;
                }
                if lines.len() == MAX_ANSWER_LINES {
                    return Err(ClientError::Protocol(format!(
                        "an answer of over {MAX_ANSWER_LINES} lines to `{command}`"
                    )));
                }
                lines.push(text);
            }
            parse_answer(&lines, id, command)
        };
        match tokio::time::timeout(limit, exchange).await {
            Ok(r) => r,
            Err(_) => Err(ClientError::Io(format!(
                "no answer to `{command}` within {:.0} s",
                limit.as_secs_f64()
            ))),
        }
    }

    /// The last lines of the engine's standard error.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.tail
            .lock()
            .expect("stderr tail")
            .iter()
            .cloned()
            .collect()
    }

    /// Asks the engine to quit, then ends it.
    pub async fn quit(mut self) {
        let _ = self.send("quit", Duration::from_secs(2)).await;
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        let _ = self.child.kill().await;
    }
}

/// Reads one line into `buf` (newline included), at most [`MAX_LINE`] bytes: a longer line is
/// an error. 0: the end of the stream.
async fn read_line_capped<R: tokio::io::AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
) -> std::io::Result<usize> {
    loop {
        let avail = r.fill_buf().await?;
        if avail.is_empty() {
            return Ok(buf.len());
        }
        let (take, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        buf.extend_from_slice(&avail[..take]);
        r.consume(take);
        if buf.len() > MAX_LINE {
            return Err(std::io::Error::other(format!(
                "a line of over {MAX_LINE} bytes"
            )));
        }
        if done {
            return Ok(buf.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_lines_follow_gtp2ogs() {
        assert_eq!(
            Chat::of("MALKOVICH: B wins 60%"),
            Some(Chat::Spectators("B wins 60%".into()))
        );
        assert_eq!(
            Chat::of("DISCUSSION:hello"),
            Some(Chat::Players("hello".into()))
        );
        assert_eq!(Chat::of("MALKOVICH:   "), None);
        assert_eq!(Chat::of("info: playouts 100"), None);
    }
}
