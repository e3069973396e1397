//! `baduk wall train`, `baduk arena wall` and `baduk bench search`.

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `wall train` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `wall train`.
pub fn train(a: TrainArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("wall train: not available yet"))
}

/// Arguments of `arena wall` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `arena wall`.
pub fn arena(a: ArenaArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("arena wall: not available yet"))
}

/// Arguments of `bench search` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct BenchSearchArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `bench search`.
pub fn bench_search(a: BenchSearchArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("bench search: not available yet"))
}
