//! The command-line error: a message and the exit code it maps to.

use std::fmt;

/// A failed command: what to print on stderr and the process exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// Exit code: 1 for an illegal move or action, 2 for unreadable input or bad arguments.
    pub code: i32,
    /// The message printed on stderr.
    pub message: String,
}

impl CliError {
    /// An illegal move or action in otherwise readable input (exit code 1).
    pub fn illegal(message: impl fmt::Display) -> Self {
        CliError {
            code: 1,
            message: message.to_string(),
        }
    }

    /// Unreadable input, a bad argument or a failed I/O (exit code 2).
    pub fn input(message: impl fmt::Display) -> Self {
        CliError {
            code: 2,
            message: message.to_string(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Reads a whole file, mapping failure to an input error that names the path.
pub fn read_file(path: &std::path::Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError::input(format!("{}: {e}", path.display())))
}
