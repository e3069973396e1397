//! `baduk go gtp` and `baduk arena go`.

use crate::CliError;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `go gtp`.
#[derive(Args, Debug)]
pub struct GtpArgs {
    /// Bot options as comma-separated key=value: threads=N (search threads sharing one tree;
    /// reproducible by seed with one only), seed=S,
    /// playouts=N (per move), time=SECONDS (per move without a GTP clock), resign=P (win rate,
    /// 0 = never), resign-moves=N, reuse=true|false (keep the tree between moves), rave=N,
    /// explore=C, expand=N, ladder-prior=W (virtual losses at expansion for escapes into working
    /// ladders; 0 = off, the default), playout-ladders=true|false (ladder reading in the
    /// playouts; default false), playout-selfatari, playout-2lib, playout-nakade,
    /// playout-ko, playout-replies=true|false (playout tactics, docs/bot.md; default false),
    /// max-nodes=N (tree-node cap; default 1 GiB of nodes),
    /// extend=F (under a GTP clock, close calls think up to (1+F) times the budget; default 1),
    /// extend-margin=M, early-stop=true|false (stop a timed search when the best move cannot
    /// be caught; default true), level=1..10, priors=builtin|none|FILE, prior-weight=W,
    /// widen=F, playout-shapes=true|false, score=W, score-band=B, score-centre=true|false
    /// (docs/bot.md lists them all). Example: threads=2,playouts=5000,resign=0.1
    #[arg(long, default_value = "", value_name = "OPTIONS")]
    pub bot: String,
    /// Rules to start with: a preset (korean japanese chinese aga ing nz tromp-taylor jk kang),
    /// optionally followed by overrides, e.g. chinese,komi=6.5,ko=situational
    #[arg(long, value_name = "RULES")]
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

/// Arguments of `arena go`.
#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Engine A: `baduk[:opts]` or `gtp:<command line>`.
    #[arg(long)]
    pub a: String,
    /// Engine B: `baduk[:opts]` or `gtp:<command line>`.
    #[arg(long)]
    pub b: String,
    /// Board size.
    #[arg(long, default_value_t = 9)]
    pub size: usize,
    /// Rules string (any preset or override string).
    #[arg(long, default_value = "chinese")]
    pub rules: String,
    /// Komi (default: the rules' komi).
    #[arg(long)]
    pub komi: Option<f32>,
    /// Number of games (colours alternate, A starts with Black).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Thinking time per move, e.g. `1s` or `500ms`.
    #[arg(long)]
    pub time: Option<String>,
    /// Seed of our bot's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Folder to write one SGF record per game.
    #[arg(long)]
    pub records: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Moves after which a game is stopped and scored as it stands (default 4 × size²).
    #[arg(long)]
    pub max_moves: Option<usize>,
}

fn parse_duration(s: &str) -> Result<std::time::Duration, CliError> {
    let t = s.trim();
    let (num, scale) = if let Some(v) = t.strip_suffix("ms") {
        (v, 0.001)
    } else if let Some(v) = t.strip_suffix('s') {
        (v, 1.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = num
        .parse()
        .map_err(|_| CliError::input(format!("--time {s}: expected e.g. 1s or 500ms")))?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(CliError::input(format!("--time {s}: must be positive")));
    }
    Ok(std::time::Duration::from_secs_f64(v * scale))
}

/// Runs `arena go`: the match, a progress bar on stderr, the report (or JSON) on stdout.
pub fn arena(a: ArenaArgs) -> Result<(), CliError> {
    use baduk_arena::go::{play_match, GoMatch};
    if !(2..=25).contains(&a.size) {
        return Err(CliError::input(format!(
            "--size {}: must be 2..=25",
            a.size
        )));
    }
    let rules =
        baduk_go::Rules::parse(&a.rules).map_err(|e| CliError::input(format!("--rules: {e}")))?;
    let m = GoMatch {
        a: a.a
            .parse()
            .map_err(|e| CliError::input(format!("--a: {e}")))?,
        b: a.b
            .parse()
            .map_err(|e| CliError::input(format!("--b: {e}")))?,
        size: a.size,
        komi: a.komi.unwrap_or(rules.komi.as_f64() as f32),
        rules: a.rules.clone(),
        games: a.games,
        time: a.time.as_deref().map(parse_duration).transpose()?,
        seed: a.seed,
        records: a.records.clone(),
        max_moves: a.max_moves.unwrap_or(4 * a.size * a.size),
    };
    let bar = indicatif::ProgressBar::new(a.games as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg} [{elapsed}]")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let (mut wa, mut wb) = (0, 0);
    let report = play_match(&m, |r| {
        match r.winner.as_deref() {
            Some("a") => wa += 1,
            Some("b") => wb += 1,
            _ => {}
        }
        bar.set_message(format!("A {wa} - B {wb}"));
        bar.inc(1);
    })
    .map_err(CliError::input)?;
    bar.finish_and_clear();
    if a.json {
        let j =
            serde_json::to_string_pretty(&report).map_err(|e| CliError::input(e.to_string()))?;
        println!("{j}");
    } else {
        print!("{report}");
    }
    Ok(())
}

/// Runs `bench go --search`: tree-search playouts per second from the empty board, one thread
/// unless the bot options say more, with the bot's real playout policy; prints the search
/// signature (marked when several threads make it vary from run to run) and the rate.
pub fn bench_search(size: u32, playouts: u64, seed: u64, bot: &str) -> Result<(), CliError> {
    if !(2..=25).contains(&size) {
        return Err(CliError::input(format!("--size {size}: must be 2..=25")));
    }
    let r = baduk_search::go::bench_search(size as usize, playouts.max(1), seed, bot)
        .map_err(|e| CliError::input(format!("--bot: {e}")))?;
    // The shape of every bench: `signature: …`, then one rate line each.
    let threads = if r.threads > 1 {
        format!(" (threads {}: not reproducible)", r.threads)
    } else {
        String::new()
    };
    println!(
        "signature: size {}x{} playouts {} search {}{threads}",
        r.size, r.size, r.playouts, r.signature
    );
    println!("tree-search playouts per second: {:.0}", r.rate());
    if r.net_evals > 0 {
        println!(
            "network evaluations: {} ({:.0} per second)",
            r.net_evals,
            r.net_evals as f64 / r.seconds.max(1e-9)
        );
    }
    if r.threads > 1 {
        // With several threads a leaf being expanded (near the root: waiting for the network)
        // does not hold the others up: they play out from it meanwhile.
        println!("playouts past a leaf being expanded: {}", r.leaf_waits);
    }
    Ok(())
}
