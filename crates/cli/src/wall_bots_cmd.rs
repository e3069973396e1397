//! `baduk wall train`, `baduk arena wall` and `baduk bench search`.

use crate::CliError;
use baduk_arena::wall::{run_match, summarise, MatchConfig, Summary};
use baduk_search::wall::eval::Evaluator;
use baduk_search::wall::model::{samples_of, train as fit, FEATURE_NAMES};
use baduk_search::wall::search::{bench_positions, SearchConfig, Searcher};
use baduk_wallgo::{Game, Variant};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `wall train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Folder of game records (every file in it is read; unfinished games are skipped).
    #[arg(long)]
    pub games: PathBuf,
    /// Where to write the model (the text form `sedol` loads).
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the train/validation split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Gradient-descent iterations.
    #[arg(long, default_value_t = 3000)]
    pub iterations: usize,
}

/// Runs `wall train`: fits the `sedol` evaluation to the outcomes of the records in a folder.
pub fn train(a: TrainArgs) -> Result<(), CliError> {
    let dir = std::fs::read_dir(&a.games)
        .map_err(|e| CliError::input(format!("{}: {e}", a.games.display())))?;
    let mut paths: Vec<PathBuf> = dir
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    let mut games = Vec::new();
    let mut unfinished = 0;
    for p in &paths {
        let text = crate::error::read_file(p)?;
        let g = Game::from_record(&text)
            .map_err(|e| CliError::input(format!("{}: {e}", p.display())))?;
        let s = samples_of(&g);
        if s.is_empty() {
            unfinished += 1;
        } else {
            games.push(s);
        }
    }
    if games.len() < 2 {
        return Err(CliError::input(format!(
            "{}: need at least two finished games, found {}",
            a.games.display(),
            games.len()
        )));
    }
    let r = fit(&games, a.seed, a.iterations);
    let comment = format!(
        "fitted by `baduk wall train` on {} games ({} positions), seed {}, {} iterations\n\
         train log loss {:.4}, validation log loss {:.4} on {} held-out games ({} positions)",
        r.train_games,
        r.train_samples,
        a.seed,
        a.iterations,
        r.train_loss,
        r.val_loss,
        r.val_games,
        r.val_samples
    );
    std::fs::write(&a.out, r.model.to_text(&comment))
        .map_err(|e| CliError::input(format!("{}: {e}", a.out.display())))?;
    let mut s = format!(
        "records: {} read, {} finished games used, {unfinished} skipped\n\
         train: {} games, {} positions, log loss {:.4}\n\
         validation: {} games, {} positions, log loss {:.4}\n\
         bias {:.4}\n",
        paths.len(),
        games.len(),
        r.train_games,
        r.train_samples,
        r.train_loss,
        r.val_games,
        r.val_samples,
        r.val_loss,
        r.model.bias
    );
    for (n, w) in FEATURE_NAMES.iter().zip(r.model.weights) {
        s.push_str(&format!("{n} {w:.4}\n"));
    }
    s.push_str(&format!("wrote {}\n", a.out.display()));
    print!("{s}");
    Ok(())
}

/// Arguments of `arena wall`.
#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Bot `a` (`random`, `easy`, `medium`, `expert[:nodes=N|ms=N]`, `sedol[:…]`).
    #[arg(long)]
    pub a: String,
    /// Bot `b`.
    #[arg(long)]
    pub b: String,
    /// Number of games (played in pairs with the sides swapped).
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Match seed (the same seed gives the same games, whatever the threads).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Write every game's record into this folder.
    #[arg(long)]
    pub records: Option<PathBuf>,
    /// Print one JSON object instead of the text summary.
    #[arg(long)]
    pub json: bool,
    /// Placement order: ABAB or ABBA.
    #[arg(long, default_value = "ABAB")]
    pub placement: String,
    /// Stay rule: out-and-back or free (or stuck-only).
    #[arg(long, default_value = "out-and-back")]
    pub stay: String,
    /// Tie-break: none or largest-region.
    #[arg(long, default_value = "none")]
    pub tiebreak: String,
}

/// Runs `arena wall`: plays the match with a progress bar on stderr, prints the statistics.
pub fn arena(a: ArenaArgs) -> Result<(), CliError> {
    let variant: Variant = format!(
        "placement={} stay={} tiebreak={}",
        a.placement, a.stay, a.tiebreak
    )
    .parse()
    .map_err(CliError::input)?;
    if a.games == 0 {
        return Err(CliError::input("--games must be at least 1"));
    }
    let cfg = MatchConfig {
        a: a.a.clone(),
        b: a.b.clone(),
        games: a.games,
        seed: a.seed,
        variant,
        threads: a.threads,
    };
    if let Some(dir) = &a.records {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
    }
    let bar = ProgressBar::new(a.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {elapsed} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let results = run_match(&cfg, &|| bar.inc(1)).map_err(|e| CliError::input(e.to_string()))?;
    bar.finish_and_clear();
    if let Some(dir) = &a.records {
        for r in &results {
            let p = dir.join(format!("game-{:05}.wallgo", r.index));
            std::fs::write(&p, r.game.to_record())
                .map_err(|e| CliError::input(format!("{}: {e}", p.display())))?;
        }
    }
    let s = summarise(&cfg, &results);
    if a.json {
        let j = serde_json::to_string(&s).map_err(|e| CliError::input(e.to_string()))?;
        println!("{j}");
    } else {
        print!("{}", text_summary(&s));
    }
    Ok(())
}

fn text_summary(s: &Summary) -> String {
    format!(
        "{} vs {} ({}), {} games, seed {}\n\
         {} wins {}, draws {}, {} wins {}\n\
         {} {} (as A {:.1}%, as B {:.1}%), {}\n\
         mean margin {:+.2} cells (± {:.2}), mean length {:.1} turns, {:.2} ms per action\n",
        s.a,
        s.b,
        s.variant,
        s.stats.games,
        s.seed,
        s.a,
        s.stats.a_wins,
        s.stats.draws,
        s.b,
        s.stats.b_wins,
        s.a,
        s.stats.score_text(),
        100.0 * s.stats.a_score_by_side[0],
        100.0 * s.stats.a_score_by_side[1],
        s.stats.elo_text(),
        s.stats.mean_margin,
        s.stats.margin_se,
        s.stats.mean_length,
        s.stats.mean_ms_per_action
    )
}

/// Arguments of `bench search`.
#[derive(Args, Debug)]
pub struct BenchSearchArgs {
    /// Depth every position is searched to.
    #[arg(long, default_value_t = 3)]
    pub depth: u8,
}

/// Runs `bench search`: `expert` searches the fixed position set to a fixed depth; prints the
/// node count (a signature of the search) and the nodes per second.
pub fn bench_search(a: BenchSearchArgs) -> Result<(), CliError> {
    if a.depth == 0 {
        return Err(CliError::input("--depth must be at least 1"));
    }
    let positions = bench_positions();
    let cfg = SearchConfig {
        max_depth: a.depth,
        nodes: None,
        ms: None,
        tt_bits: 18,
        safe_pruning: true,
        late_move_reductions: true,
    };
    let mut s = Searcher::new(cfg, Evaluator::HandTerritory);
    let start = Instant::now();
    let mut nodes = 0u64;
    for p in &positions {
        let (_, info) = s.search(p);
        nodes += info.nodes;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "signature: positions {} depth {} nodes {nodes}\n\
         nodes per second: {:.0} ({:.3} s, one thread)",
        positions.len(),
        a.depth,
        nodes as f64 / secs.max(1e-9),
        secs
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_writes_records_that_train_reads() {
        let dir = std::env::temp_dir().join(format!("baduk-wall-bots-{}", std::process::id()));
        let records = dir.join("records");
        arena(ArenaArgs {
            a: "easy".into(),
            b: "random".into(),
            games: 4,
            seed: 3,
            threads: 1,
            records: Some(records.clone()),
            json: true,
            placement: "ABBA".into(),
            stay: "free".into(),
            tiebreak: "none".into(),
        })
        .unwrap();
        assert_eq!(std::fs::read_dir(&records).unwrap().count(), 4);
        let out = dir.join("model.txt");
        train(TrainArgs {
            games: records,
            out: out.clone(),
            seed: 1,
            iterations: 50,
        })
        .unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(baduk_search::wall::model::Model::parse(&text).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn arena_rejects_bad_arguments() {
        let args = |a: &str, placement: &str, games: usize| ArenaArgs {
            a: a.into(),
            b: "random".into(),
            games,
            seed: 1,
            threads: 1,
            records: None,
            json: false,
            placement: placement.into(),
            stay: "out-and-back".into(),
            tiebreak: "none".into(),
        };
        assert_eq!(arena(args("nobody", "ABAB", 2)).unwrap_err().code, 2);
        assert_eq!(arena(args("easy", "XYZ", 2)).unwrap_err().code, 2);
        assert_eq!(arena(args("easy", "ABAB", 0)).unwrap_err().code, 2);
        assert_eq!(
            bench_search(BenchSearchArgs { depth: 0 }).unwrap_err().code,
            2
        );
    }
}
