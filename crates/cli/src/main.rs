//! The `baduk` binary: a thin layer of commands over the rules libraries, bots and adapters.
//!
//! This file only parses the command line and turns a [`CliError`] into its exit code. Each
//! command lives in the module named after its job: `go_rules_cmd` (replay, legal, bench go),
//! `go_score_cmd` (score, life), `go_train_cmd` (go train), `gtp_cmd` (gtp, arena go), `wall_cmd` (play, replay, legal,
//! perft, bench wall) and `wall_bots_cmd` (train, arena wall, bench search) and `serve_cmd` (serve, wall export,
//! bench serve) and `bot_cmd` (bot connect) and `million_cmd` (bench million) and `arena_bench_cmd`
//! (bench arena).

mod arena_bench_cmd;
mod bot_cmd;
mod error;
mod go_review_cmd;
mod go_rules_cmd;
mod go_score_cmd;
mod go_train_cmd;
mod gtp_cmd;
mod huge_pages;
mod million_cmd;
mod serve_cmd;
mod wall_bots_cmd;
mod wall_cmd;

use clap::{Parser, Subcommand};

/// mimalloc: the server's many small allocations per action cost less than with glibc's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
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
    /// Run the game server: play Go and Wall Go in the browser or over the API.
    // Boxed: `serve` has many more flags than any other command.
    Serve(Box<serve_cmd::ServeArgs>),
    /// Copy the server's live SQLite database to a new file (PostgreSQL: pg_dump).
    Backup(serve_cmd::BackupArgs),
    /// Go (바둑): replay, legal moves, scoring, life and death, GTP.
    Go {
        #[command(subcommand)]
        cmd: GoCmd,
    },
    /// Wall Go (벽바둑): play, replay, legal actions, perft, training.
    Wall {
        #[command(subcommand)]
        cmd: WallCmd,
    },
    /// Matches between two players, with statistics.
    Arena {
        #[command(subcommand)]
        cmd: ArenaCmd,
    },
    /// Bring your own engine: run a GTP engine as a bot on a baduk server.
    Bot {
        #[command(subcommand)]
        cmd: BotCmd,
    },
    /// Benchmarks that print a deterministic node count (a signature) and a rate.
    Bench {
        #[command(subcommand)]
        cmd: BenchCmd,
    },
}

/// `baduk go …`
#[derive(Subcommand, Debug)]
enum GoCmd {
    /// Replay every move of an SGF file under the rules; print the final position.
    Replay(go_rules_cmd::ReplayArgs),
    /// List the legal moves of the side to move.
    Legal(go_rules_cmd::LegalArgs),
    /// Score a finished game under one, several or all rule sets, side by side.
    Score(go_score_cmd::ScoreArgs),
    /// Benson's unconditional status of every point.
    Life(go_score_cmd::LifeArgs),
    /// Speak the Go Text Protocol on stdin/stdout.
    Gtp(gtp_cmd::GtpArgs),
    /// Fit the bot's learned move priors on SGF records.
    Train(go_train_cmd::TrainArgs),
    /// The engine's review of SGF records, with the figures that say how far to trust it.
    Review(go_review_cmd::ReviewArgs),
}

/// `baduk wall …`
#[derive(Subcommand, Debug)]
enum WallCmd {
    /// Play a game in the terminal (humans or bots).
    Play(wall_cmd::PlayArgs),
    /// Validate a record; print the final board and the score.
    Replay(wall_cmd::ReplayArgs),
    /// List the legal actions after the last line of a record.
    Legal(wall_cmd::LegalArgs),
    /// Count the action sequences of a given length (the move generator's signature).
    Perft(wall_cmd::PerftArgs),
    /// Fit the `sedol` evaluation from game records.
    Train(wall_bots_cmd::TrainArgs),
    /// Write the server's finished Wall Go games as records (for `train`).
    Export(serve_cmd::ExportArgs),
}

/// `baduk arena …`
#[derive(Subcommand, Debug)]
enum ArenaCmd {
    /// Wall Go matches between two bots.
    Wall(wall_bots_cmd::ArenaArgs),
    /// Go matches between two engines (ours or GTP programs).
    Go(gtp_cmd::ArenaArgs),
}

/// `baduk bot …`
#[derive(Subcommand, Debug)]
enum BotCmd {
    /// Connect a GTP engine (`-- ENGINE ARGS…`) to a server as a bot account: it accepts the
    /// challenges its filters allow and plays them (docs/bots.md).
    Connect(bot_cmd::ConnectArgs),
}

/// `baduk bench …`
#[derive(Subcommand, Debug)]
enum BenchCmd {
    /// Random Go playouts (or tree search with `--search`).
    Go(go_rules_cmd::BenchArgs),
    /// Wall Go move generation and random games.
    Wall(wall_cmd::BenchArgs),
    /// The Wall Go `expert` search on a fixed position set.
    Search(wall_bots_cmd::BenchSearchArgs),
    /// Concurrent human-vs-human games over WebSocket against a running `baduk serve`.
    Serve(serve_cmd::BenchServeArgs),
    /// A scripted abuse mix (floods, made-up tokens, sockets never read) beside honest games.
    Abuse(serve_cmd::BenchAbuseArgs),
    /// Many games at once against bots brought by `baduk bot connect` (our engine).
    Bots(bot_cmd::BenchBotsArgs),
    /// A million stored games: start-up, moves on cold games, memory, deadlines.
    Million(million_cmd::MillionArgs),
    /// Review rooms against a running `baduk serve`: owners' changes, watchers following.
    ReviewRooms(serve_cmd::BenchReviewArgs),
    /// A tournament arena of bot levels on its own servers: pairing latency, CPU a pairing.
    Arena(arena_bench_cmd::ArenaBenchArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Serve(a) => serve_cmd::serve(*a),
        Cmd::Backup(a) => serve_cmd::backup(a),
        Cmd::Go { cmd } => match cmd {
            GoCmd::Replay(a) => go_rules_cmd::replay(a),
            GoCmd::Legal(a) => go_rules_cmd::legal(a),
            GoCmd::Score(a) => go_score_cmd::score(a),
            GoCmd::Life(a) => go_score_cmd::life(a),
            GoCmd::Gtp(a) => gtp_cmd::gtp(a),
            GoCmd::Train(a) => go_train_cmd::train(a),
            GoCmd::Review(a) => go_review_cmd::review(a),
        },
        Cmd::Wall { cmd } => match cmd {
            WallCmd::Play(a) => wall_cmd::play(a),
            WallCmd::Replay(a) => wall_cmd::replay(a),
            WallCmd::Legal(a) => wall_cmd::legal(a),
            WallCmd::Perft(a) => wall_cmd::perft(a),
            WallCmd::Train(a) => wall_bots_cmd::train(a),
            WallCmd::Export(a) => serve_cmd::export(a),
        },
        Cmd::Arena { cmd } => match cmd {
            ArenaCmd::Wall(a) => wall_bots_cmd::arena(a),
            ArenaCmd::Go(a) => gtp_cmd::arena(a),
        },
        Cmd::Bot { cmd } => match cmd {
            BotCmd::Connect(a) => bot_cmd::connect(a),
        },
        Cmd::Bench { cmd } => match cmd {
            BenchCmd::Go(a) => go_rules_cmd::bench(a),
            BenchCmd::Wall(a) => wall_cmd::bench(a),
            BenchCmd::Search(a) => wall_bots_cmd::bench_search(a),
            BenchCmd::Serve(a) => serve_cmd::bench_serve(a),
            BenchCmd::Abuse(a) => serve_cmd::bench_abuse(a),
            BenchCmd::Bots(a) => bot_cmd::bench_bots(a),
            BenchCmd::Million(a) => million_cmd::bench_million(a),
            BenchCmd::ReviewRooms(a) => serve_cmd::bench_review(a),
            BenchCmd::Arena(a) => arena_bench_cmd::bench_arena(a),
        },
    };
    if let Err(e) = result {
        eprintln!("{}", e.message);
        std::process::exit(e.code);
    }
}
