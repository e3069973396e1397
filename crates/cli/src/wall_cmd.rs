//! `baduk wall …`, `baduk bench wall` and `baduk bench search`: the Wall Go commands.

use crate::CliError;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Wall Go subcommands.
#[derive(Subcommand, Debug)]
pub enum WallCmd {
    /// Validate a record and print the final board and score.
    Replay {
        /// The record file.
        file: PathBuf,
    },
}

/// Arguments of `baduk bench wall`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Number of random games.
    #[arg(long, default_value_t = 20000)]
    pub games: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Arguments of `baduk bench search`.
#[derive(Args, Debug)]
pub struct BenchSearchArgs {
    /// Search depth.
    #[arg(long, default_value_t = 4)]
    pub depth: u32,
}

/// Runs one Wall Go subcommand.
pub fn run(cmd: WallCmd) -> Result<(), CliError> {
    match cmd {
        WallCmd::Replay { .. } => Err(CliError::input("wall replay: not built yet")),
    }
}

/// Runs `baduk bench wall`.
pub fn bench(_args: BenchArgs) -> Result<(), CliError> {
    Err(CliError::input("bench wall: not built yet"))
}

/// Runs `baduk bench search`.
pub fn bench_search(_args: BenchSearchArgs) -> Result<(), CliError> {
    Err(CliError::input("bench search: not built yet"))
}
