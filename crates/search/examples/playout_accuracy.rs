//! How well a playout policy judges middle-game positions: from positions of finished game
//! records (moves 50, 100, 150), the mean ownership of N playouts against the final
//! ownership of the record, and the playouts' Black win share against the record's winner.
//!
//!     cargo run --release -p baduk-search --example playout_accuracy -- DIR N [--re] [OPTS...]
//!
//! The winner is the final position's, settled by 64 plain playouts; with `--re`, the record's
//! `RE` (records without a `B+` or `W+` result are skipped): for records that end by
//! resignation, where the settled final position is the playouts' own reading.
//!
//! DIR holds SGF records (read recursively by the project's SGF reader, each with its own
//! size, setup and komi; games under 160 moves are skipped); each OPTS is a comma list of `selfatari,2lib,nakade,ko,ladders,shapes,replies`
//! (`none` for the defaults). Prints, per policy, the ownership's mean squared error, the
//! winner's Brier score and the playouts a second.

use baduk_go::sgf::SgfGame;
use baduk_rng::Rng;
use baduk_search::go::board::{Colour, FastBoard, Idx, MAX_CELLS, PASS};
use baduk_search::go::lib_game::mirror;
use baduk_search::go::patterns::Model;
use baduk_search::go::playout::{playout, Policy, Replies};
use baduk_search::go::rules::BotRules;
use std::path::{Path, PathBuf};
use std::process::exit;
use std::time::Instant;

const USAGE: &str = "usage: playout_accuracy DIR N [--re] [OPTS...]  (OPTS: comma lists of \
selfatari,2lib,nakade,ko,ladders,shapes,replies or none)";

/// Prints `msg` and stops with exit status 2.
fn fail(msg: &str) -> ! {
    eprintln!("playout_accuracy: {msg}");
    exit(2)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let rd = std::fs::read_dir(dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    let mut es: Vec<_> = rd.flatten().collect();
    es.sort_by_key(|e| e.path());
    for e in es {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "sgf") {
            out.push(p);
        }
    }
}

/// A record read by the project's SGF reader: its start position, moves and komi.
struct Record {
    start: FastBoard,
    moves: Vec<(Colour, Idx)>,
    komi: f32,
    /// Whether Black won by the record's `RE` (None: no `B+` or `W+` result).
    black_won: Option<bool>,
}

fn read(p: &Path) -> Result<Record, String> {
    let bytes = std::fs::read(p).map_err(|e| e.to_string())?;
    let text = baduk_go::sgf::decode(&bytes).map_err(|e| e.to_string())?;
    let sgf = SgfGame::parse(&text).map_err(|e| e.to_string())?;
    let rules = sgf.rules(None).map_err(|e| e.to_string())?;
    let game = sgf.replay(rules, None).map_err(|e| e.to_string())?;
    let m = mirror(&game);
    let mut start = FastBoard::new(m.board().width(), m.board().height());
    for &(c, i) in m.setup_stones() {
        start.setup(i, c);
    }
    Ok(Record {
        start,
        moves: m.moves().to_vec(),
        komi: BotRules::from(game.rules()).komi,
        black_won: match sgf.result.as_deref().map(|r| r.trim().as_bytes()) {
            Some([b'B' | b'b', b'+', ..]) => Some(true),
            Some([b'W' | b'w', b'+', ..]) => Some(false),
            _ => None,
        },
    })
}

/// The position of `r` after its first `n` moves, with the next mover to move.
fn replay(r: &Record, n: usize) -> FastBoard {
    let mut b = r.start.clone();
    for &(c, i) in &r.moves[..n] {
        b.set_to_move(c);
        if i == PASS {
            b.pass();
        } else {
            b.play(i, c);
        }
    }
    if let Some(&(c, _)) = r.moves.get(n) {
        b.set_to_move(c);
    }
    b
}

/// Mean ownership of `n` playouts from `b`, and the share of them Black won at `komi`.
fn judge(
    b: &FastBoard,
    komi: f32,
    n: usize,
    rng: &mut Rng,
    shapes: Option<&Model>,
    policy: Policy,
    mut replies: Option<&mut Replies>,
) -> (Vec<f32>, f32) {
    let mut own = vec![0.0f32; MAX_CELLS];
    let mut amaf = vec![0u8; MAX_CELLS];
    let mut buf: Vec<Idx> = Vec::new();
    let mut wins = 0.0;
    for _ in 0..n {
        let mut p = b.clone();
        p.reset_passes();
        if let Some(r) = replies.as_deref_mut() {
            r.begin(b.to_move().opp(), b.last_move2(), b.last_move());
        }
        playout(
            &mut p,
            rng,
            &mut amaf,
            &mut buf,
            shapes,
            policy,
            replies.as_deref_mut(),
        );
        let black_won = p.playout_area_score() as f32 - komi > 0.0;
        if let Some(r) = replies.as_deref_mut() {
            r.learn(black_won);
        }
        for i in p.points() {
            own[i as usize] += p.owner_at(i) / n as f32;
        }
        if black_won {
            wins += 1.0 / n as f32;
        }
    }
    (own, wins)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        fail(USAGE);
    }
    let dir = PathBuf::from(&args[1]);
    let n: usize = match args[2].parse() {
        Ok(n) if n > 0 => n,
        _ => fail(&format!(
            "N must be a positive count, not `{}`\n{USAGE}",
            args[2]
        )),
    };
    let by_re = args.get(3).is_some_and(|a| a == "--re");
    let policies = &args[if by_re { 4 } else { 3 }..];
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    let model = Model::builtin();
    // The positions and the truth: the final position's ownership (64 plain playouts settle
    // what the record left on the board).
    let mut cases = Vec::new();
    let mut rng = Rng::new(1);
    for p in &paths {
        let r = read(p).unwrap_or_else(|e| fail(&format!("{}: {e}", p.display())));
        if r.moves.len() < 160 || (by_re && r.black_won.is_none()) {
            continue;
        }
        let end = replay(&r, r.moves.len());
        let (own, _) = judge(&end, r.komi, 64, &mut rng, None, Policy::default(), None);
        let truth: Vec<f32> = own.iter().map(|&o| o.signum()).collect();
        let score: f32 = end.points().map(|i| truth[i as usize]).sum::<f32>() - r.komi;
        let black_won = if by_re {
            r.black_won == Some(true)
        } else {
            score > 0.0
        };
        for at in [50usize, 100, 150] {
            cases.push((replay(&r, at), r.komi, truth.clone(), black_won, at));
        }
    }
    println!(
        "{} records, {} positions, {n} playouts each",
        paths.len(),
        cases.len()
    );
    for opts in policies {
        let mut policy = Policy::default();
        let mut shapes = None;
        let mut lgr = false;
        for o in opts.split(',') {
            match o {
                "selfatari" => policy.self_atari = true,
                "2lib" => policy.two_lib = true,
                "nakade" => policy.nakade = true,
                "ko" => policy.ko = true,
                "ladders" => policy.ladders = true,
                "shapes" => shapes = Some(&*model),
                "replies" => lgr = true,
                "none" => {}
                _ => fail(&format!("unknown option `{o}`\n{USAGE}")),
            }
        }
        let mut rng = Rng::new(2);
        let mut mse = [0.0f64; 3];
        let mut brier = [0.0f64; 3];
        let mut count = [0usize; 3];
        let t = Instant::now();
        for (b, komi, truth, black_won, at) in &cases {
            let mut replies = lgr.then(Replies::new);
            let (own, w) = judge(b, *komi, n, &mut rng, shapes, policy, replies.as_mut());
            let k = at / 50 - 1;
            let pts: Vec<Idx> = b.points().collect();
            let e: f64 = pts
                .iter()
                .map(|&i| ((own[i as usize] - truth[i as usize]) as f64).powi(2))
                .sum::<f64>()
                / pts.len() as f64;
            mse[k] += e;
            let y = if *black_won { 1.0 } else { 0.0 };
            brier[k] += (w as f64 - y).powi(2);
            count[k] += 1;
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{opts:40} mse@50/100/150 {:.4} {:.4} {:.4}  brier {:.4} {:.4} {:.4}  {:.0} playouts/s",
            mse[0] / count[0] as f64,
            mse[1] / count[1] as f64,
            mse[2] / count[2] as f64,
            brier[0] / count[0] as f64,
            brier[1] / count[1] as f64,
            brier[2] / count[2] as f64,
            (cases.len() * n) as f64 / secs
        );
    }
}
