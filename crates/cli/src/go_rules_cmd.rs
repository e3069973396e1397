//! `baduk go replay`, `baduk go legal` and `baduk bench go`.

use crate::CliError;
use baduk_go::{Board, Color, Game, Move, Playouts, Rules, Size};
use baduk_rng::Rng;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `go replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The SGF file to replay (its main line).
    pub file: PathBuf,
    /// Rules string `PRESET[,key=value…]`; default: the file's `RU`. The file's `KM` stands unless
    /// the string sets `komi=`.
    #[arg(long)]
    pub rules: Option<String>,
    /// Which game of a collection (1-based; default the first).
    #[arg(long)]
    pub game: Option<usize>,
}

/// Arguments of `go legal`.
#[derive(Args, Debug)]
pub struct LegalArgs {
    /// The SGF file (its main line).
    pub file: PathBuf,
    /// Rules string `PRESET[,key=value…]`; default: the file's `RU`. The file's `KM` stands unless
    /// the string sets `komi=`.
    #[arg(long)]
    pub rules: Option<String>,
    /// List the moves for the side to move after this many moves (default: the end).
    #[arg(long = "move")]
    pub move_number: Option<usize>,
    /// Which game of a collection (1-based; default the first).
    #[arg(long)]
    pub game: Option<usize>,
}

/// Arguments of `bench go`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Board size: 9, 13 or 19 (any 2..=25 works).
    #[arg(long, default_value_t = 9)]
    pub size: u32,
    /// Number of playouts.
    #[arg(long, default_value_t = 10_000)]
    pub playouts: u64,
    /// Random seed (the printed move total is a signature of it).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rules string; only its repetition rule matters (default `japanese`: simple ko).
    #[arg(long, default_value = "japanese")]
    pub rules: String,
    /// Measure the bot's tree search (real playout policy, one thread unless `--threads`)
    /// instead.
    #[arg(long)]
    pub search: bool,
    /// Bot options for `--search` (`priors=none`, `score=0.1`, …).
    #[arg(long, default_value = "")]
    pub bot: String,
    /// Search threads for `--search`, sharing one tree (the bot option `threads`); with more
    /// than one the signature is not reproducible.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Measure the built-in policy network's forward pass instead, on 19×19 positions of a
    /// seeded game of random moves (`--playouts` of them); the search's options do not apply.
    #[arg(long, conflicts_with_all = ["search", "size", "rules", "bot", "threads"])]
    pub net: bool,
}

fn parse_rules(s: Option<&str>) -> Result<Option<Rules>, CliError> {
    s.map(|s| Rules::parse(s).map_err(|e| CliError::input(format!("--rules: {e}"))))
        .transpose()
}

/// Reads and parses the SGF file, then replays `upto` moves under the chosen rules. An illegal
/// move is reported with its line and property, as the reader reports unreadable ones.
fn load(
    file: &Path,
    rules_str: Option<&str>,
    upto: Option<usize>,
    game: Option<usize>,
) -> Result<Game, CliError> {
    let sgf = crate::error::read_sgf(file, game)?;
    let given = parse_rules(rules_str)?;
    let mut rules = sgf
        .rules(given)
        .map_err(|e| CliError::input(format!("{}: {e}", file.display())))?;
    // As in `go score`: the game's komi stands unless the rules string sets its own.
    if let (Some(k), Some(r)) = (sgf.komi, rules_str) {
        if !r
            .split(',')
            .any(|item| item.trim_start().starts_with("komi="))
        {
            rules
                .set("komi", &k.to_string())
                .map_err(|e| CliError::input(format!("{}: KM: {e}", file.display())))?;
        }
    }
    if let Some(n) = upto.filter(|&n| n > sgf.moves.len()) {
        return Err(CliError::input(format!(
            "--move {n}: {} has only {} moves",
            file.display(),
            sgf.moves.len()
        )));
    }
    sgf.replay(rules, upto).map_err(|e| {
        let at = sgf.moves.get(e.number.wrapping_sub(1));
        let size = sgf.size;
        let prop = |m: &baduk_go::SgfMove| match m.mv {
            Move::Play(p) => format!("{}[{}]", m.color.letter(), p.to_sgf(size)),
            Move::Pass => format!("{}[]", m.color.letter()),
        };
        match at {
            Some(m) => CliError::illegal(format!(
                "{}: SGF line {}, property {}: {e}",
                file.display(),
                m.line,
                prop(m)
            )),
            None => CliError::illegal(format!("{}: {e}", file.display())),
        }
    })
}

fn side(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// Runs `go replay`.
pub fn replay(a: ReplayArgs) -> Result<(), CliError> {
    let game = load(&a.file, a.rules.as_deref(), None, a.game)?;
    print!("{}", game.board());
    println!("rules: {}", game.rules());
    println!("moves: {}", game.move_count());
    println!(
        "captures: B {} W {}",
        game.captures(Color::Black),
        game.captures(Color::White)
    );
    if game.rules().pass_stones() {
        println!(
            "pass stones: B {} W {}",
            game.pass_stones(Color::Black),
            game.pass_stones(Color::White)
        );
    }
    match game.end() {
        Some(end) => println!("game over: {end}"),
        None => println!("to move: {}", side(game.to_move())),
    }
    Ok(())
}

/// Runs `go legal`: the legal moves, or one line saying the game is over and why.
pub fn legal(a: LegalArgs) -> Result<(), CliError> {
    let game = load(&a.file, a.rules.as_deref(), a.move_number, a.game)?;
    if let Some(end) = game.end() {
        println!(
            "no legal moves: the game is over ({end}) after {} moves",
            game.move_count()
        );
        return Ok(());
    }
    let words: Vec<String> = game
        .legal_moves()
        .into_iter()
        .map(|m| match m {
            Move::Play(p) => p.to_gtp(),
            Move::Pass => "pass".to_string(),
        })
        .collect();
    println!("{}", words.join(" "));
    Ok(())
}

/// Runs `bench go`.
pub fn bench(a: BenchArgs) -> Result<(), CliError> {
    if a.net {
        let r = baduk_search::go::bench_net(a.playouts, a.seed);
        // The shape of every bench: `signature: …`, then one rate line each.
        println!(
            "signature: size 19x19 positions {} network {}",
            r.evals, r.signature
        );
        println!("network evaluations per second: {:.0}", r.rate());
        return Ok(());
    }
    if a.search {
        let bot = match a.threads {
            Some(n) => format!("{},threads={n}", a.bot),
            None => a.bot,
        };
        return crate::gtp_cmd::bench_search(a.size, a.playouts, a.seed, &bot);
    }
    let size = Size::square(a.size).map_err(|e| CliError::input(format!("--size: {e}")))?;
    let rules = Rules::parse(&a.rules).map_err(|e| CliError::input(format!("--rules: {e}")))?;
    let mut rng = Rng::new(a.seed);
    let mut playouts = Playouts::new();
    let empty = Board::new(size);
    let mut total: u64 = 0;
    let start = Instant::now();
    for _ in 0..a.playouts {
        let mut b = empty.clone();
        total += playouts.run(&mut b, Color::Black, rules.ko, &mut rng).moves as u64;
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    // The shape of every bench: `signature: …`, then one rate line each.
    println!(
        "signature: size {} playouts {} seed {} moves {total}",
        a.size, a.playouts, a.seed
    );
    println!(
        "playouts per second: {:.0} ({secs:.3} s)",
        a.playouts as f64 / secs
    );
    Ok(())
}
