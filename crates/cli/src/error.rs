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

/// Reads an SGF file: raw bytes decoded by its `CA` charset, then game `game` (1-based; the
/// first by default) of its collection. When the file holds several games and none was chosen,
/// a note on stderr says how many and which is used. Errors name the file, line and property.
pub fn read_sgf(
    path: &std::path::Path,
    game: Option<usize>,
) -> Result<baduk_go::SgfGame, CliError> {
    let bytes =
        std::fs::read(path).map_err(|e| CliError::input(format!("{}: {e}", path.display())))?;
    let bad = |e: baduk_go::SgfError| CliError::input(format!("{}: {e}", path.display()));
    let text = baduk_go::sgf::decode(&bytes).map_err(bad)?;
    let index = match game {
        Some(0) => return Err(CliError::input("--game: games are numbered from 1")),
        Some(n) => n - 1,
        None => 0,
    };
    let g = baduk_go::SgfGame::parse_game(&text, index).map_err(bad)?;
    if game.is_none() && g.games > 1 {
        eprintln!(
            "{}: the file holds {} games; using game 1 (choose another with --game N)",
            path.display(),
            g.games
        );
    }
    Ok(g)
}
