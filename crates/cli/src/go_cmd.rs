//! `baduk go …` and `baduk bench go`: the Go commands.

use crate::CliError;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Go subcommands.
#[derive(Subcommand, Debug)]
pub enum GoCmd {
    /// Replay every move of an SGF file under the rules; print the final position.
    Replay {
        /// The SGF file.
        file: PathBuf,
        /// Rules string, e.g. `chinese,komi=6.5` (default: the file's RU).
        #[arg(long)]
        rules: Option<String>,
    },
}

/// Arguments of `baduk bench go`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Board size.
    #[arg(long, default_value_t = 9)]
    pub size: usize,
    /// Number of playouts.
    #[arg(long, default_value_t = 10000)]
    pub playouts: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs one Go subcommand.
pub fn run(cmd: GoCmd) -> Result<(), CliError> {
    match cmd {
        GoCmd::Replay { file, .. } => {
            crate::error::read_file(&file)?;
            Err(CliError::input("go replay: not built yet"))
        }
    }
}

/// Runs `baduk bench go`.
pub fn bench(_args: BenchArgs) -> Result<(), CliError> {
    Err(CliError::input("bench go: not built yet"))
}
