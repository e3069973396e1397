//! Unconditional life against GNU Go 3.8: its own regression suite (`unconditional.tst` with
//! its SGFs) and its `unconditional_status` on random positions. [`unconditional`] (Benson plus
//! unconditionally dead stones and their territory) must agree point for point; plain
//! [`benson`] (used by the scorer) must never contradict it.

use baduk_go::life::{benson, unconditional, Unconditional};
use baduk_go::scoring::record::Record;
use baduk_go::{Board, Color, Point, Size};

/// A per-point verdict for a position.
type Verdict = fn(&Board, Point) -> Unconditional;

fn full(b: &Board, p: Point) -> Unconditional {
    unconditional(b).status(b, p)
}

fn plain(b: &Board, p: Point) -> Unconditional {
    benson(b).status(b, p)
}
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const GNUGO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/testdata/gnugo"
);

fn load(name: &str) -> Board {
    let path = format!("{GNUGO}/{}", name.trim_start_matches("games/"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Record::from_sgf(&text, None)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .board
}

/// Runs `unconditional.tst` with `verdict` and returns (checked, mismatches).
fn run_suite(verdict: Verdict) -> (usize, Vec<String>) {
    let tst = std::fs::read_to_string(format!("{GNUGO}/unconditional.tst")).expect("suite");
    let mut board = Board::new(Size::nineteen());
    let mut pending: Option<(String, Unconditional)> = None;
    let mut file = String::new();
    let mut checked = 0;
    let mut bad = Vec::new();
    for line in tst.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["loadsgf", f] => {
                file = f.to_string();
                board = load(f);
            }
            ["boardsize", n] => {
                board = Board::new(Size::square(n.parse().unwrap()).unwrap());
                file = format!("boardsize {n}");
            }
            ["clear_board"] => board = Board::new(board.size()),
            ["play", c, v] => {
                let color = if c.starts_with('b') {
                    Color::Black
                } else {
                    Color::White
                };
                board
                    .play(Point::from_gtp(v, board.size()).unwrap(), color)
                    .unwrap();
            }
            [_, "unconditional_status", v] => {
                let p = Point::from_gtp(v, board.size()).unwrap();
                pending = Some((format!("{file} {v}"), verdict(&board, p)));
            }
            [w, ..] if w.starts_with("#?") => {
                if let Some((what, got)) = pending.take() {
                    let want = line
                        .trim_start_matches("#?")
                        .trim()
                        .trim_start_matches('[')
                        .trim_end_matches(['*', ']']);
                    checked += 1;
                    if got.word() != want {
                        bad.push(format!("{what}: want {want}, got {got}"));
                    }
                }
            }
            _ => {}
        }
    }
    (checked, bad)
}

/// GNU Go's own suite (`benson_*.sgf` posted by Jean-Pierre Vesinet, and the
/// `unconditional*.sgf` positions of GNU Go's extension: dead opponent stones, the seki shape
/// inside a lone two-stone chain, ko captures) agrees point for point, including the cases the
/// file marks `*` (they failed in older GNU Go versions; 3.8 and we pass them).
#[test]
fn unconditional_matches_gnugo_unconditional_suite() {
    let (checked, bad) = run_suite(full);
    println!(
        "GNU Go unconditional.tst: {}/{checked} points agree",
        checked - bad.len()
    );
    assert!(checked > 600, "suite read: {checked}");
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Plain Benson (what the scorer uses) never contradicts GNU Go on its suite: where it
/// decides a point it agrees; it only says `undecided` more often. One region differs in
/// kind: an 11-point empty corner enclosed by pass-alive stones, which GNU Go calls territory
/// and Benson leaves open (the opponent could in principle live in a region that large).
#[test]
fn benson_never_contradicts_gnugo_unconditional_suite() {
    let (checked, bad) = run_suite(plain);
    let contradictions: Vec<_> = bad
        .iter()
        .filter(|b| !b.ends_with("got undecided"))
        .collect();
    println!(
        "plain Benson on unconditional.tst: {}/{checked} points agree",
        checked - bad.len()
    );
    assert!(checked > 600, "suite read: {checked}");
    assert!(contradictions.is_empty(), "{contradictions:?}");
    assert!(checked - bad.len() >= 400, "{bad:#?}");
}

/// A GTP session with GNU Go, if the binary is installed.
struct Gnugo {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Gnugo {
    fn start() -> Option<Gnugo> {
        let mut child = Command::new("/usr/games/gnugo")
            .args(["--mode", "gtp", "--level", "0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let out = BufReader::new(child.stdout.take()?);
        Some(Gnugo { child, out })
    }

    fn ask(&mut self, cmd: &str) -> String {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{cmd}").expect("write to gnugo");
        stdin.flush().expect("flush");
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            if self.out.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            if line.trim().is_empty() {
                if !answer.is_empty() {
                    break;
                }
                continue;
            }
            answer.push_str(line.trim());
        }
        assert!(answer.starts_with('='), "gnugo: {cmd} -> {answer}");
        answer.trim_start_matches('=').trim().to_string()
    }
}

impl Drop for Gnugo {
    fn drop(&mut self) {
        let _ = self.ask_quit();
    }
}

impl Gnugo {
    fn ask_quit(&mut self) -> std::io::Result<()> {
        if let Some(stdin) = self.child.stdin.as_mut() {
            writeln!(stdin, "quit")?;
        }
        self.child.wait().map(|_| ())
    }
}

/// Random 7×7, 9×9, 13×13 and 19×19 games played to the end without filling own eyes, cut at
/// random moves, compared point by point with GNU Go's `unconditional_status`: every point of
/// [`unconditional`] must agree, and plain [`benson`] must never contradict it.
#[test]
fn unconditional_agrees_with_gnugo_on_random_positions() {
    let Some(mut gg) = Gnugo::start() else {
        println!("note: /usr/games/gnugo not found; skipping the comparison with GNU Go");
        return;
    };
    let mut rng = baduk_rng::Rng::new(20_261_129);
    let (mut points, mut agree, mut decided) = (0usize, 0usize, 0usize);
    let mut contradictions = Vec::new();
    let mut differences = Vec::new();
    for game in 0..28 {
        let n = [7, 9, 7, 9, 13, 7, 19][game % 7];
        let size = Size::square(n).unwrap();
        let mut board = Board::new(size);
        let mut moves = Vec::new();
        let mut color = Color::Black;
        let mut passes = 0;
        while passes < 2 && moves.len() < 4 * size.area() {
            let empties: Vec<Point> = board.empty_points().collect();
            let legal: Vec<Point> = empties
                .into_iter()
                .filter(|&p| board.is_simple_legal(p, color) && !board.is_eye(p, color))
                .collect();
            if legal.is_empty() {
                passes += 1;
            } else {
                passes = 0;
                let p = legal[rng.below(legal.len())];
                board.play(p, color).unwrap();
                moves.push((color, p));
            }
            color = color.opponent();
        }
        // Cut the game at a random move (often at the very end, where most is settled).
        let cut = if game % 3 == 0 {
            moves.len()
        } else {
            moves.len() / 2 + rng.below(moves.len() / 2 + 1)
        };
        let mut b = Board::new(size);
        gg.ask(&format!("boardsize {n}"));
        gg.ask("clear_board");
        for &(c, p) in &moves[..cut] {
            b.play(p, c).unwrap();
            gg.ask(&format!(
                "play {} {}",
                if c == Color::Black { "b" } else { "w" },
                p
            ));
        }
        let full = unconditional(&b);
        let plain = benson(&b);
        for p in size.points() {
            let ours = full.status(&b, p);
            let theirs = gg.ask(&format!("unconditional_status {p}"));
            points += 1;
            if ours.word() == theirs {
                agree += 1;
            } else {
                differences.push(format!(
                    "game {game} ({n}x{n}) move {cut} {p}: ours {ours}, gnugo {theirs}"
                ));
            }
            let benson_says = plain.status(&b, p);
            if benson_says != Unconditional::Undecided {
                decided += 1;
                if benson_says.word() != theirs {
                    contradictions.push(format!(
                        "game {game} move {cut} {p}: benson {benson_says}, gnugo {theirs}"
                    ));
                }
            }
        }
    }
    println!(
        "random positions: {agree}/{points} points agree with GNU Go ({:.1}%); plain Benson decides {decided}, {} contradictions",
        100.0 * agree as f64 / points as f64,
        contradictions.len()
    );
    assert!(differences.is_empty(), "{differences:#?}");
    assert!(contradictions.is_empty(), "{contradictions:#?}");
    assert!(decided > 0);
}
