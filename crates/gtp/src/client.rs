//! A GTP client: drives another engine (e.g. GNU Go) running as a child process.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command as Process, Stdio};

/// Why talking to a child engine failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientError {
    /// The command line was empty or the program could not be started.
    Spawn(String),
    /// Reading from or writing to the engine failed, or it closed its output.
    Io(String),
    /// The engine answered `? message` to `command`.
    Failure {
        /// The command that was refused.
        command: String,
        /// The engine's error text.
        message: String,
    },
    /// The engine's answer did not follow GTP.
    Protocol(String),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Spawn(m) => write!(f, "cannot start engine: {m}"),
            ClientError::Io(m) => write!(f, "engine i/o: {m}"),
            ClientError::Failure { command, message } => {
                write!(f, "engine refused `{command}`: {message}")
            }
            ClientError::Protocol(m) => write!(f, "engine broke GTP: {m}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// The answer to command number `id` (`command`), from its non-empty `lines`: the text of a
/// `=` answer, or the engine's failure.
pub fn parse_answer(lines: &[String], id: u64, command: &str) -> Result<String, ClientError> {
    let Some(first) = lines.first() else {
        return Err(ClientError::Protocol(format!("no answer to `{command}`")));
    };
    let (ok, rest) = match first.chars().next() {
        Some('=') => (true, &first[1..]),
        Some('?') => (false, &first[1..]),
        _ => return Err(ClientError::Protocol(format!("unexpected line `{first}`"))),
    };
    let digits = rest.bytes().take_while(|b| b.is_ascii_digit()).count();
    if rest[..digits].parse::<u64>().ok() != Some(id) && digits > 0 {
        return Err(ClientError::Protocol(format!(
            "answer id {} does not match {id}",
            &rest[..digits]
        )));
    }
    let mut text = rest[digits..].trim().to_string();
    for l in &lines[1..] {
        text.push('\n');
        text.push_str(l);
    }
    if ok {
        Ok(text)
    } else {
        Err(ClientError::Failure {
            command: command.to_string(),
            message: text,
        })
    }
}

/// A running GTP engine with its standard input and output.
pub struct GtpClient {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    /// The command line the engine was started with.
    pub command_line: String,
}

impl GtpClient {
    /// Starts `command_line` (program and arguments separated by spaces).
    pub fn spawn(command_line: &str) -> Result<GtpClient, ClientError> {
        let mut parts = command_line.split_whitespace();
        let program = parts
            .next()
            .ok_or_else(|| ClientError::Spawn("empty command line".into()))?;
        let mut child = Process::new(program)
            .args(parts)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ClientError::Spawn(format!("{program}: {e}")))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| ClientError::Spawn("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| ClientError::Spawn("no stdout".into()))?;
        Ok(GtpClient {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            next_id: 1,
            command_line: command_line.to_string(),
        })
    }

    /// Sends one command and returns the text of a `=` answer, or the failure.
    pub fn send(&mut self, command: &str) -> Result<String, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(self.stdin, "{id} {command}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| ClientError::Io(e.to_string()))?;
        let mut lines: Vec<String> = Vec::new();
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| ClientError::Io(e.to_string()))?;
            if n == 0 {
                return Err(ClientError::Io(format!(
                    "engine closed its output during `{command}`"
                )));
            }
            let line = line.trim_end_matches(['\n', '\r']).to_string();
            if line.trim().is_empty() {
                if lines.is_empty() {
                    continue;
                }
                break;
            }
            lines.push(line);
        }
        parse_answer(&lines, id, command)
    }

    /// Sends `quit` and waits for the engine to exit.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

impl Drop for GtpClient {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = writeln!(self.stdin, "quit");
            let _ = self.stdin.flush();
            std::thread::sleep(std::time::Duration::from_millis(20));
            if let Ok(None) = self.child.try_wait() {
                let _ = self.child.kill();
            }
            let _ = self.child.wait();
        }
    }
}
