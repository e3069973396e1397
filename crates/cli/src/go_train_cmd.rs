//! `baduk go train`: fits the Go bot's learned move priors on a folder of SGF records.

use crate::CliError;
use baduk_go::sgf::SgfGame;
use baduk_search::go::lib_game::mirror;
use baduk_search::go::patterns::Model;
use baduk_search::go::train::{evaluate, fit, TrainGame, TrainOptions};
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `go train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Folder of SGF records (read recursively, in name order).
    #[arg(long)]
    pub games: PathBuf,
    /// Where to write the model.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the split into fitted and held-out games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Percentage of the games held out to measure the accuracy.
    #[arg(long, default_value_t = 10)]
    pub held_out: u32,
    /// Minorization-maximization iterations.
    #[arg(long, default_value_t = 20)]
    pub iterations: usize,
    /// A 3×3 shape gets its own gamma when played at least this often.
    #[arg(long, default_value_t = 3)]
    pub min_shape_wins: u32,
    /// A spatial pattern (gridcular distance 4 to 10) is listed when played at least this
    /// often; 0 lists none.
    #[arg(long, default_value_t = 5)]
    pub min_spatial_wins: u32,
    /// Another model file to measure on the same held-out games, for comparison (its
    /// accuracy goes into the header).
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// A line for the model's header (how the records were made), written first.
    #[arg(long)]
    pub note: Vec<String>,
}

fn sgf_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let rd =
        std::fs::read_dir(dir).map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            sgf_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
            out.push(p);
        }
    }
    Ok(())
}

fn read_game(p: &Path) -> Result<TrainGame, CliError> {
    let bytes = std::fs::read(p).map_err(|e| CliError::input(format!("{}: {e}", p.display())))?;
    let text = baduk_go::sgf::decode(&bytes)
        .map_err(|e| CliError::input(format!("{}: {e}", p.display())))?;
    let sgf =
        SgfGame::parse(&text).map_err(|e| CliError::input(format!("{}: {e}", p.display())))?;
    let rules = sgf
        .rules(None)
        .map_err(|e| CliError::input(format!("{}: {e}", p.display())))?;
    let game = sgf
        .replay(rules, None)
        .map_err(|e| CliError::illegal(format!("{}: {e}", p.display())))?;
    let m = mirror(&game);
    Ok(TrainGame {
        width: m.board().width(),
        height: m.board().height(),
        setup: m.setup_stones().to_vec(),
        moves: m.moves().to_vec(),
    })
}

/// Runs `go train`: reads the records, holds some games out, fits the gammas, reports the
/// accuracy on the held-out games and writes the model with its invocation at the top.
pub fn train(a: TrainArgs) -> Result<(), CliError> {
    let mut paths = Vec::new();
    sgf_files(&a.games, &mut paths)?;
    paths.sort();
    let mut games = Vec::with_capacity(paths.len());
    for p in &paths {
        games.push(read_game(p)?);
    }
    if games.len() < 2 {
        return Err(CliError::input(format!(
            "{}: need at least two SGF records, found {}",
            a.games.display(),
            games.len()
        )));
    }
    let mut order: Vec<usize> = (0..games.len()).collect();
    baduk_rng::Rng::new(a.seed).shuffle(&mut order);
    let n_held = ((games.len() as u64 * a.held_out.min(90) as u64) / 100).max(1) as usize;
    let held: Vec<TrainGame> = order[..n_held].iter().map(|&k| games[k].clone()).collect();
    let fitted: Vec<TrainGame> = order[n_held..].iter().map(|&k| games[k].clone()).collect();
    let opts = TrainOptions {
        iterations: a.iterations,
        min_shape_wins: a.min_shape_wins,
        min_spatial_wins: a.min_spatial_wins,
    };
    let mut last = String::new();
    let fitted_model = fit(&fitted, &opts, |line| {
        eprintln!("{line}");
        last = line.to_string();
    });
    let patterns = format!(
        "{} spatial patterns played at least {} times (sizes {:?})",
        fitted_model.spatial.len(),
        a.min_spatial_wins,
        baduk_search::go::spatial::LEVELS
    );
    let model = Model::new(fitted_model.gammas, fitted_model.spatial, vec![]);
    let [m, u, h] = evaluate(&model, &held);
    let acc = |name: &str, x: &baduk_search::go::train::Accuracy| {
        format!(
            "{name}: top-1 {:.1}%, top-5 {:.1}%",
            100.0 * x.top1,
            100.0 * x.top5
        )
    };
    let mut comments = vec![
        "The Go bot's learned move priors (generalized Bradley-Terry gammas, fitted by MM).".to_string(),
        format!(
            "made by: baduk go train --games {} --out {} --seed {} --held-out {} --iterations {} --min-shape-wins {} --min-spatial-wins {}{}{}",
            a.games.display(),
            a.out.display(),
            a.seed,
            a.held_out,
            a.iterations,
            a.min_shape_wins,
            a.min_spatial_wins,
            a.baseline
                .as_ref()
                .map(|p| format!(" --baseline {}", p.display()))
                .unwrap_or_default(),
            a.note
                .iter()
                .map(|n| format!(" --note '{n}'"))
                .collect::<String>()
        ),
        format!(
            "records: {} games ({} fitted, {} held out by seed {}); fit: {last}",
            games.len(),
            fitted.len(),
            held.len(),
            a.seed
        ),
        patterns,
        format!("held-out positions: {}", m.positions),
        acc("held-out accuracy, this model", &m),
        acc("held-out accuracy, uniform choice", &u),
        acc("held-out accuracy, hand-written priors (priors=none)", &h),
    ];
    if let Some(p) = &a.baseline {
        let base =
            Model::load(&p.display().to_string()).map_err(|e| CliError::input(e.to_string()))?;
        let [b, _, _] = evaluate(&base, &held);
        comments.push(acc(
            &format!("held-out accuracy, baseline {}", p.display()),
            &b,
        ));
    }
    comments.splice(1..1, a.note.iter().cloned());
    let text = Model::to_text(model.gammas(), model.spatial(), &comments);
    std::fs::write(&a.out, text)
        .map_err(|e| CliError::input(format!("{}: {e}", a.out.display())))?;
    for c in &comments[2 + a.note.len()..] {
        println!("{c}");
    }
    println!("wrote {}", a.out.display());
    Ok(())
}
