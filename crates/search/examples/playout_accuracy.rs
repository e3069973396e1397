//! How well a playout policy judges middle-game positions: from positions of finished game
//! records (moves 50, 100, 150), the mean ownership of N playouts against the final
//! ownership of the record, and the playouts' Black win share against the record's winner.
//!
//!     cargo run --release -p baduk-search --example playout_accuracy -- DIR N [OPTS...]
//!
//! DIR holds SGF records (read recursively; plain `;B[pd]` moves, 19×19 or any square size,
//! komi 7.5 assumed); each OPTS is a comma list of `selfatari,2lib,nakade,ko,ladders,shapes,replies`
//! (`none` for the defaults). Prints, per policy, the ownership's mean squared error, the
//! winner's Brier score and the playouts a second.

use baduk_rng::Rng;
use baduk_search::go::board::{Colour, FastBoard, Idx};
use baduk_search::go::patterns::Model;
use baduk_search::go::playout::{playout, Policy, Replies};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A record's moves: the mover and the point (`None`: a pass).
type Moves = Vec<(Colour, Option<(usize, usize)>)>;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut es: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
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

/// Board size and moves of a simple record.
fn parse(text: &str) -> (usize, Moves) {
    let size = text
        .find("SZ[")
        .and_then(|k| text[k + 3..].split(']').next()?.parse().ok())
        .unwrap_or(19);
    let mut moves = Vec::new();
    let bytes = text.as_bytes();
    for k in 0..bytes.len().saturating_sub(2) {
        if bytes[k] == b';'
            && (bytes[k + 1] == b'B' || bytes[k + 1] == b'W')
            && bytes[k + 2] == b'['
        {
            let c = if bytes[k + 1] == b'B' {
                Colour::Black
            } else {
                Colour::White
            };
            let rest = &text[k + 3..];
            let v = rest.split(']').next().unwrap_or("");
            let m = if v.len() == 2 {
                let x = (v.as_bytes()[0] - b'a') as usize;
                let y = (v.as_bytes()[1] - b'a') as usize;
                (x < size && y < size).then_some((x, y))
            } else {
                None
            };
            moves.push((c, m));
        }
    }
    (size, moves)
}

fn replay(size: usize, moves: &[(Colour, Option<(usize, usize)>)], n: usize) -> FastBoard {
    let mut b = FastBoard::new(size, size);
    for &(c, m) in &moves[..n] {
        b.set_to_move(c);
        match m {
            Some((x, y)) => {
                let i = b.idx(x, y);
                b.play(i, c);
            }
            None => b.pass(),
        }
    }
    if let Some(&(c, _)) = moves.get(n) {
        b.set_to_move(c);
    }
    b
}

/// Mean ownership of `n` playouts from `b`, and the share of them Black won at komi 7.5.
fn judge(
    b: &FastBoard,
    n: usize,
    rng: &mut Rng,
    shapes: Option<&Model>,
    policy: Policy,
    mut replies: Option<&mut Replies>,
) -> (Vec<f32>, f32) {
    let mut own = vec![0.0f32; b.points().map(|i| i as usize + 1).max().unwrap_or(0)];
    let mut amaf = vec![0u8; 1024];
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
        if let Some(r) = replies.as_deref_mut() {
            r.learn(p.playout_area_score() as f32 - 7.5 > 0.0);
        }
        for i in p.points() {
            own[i as usize] += p.owner_at(i) / n as f32;
        }
        if p.playout_area_score() as f32 - 7.5 > 0.0 {
            wins += 1.0 / n as f32;
        }
    }
    (own, wins)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(&args[1]);
    let n: usize = args[2].parse().unwrap();
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    let model = Model::builtin();
    // The positions and the truth: the final position's ownership (64 plain playouts settle
    // what the record left on the board).
    let mut cases = Vec::new();
    let mut rng = Rng::new(1);
    for p in &paths {
        let text = std::fs::read_to_string(p).unwrap();
        let (size, moves) = parse(&text);
        if moves.len() < 160 {
            continue;
        }
        let end = replay(size, &moves, moves.len());
        let (own, _) = judge(&end, 64, &mut rng, None, Policy::default(), None);
        let truth: Vec<f32> = own.iter().map(|&o| o.signum()).collect();
        let score: f32 = end.points().map(|i| truth[i as usize]).sum::<f32>() - 7.5;
        for at in [50usize, 100, 150] {
            cases.push((replay(size, &moves, at), truth.clone(), score > 0.0, at));
        }
    }
    println!(
        "{} records, {} positions, {n} playouts each",
        paths.len(),
        cases.len()
    );
    for opts in &args[3..] {
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
                _ => panic!("unknown option {o}"),
            }
        }
        let mut rng = Rng::new(2);
        let mut mse = [0.0f64; 3];
        let mut brier = [0.0f64; 3];
        let mut count = [0usize; 3];
        let t = Instant::now();
        for (b, truth, black_won, at) in &cases {
            let mut replies = lgr.then(Replies::new);
            let (own, w) = judge(b, n, &mut rng, shapes, policy, replies.as_mut());
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
