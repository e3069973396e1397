//! `baduk serve` (the game server), `baduk wall export` (finished games as records) and
//! `baduk bench serve` (concurrent games against a running server).

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Database: `sqlite:PATH` (an embedded file, created if missing) or `postgres://USER@HOST/DB`.
    #[arg(long, default_value = "sqlite:./baduk.db")]
    pub database: String,
    /// Requests a second allowed per client (address and token); 0 turns the limit off.
    #[arg(long, default_value_t = 50.0)]
    pub rate_limit: f64,
    /// Accept the test-only bot `panic` (for tests of fault isolation).
    #[arg(long, hide = true)]
    pub test_bots: bool,
}

/// Runs `serve` until Ctrl-C or SIGTERM.
pub fn serve(a: ServeArgs) -> Result<(), CliError> {
    if !a.rate_limit.is_finite() || a.rate_limit < 0.0 {
        return Err(CliError::input(
            "--rate-limit: a number of requests a second, 0 or more",
        ));
    }
    let cfg = baduk_server::Config {
        addr: a.addr,
        database: a.database,
        rate_limit: a.rate_limit,
        test_bots: a.test_bots,
    };
    baduk_server::block_on(baduk_server::serve(cfg))
        .map_err(|e| CliError::input(format!("baduk serve: {e}")))
}

/// Arguments of `wall export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The server's database URL.
    #[arg(long)]
    pub database: String,
    /// Folder to write the records to (one `<id>.wall` per game).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `wall export`.
pub fn export(a: ExportArgs) -> Result<(), CliError> {
    let n = baduk_server::block_on(baduk_server::export::export_wall(&a.database, &a.out))
        .map_err(CliError::input)?;
    println!("{n} finished Wall Go games written to {}", a.out.display());
    Ok(())
}

/// Arguments of `bench serve`.
#[derive(Args, Debug)]
pub struct BenchServeArgs {
    /// Address of the running server (start it with `--rate-limit 0`).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Concurrent games (9×9, chinese, no clock, two human seats; two sockets each).
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Moves played in each game.
    #[arg(long, default_value_t = 40)]
    pub moves: usize,
    /// Random seed of the moves (the printed moves-hash is a signature of it).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Actions a second offered over all games; 0: each game moves as soon as it sees the
    /// last move.
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// The server's process id, to print its resident memory per live game.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Games set up (created, sockets opened) at once.
    #[arg(long, default_value_t = 64)]
    pub parallel: usize,
}

/// Runs `bench serve`: prints the signature, then the rate, latencies, errors and memory.
pub fn bench_serve(a: BenchServeArgs) -> Result<(), CliError> {
    let opts = baduk_server::bench::BenchOptions {
        addr: a.addr,
        games: a.games,
        moves: a.moves,
        seed: a.seed,
        rate: a.rate,
        server_pid: a.server_pid,
        parallel: a.parallel,
        ..Default::default()
    };
    let report = baduk_server::block_on(baduk_server::bench::run(&opts))
        .map_err(|e| CliError::input(format!("baduk bench serve: {e}")))?;
    for line in report.lines() {
        println!("{line}");
    }
    Ok(())
}
