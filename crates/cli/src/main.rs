//! The `baduk` binary: a thin layer of commands over the rules libraries, bots and adapters.
//!
//! Each game owns one module (`go_cmd`, `wall_cmd`, `arena_cmd`); this file only parses the
//! top level and turns a [`CliError`] into its exit code.

mod arena_cmd;
mod error;
mod go_cmd;
mod wall_cmd;

use clap::{Parser, Subcommand};
pub use error::CliError;

/// The `baduk` command line.
#[derive(Parser, Debug)]
#[command(
    name = "baduk",
    version,
    about = "Go under every rule set, and Wall Go"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Top-level commands.
#[derive(Subcommand, Debug)]
enum Cmd {
    /// Go (바둑): replay, legal moves, scoring, life and death, GTP.
    Go {
        #[command(subcommand)]
        cmd: go_cmd::GoCmd,
    },
    /// Wall Go (벽바둑): play, replay, legal actions, perft, training.
    Wall {
        #[command(subcommand)]
        cmd: wall_cmd::WallCmd,
    },
    /// Matches between two players, with statistics.
    Arena {
        #[command(subcommand)]
        cmd: arena_cmd::ArenaCmd,
    },
    /// Benchmarks that print a deterministic node count (a signature) and a rate.
    Bench {
        #[command(subcommand)]
        cmd: BenchCmd,
    },
}

/// What `baduk bench` measures.
#[derive(Subcommand, Debug)]
enum BenchCmd {
    /// Random Go playouts (or tree search with `--search`).
    Go(go_cmd::BenchArgs),
    /// Wall Go move generation and random games.
    Wall(wall_cmd::BenchArgs),
    /// The Wall Go `expert` search on a fixed position set.
    Search(wall_cmd::BenchSearchArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Go { cmd } => go_cmd::run(cmd),
        Cmd::Wall { cmd } => wall_cmd::run(cmd),
        Cmd::Arena { cmd } => arena_cmd::run(cmd),
        Cmd::Bench { cmd } => match cmd {
            BenchCmd::Go(a) => go_cmd::bench(a),
            BenchCmd::Wall(a) => wall_cmd::bench(a),
            BenchCmd::Search(a) => wall_cmd::bench_search(a),
        },
    };
    if let Err(e) = result {
        eprintln!("{}", e.message);
        std::process::exit(e.code);
    }
}
