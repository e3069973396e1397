//! `baduk go replay`, `baduk go legal` and `baduk bench go`.

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `go replay` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `go replay`.
pub fn replay(a: ReplayArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("go replay: not available yet"))
}

/// Arguments of `go legal` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct LegalArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `go legal`.
pub fn legal(a: LegalArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("go legal: not available yet"))
}

/// Arguments of `bench go` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `bench go`.
pub fn bench(a: BenchArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("bench go: not available yet"))
}
