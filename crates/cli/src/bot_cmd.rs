//! `baduk bot connect`: any GTP engine as a bot on a baduk server (the `baduk-bridge` crate).

use crate::CliError;
use baduk_bridge::game::EngineCmd;
use baduk_bridge::log::LogFormat;
use baduk_bridge::setup::{Filters, Rated, CLOCK_KINDS};
use clap::Args;

/// `baduk bot connect` arguments.
#[derive(Args, Debug)]
pub struct ConnectArgs {
    /// The server, e.g. `http://127.0.0.1:8080`.
    #[arg(long)]
    pub server: String,
    /// The bot account's API token (scope `bot`); or the environment's `BADUK_BOT_TOKEN`,
    /// which keeps it out of the process list.
    #[arg(long)]
    pub token: Option<String>,
    /// Games played at once, each by its own engine.
    #[arg(long, default_value_t = 1)]
    pub max_games: usize,
    /// Board sizes accepted (square), comma-separated.
    #[arg(long, default_value = "9,13,19", value_delimiter = ',')]
    pub sizes: Vec<u32>,
    /// Clock kinds accepted, comma-separated: none, absolute, byo-yomi, canadian, fischer.
    #[arg(
        long,
        default_value = "none,absolute,byo-yomi,canadian,fischer",
        value_delimiter = ','
    )]
    pub clocks: Vec<String>,
    /// Accept rated challenges only.
    #[arg(long, conflicts_with = "unrated_only")]
    pub rated_only: bool,
    /// Accept unrated challenges only.
    #[arg(long)]
    pub unrated_only: bool,
    /// Accept challenges from other bots too.
    #[arg(long)]
    pub accept_bots: bool,
    /// Log lines as text (a terminal) or JSON objects (a service's journal).
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,
    /// The engine's program and its arguments, after `--`.
    #[arg(last = true, required = true, num_args = 1..)]
    pub engine: Vec<String>,
}

/// Runs the bridge until it is stopped.
pub fn connect(a: ConnectArgs) -> Result<(), CliError> {
    let token = match a.token {
        Some(t) => t,
        None => std::env::var("BADUK_BOT_TOKEN")
            .map_err(|_| CliError::input("--token TOKEN (or BADUK_BOT_TOKEN) is needed"))?,
    };
    if let Some(bad) = a.clocks.iter().find(|c| !CLOCK_KINDS.contains(&c.as_str())) {
        return Err(CliError::input(format!(
            "--clocks: `{bad}` is none of {}",
            CLOCK_KINDS.join(", ")
        )));
    }
    if let Some(bad) = a.sizes.iter().find(|n| !(2..=25).contains(*n)) {
        return Err(CliError::input(format!("--sizes: {bad} is not 2 to 25")));
    }
    if !(1..=32).contains(&a.max_games) {
        return Err(CliError::input("--max-games: 1 to 32"));
    }
    let (program, args) = a.engine.split_first().expect("clap requires the engine");
    let opts = baduk_bridge::Options {
        server: a.server,
        token,
        filters: Filters {
            sizes: a.sizes,
            clocks: a.clocks,
            rated: if a.rated_only {
                Rated::Only
            } else if a.unrated_only {
                Rated::Never
            } else {
                Rated::Any
            },
            bots: a.accept_bots,
            max_games: a.max_games,
        },
        engine: EngineCmd {
            program: program.clone(),
            args: args.to_vec(),
        },
        log: if a.log_format == "json" {
            LogFormat::Json
        } else {
            LogFormat::Text
        },
    };
    baduk_server::block_on(baduk_bridge::run(opts)).map_err(CliError::input)
}

/// `baduk bench bots` arguments.
#[derive(Args, Debug)]
pub struct BenchBotsArgs {
    /// Address of the running server (started with `--no-limits`).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Games at once.
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// Bot accounts, each with its own bridge (at most 32 games each).
    #[arg(long, default_value_t = 8)]
    pub bridges: usize,
    /// The player's moves in each game before it resigns.
    #[arg(long, default_value_t = 30)]
    pub moves: usize,
    /// The engine's options (`baduk go gtp --bot …`).
    #[arg(long, default_value = "playouts=50")]
    pub engine: String,
    /// The server's process id, for its CPU.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Seed of the players' moves.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs `bench bots` and prints its report.
pub fn bench_bots(a: BenchBotsArgs) -> Result<(), CliError> {
    let bin = std::env::current_exe()
        .map_err(|e| CliError::input(format!("the baduk binary: {e}")))?
        .display()
        .to_string();
    let opts = baduk_loadgen::bench_bots::BotsOptions {
        addr: a.addr,
        games: a.games,
        bridges: a.bridges,
        moves: a.moves,
        bin,
        engine: a.engine,
        server_pid: a.server_pid,
        seed: a.seed,
    };
    let report = baduk_server::block_on(baduk_loadgen::bench_bots::run(&opts))
        .map_err(|e| CliError::input(format!("baduk bench bots: {e}")))?;
    for line in report.lines() {
        println!("{line}");
    }
    Ok(())
}
