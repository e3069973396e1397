//! `baduk go gtp` and `baduk arena go`.

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `go gtp`.
#[derive(Args, Debug)]
pub struct GtpArgs {
    /// Bot options, e.g. `threads=2,playouts=5000,resign=0.1` (see `BotConfig`).
    #[arg(long, default_value = "")]
    pub bot: String,
    /// Rules string to start with (any preset or override string).
    #[arg(long)]
    pub rules: Option<String>,
}

/// Runs `go gtp`: GTP version 2 on stdin/stdout until `quit` or end of input.
pub fn gtp(a: GtpArgs) -> Result<(), CliError> {
    let mut engine = baduk_gtp::engine_with_options(&a.bot).map_err(CliError::input)?;
    if let Some(r) = &a.rules {
        let cmd = baduk_gtp::Command {
            id: None,
            name: "baduk-rules".into(),
            args: vec![r.clone()],
        };
        engine.handle(&cmd).map_err(CliError::input)?;
    }
    let stdin = std::io::BufReader::new(std::io::stdin());
    let stdout = std::io::stdout();
    engine
        .run(stdin, stdout.lock())
        .map_err(|e| CliError::input(format!("gtp i/o: {e}")))
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
