//! `baduk go review`: the engine's review of SGF records as the server makes it, position by
//! position along the main line, with the figures that say how far to trust it: the win rate's
//! mean change a move, the drops it flags, how often its preferred move is the one played, and
//! its final estimate beside the recorded result.

use crate::error::read_sgf;
use crate::CliError;
use baduk_go::{Color, Move, Rules};
use baduk_search::go::policy_net::PolicyNet;
use baduk_search::go::review::{PositionReview, ReviewConfig, Reviewer};
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `go review`.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// SGF records to review, one after another.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Playouts a position.
    #[arg(long, default_value_t = 1000)]
    pub playouts: u64,
    /// The share of the playouts the played move gets at least (0..1).
    #[arg(long, default_value_t = 0.1)]
    pub played_share: f32,
    /// Review only the first N positions of each record (0: all).
    #[arg(long, default_value_t = 0)]
    pub positions: usize,
    /// The policy network for the priors near the root: `builtin`, `none` or a file.
    #[arg(long, default_value = "builtin")]
    pub net: String,
    /// Rules when the record names none it can be read under (`RU` is used when it parses).
    #[arg(long, default_value = "japanese")]
    pub rules: String,
    /// Seed of the searches.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A drop at least this large (win rate, 0..1) is flagged as a mistake.
    #[arg(long, default_value_t = 0.2)]
    pub flag: f32,
    /// Tree options (`prior-weight=…,explore=…`; see `go gtp --help`). With the network a
    /// review's prior weight is 400 (the bot's 120) unless `prior-weight` is given here.
    #[arg(long, default_value = "")]
    pub options: String,
    /// Print every position's line.
    #[arg(long)]
    pub verbose: bool,
}

/// Runs `go review`.
pub fn review(a: ReviewArgs) -> Result<(), CliError> {
    let net = match a.net.as_str() {
        "none" => None,
        "builtin" => Some(PolicyNet::builtin()),
        path => {
            Some(std::sync::Arc::new(PolicyNet::load(path).map_err(|e| {
                CliError::input(format!("--net {path}: {e}"))
            })?))
        }
    };
    if !(0.0..=1.0).contains(&a.played_share) {
        return Err(CliError::input("--played-share: a share from 0 to 1"));
    }
    let mut bot = baduk_search::go::BotConfig::default();
    if !a.options.is_empty() {
        bot.apply_options(&a.options)
            .map_err(|e| CliError::input(format!("--options: {e}")))?;
    }
    let mut all = Totals::default();
    for path in &a.files {
        let g = read_sgf(path, None)?;
        let mut rules = g
            .rules_name
            .as_deref()
            .and_then(|r| Rules::parse(r).ok())
            .map_or_else(|| Rules::parse(&a.rules), Ok)
            .map_err(|e| CliError::input(format!("--rules: {e}")))?
            .with_size(g.size);
        if let Some(k) = g.komi {
            rules.komi = k;
        }
        let n = if a.positions == 0 {
            g.moves.len() + 1
        } else {
            a.positions.min(g.moves.len() + 1)
        };
        let mut reviewer = Reviewer::new(ReviewConfig {
            playouts: a.playouts,
            played_share: a.played_share,
            seed: a.seed,
            params: bot.params,
            net_prior_weight: if a
                .options
                .split(',')
                .any(|kv| kv.split('=').next().map(str::trim) == Some("prior-weight"))
            {
                bot.params.prior_weight
            } else {
                ReviewConfig::default().net_prior_weight
            },
            net: net
                .clone()
                .filter(|_| g.size.cols() == 19 && g.size.rows() == 19),
            ..ReviewConfig::default()
        });
        let start = Instant::now();
        let mut rows: Vec<PositionReview> = Vec::with_capacity(n);
        for k in 0..n {
            let Ok(game) = g.replay(rules, Some(k)) else {
                eprintln!(
                    "{}: move {} is illegal under the rules; stopped there",
                    path.display(),
                    k
                );
                break;
            };
            if game.end().is_some() {
                break;
            }
            let played = g.moves.get(k).map(|m| m.mv);
            let r = reviewer.review(&game, k, played);
            if a.verbose {
                println!(
                    "{k:>3} {} played {:<5} best {:<5} B win {:.3} lead {:+.1}±{:.1} loss {:.3} ({:.1} pts)",
                    r.to_move.letter(),
                    played.map_or("-".into(), text),
                    text(r.best),
                    r.winrate,
                    r.owned_score,
                    r.owned_sd,
                    r.loss,
                    r.points_lost
                );
            }
            rows.push(r);
        }
        let secs = start.elapsed().as_secs_f64();
        let f = figures(&rows, a.flag);
        let last = rows.last();
        println!(
            "{}: {} positions in {secs:.1} s · mean |Δ win rate| over the first 60 {:.3} · flagged ≥ {:.0}%: {} ({} the engine's own choice) · agreement {}/{} = {:.1}% (the first choice of the priors {:.1}%) · final estimate B{:+.1}±{:.1} (playouts' mean B{:+.1}, {} unsettled), B win {:.2} · record {}",
            path.display(),
            rows.len(),
            f.mean_change,
            a.flag * 100.0,
            f.flagged.len(),
            f.flagged_own,
            f.agree,
            f.with_played,
            100.0 * f.agree as f64 / f.with_played.max(1) as f64,
            100.0 * f.first_agree as f64 / f.with_played.max(1) as f64,
            last.map_or(0.0, |r| r.owned_score),
            last.map_or(0.0, |r| r.owned_sd),
            last.map_or(0.0, |r| r.score),
            last.map_or(0, |r| r.unsettled),
            last.map_or(0.5, |r| r.winrate),
            g.result.as_deref().unwrap_or("?")
        );
        for (k, r) in &f.flagged {
            println!(
                "  move {} ({} {}): −{:.0}% ({:.1} pts), engine prefers {}",
                k + 1,
                if r.to_move == Color::Black { "B" } else { "W" },
                r.played.map_or("-".into(), text),
                r.loss * 100.0,
                r.points_lost,
                text(r.best)
            );
        }
        all.add(&f);
    }
    if a.files.len() > 1 {
        println!(
            "all: {} records · mean |Δ win rate| over the first 60 {:.3} · flagged {} · agreement {:.1}% (the first choice of the priors {:.1}%)",
            a.files.len(),
            all.change_sum / all.records.max(1) as f64,
            all.flagged,
            100.0 * all.agree as f64 / all.with_played.max(1) as f64,
            100.0 * all.first_agree as f64 / all.with_played.max(1) as f64
        );
    }
    Ok(())
}

fn text(m: Move) -> String {
    match m {
        Move::Play(p) => p.to_string(),
        Move::Pass => "pass".into(),
    }
}

/// The trust figures of one record's review.
struct Figures<'a> {
    mean_change: f64,
    flagged: Vec<(usize, &'a PositionReview)>,
    flagged_own: usize,
    agree: usize,
    first_agree: usize,
    with_played: usize,
}

fn figures(rows: &[PositionReview], flag: f32) -> Figures<'_> {
    let first: Vec<f64> = rows.iter().take(60).map(|r| r.winrate as f64).collect();
    let mean_change = if first.len() > 1 {
        first.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>() / (first.len() - 1) as f64
    } else {
        0.0
    };
    let flagged: Vec<(usize, &PositionReview)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.loss >= flag)
        .collect();
    let flagged_own = flagged
        .iter()
        .filter(|(_, r)| r.played == Some(r.best))
        .count();
    let with_played: Vec<&PositionReview> = rows.iter().filter(|r| r.played.is_some()).collect();
    let agree = with_played
        .iter()
        .filter(|r| r.played == Some(r.best))
        .count();
    let first_agree = with_played
        .iter()
        .filter(|r| r.played == Some(r.first_choice))
        .count();
    Figures {
        first_agree,
        mean_change,
        flagged_own,
        flagged,
        agree,
        with_played: with_played.len(),
    }
}

/// Figures over several records.
#[derive(Default)]
struct Totals {
    records: usize,
    change_sum: f64,
    flagged: usize,
    agree: usize,
    first_agree: usize,
    with_played: usize,
}

impl Totals {
    fn add(&mut self, f: &Figures) {
        self.records += 1;
        self.change_sum += f.mean_change;
        self.flagged += f.flagged.len();
        self.agree += f.agree;
        self.first_agree += f.first_agree;
        self.with_played += f.with_played;
    }
}
