//! `baduk go gtp` and `baduk arena go`.

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `go gtp` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct GtpArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `go gtp`.
pub fn gtp(a: GtpArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("go gtp: not available yet"))
}

/// Arguments of `arena go` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `arena go`.
pub fn arena(a: ArenaArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("arena go: not available yet"))
}
