//! `baduk wall play|replay|legal|perft` and `baduk bench wall`.

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `wall play` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `wall play`.
pub fn play(a: PlayArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("wall play: not available yet"))
}

/// Arguments of `wall replay` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `wall replay`.
pub fn replay(a: ReplayArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("wall replay: not available yet"))
}

/// Arguments of `wall legal` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct LegalArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `wall legal`.
pub fn legal(a: LegalArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("wall legal: not available yet"))
}

/// Arguments of `wall perft` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `wall perft`.
pub fn perft(a: PerftArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("wall perft: not available yet"))
}

/// Arguments of `bench wall` (filled in as the command lands).
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Input file, where the command reads one.
    pub file: Option<PathBuf>,
}

/// Runs `bench wall`.
pub fn bench(a: BenchArgs) -> Result<(), CliError> {
    if let Some(f) = &a.file {
        crate::error::read_file(f)?;
    }
    Err(CliError::input("bench wall: not available yet"))
}
