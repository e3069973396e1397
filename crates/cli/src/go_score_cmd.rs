//! `baduk go score` and `baduk go life`.

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `go score` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `go score`.
pub fn score(a: ScoreArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("go score: not available yet"))
}

/// Arguments of `go life` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct LifeArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `go life`.
pub fn life(a: LifeArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("go life: not available yet"))
}
