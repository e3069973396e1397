//! `baduk arena …`: matches between two players.

use crate::CliError;
use clap::Subcommand;

/// Arena subcommands.
#[derive(Subcommand, Debug)]
pub enum ArenaCmd {
    /// Wall Go matches between two bots.
    Wall {
        /// Number of games.
        #[arg(long, default_value_t = 2)]
        games: u64,
    },
}

/// Runs one arena subcommand.
pub fn run(cmd: ArenaCmd) -> Result<(), CliError> {
    match cmd {
        ArenaCmd::Wall { .. } => Err(CliError::input("arena wall: not built yet")),
    }
}
