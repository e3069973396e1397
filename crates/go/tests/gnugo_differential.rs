//! Differential tests against GNU Go 3.8 (`is_legal` over GTP): for random games on small
//! boards, the set of legal board plays must agree at every position, under simple ko,
//! positional and situational superko, multi-stone and all suicide. Skipped, with a note, when
//! `/usr/games/gnugo` is not installed.

use baduk_go::{Color, Game, Move, Rules, Size};
use baduk_rng::Rng;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const GNUGO: &str = "/usr/games/gnugo";

struct Gtp {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Gtp {
    fn start(flags: &[&str]) -> Gtp {
        let mut child = Command::new(GNUGO)
            .args(["--mode", "gtp"])
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start gnugo");
        let input = child.stdin.take().expect("gnugo stdin");
        let output = BufReader::new(child.stdout.take().expect("gnugo stdout"));
        Gtp {
            child,
            input,
            output,
        }
    }

    /// Sends every command at once, then reads one response per command.
    fn batch(&mut self, cmds: &[String]) -> Vec<String> {
        let mut text = String::new();
        for c in cmds {
            text.push_str(c);
            text.push('\n');
        }
        self.input.write_all(text.as_bytes()).expect("write gtp");
        self.input.flush().expect("flush gtp");
        let mut out = Vec::with_capacity(cmds.len());
        for _ in cmds {
            let mut resp = String::new();
            loop {
                let mut line = String::new();
                let n = self.output.read_line(&mut line).expect("read gtp");
                assert!(n > 0, "gnugo closed its output");
                if line.trim().is_empty() {
                    if resp.is_empty() {
                        continue;
                    }
                    break;
                }
                resp.push_str(line.trim());
            }
            out.push(resp);
        }
        out
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = self.input.write_all(b"quit\n");
        let _ = self.child.wait();
    }
}

fn colour(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// Plays `games` random games of up to `moves` moves under both engines, comparing the legal
/// board plays of the side to move at every position.
fn compare(flags: &[&str], rules: &str, seed: u64, sizes: &[u32], moves: usize) {
    if !Path::new(GNUGO).exists() {
        println!("note: {GNUGO} is not installed; skipping the GNU Go differential test");
        return;
    }
    let mut gtp = Gtp::start(flags);
    let mut rng = Rng::new(seed);
    for &n in sizes {
        let size = Size::square(n).unwrap();
        let mut g = Game::new(Rules::parse(rules).unwrap().with_size(size));
        let setup = gtp.batch(&[format!("boardsize {n}"), "clear_board".into()]);
        assert!(setup.iter().all(|r| r.starts_with('=')), "{setup:?}");
        for _ in 0..moves {
            let c = g.to_move();
            let points: Vec<_> = g
                .board()
                .points()
                .filter(|&p| g.board().is_empty(p))
                .collect();
            let cmds: Vec<String> = points
                .iter()
                .map(|p| format!("is_legal {} {}", colour(c), p.to_gtp()))
                .collect();
            let answers = gtp.batch(&cmds);
            for (p, a) in points.iter().zip(&answers) {
                let theirs = a == "= 1";
                let ours = g.is_legal(Move::Play(*p));
                assert_eq!(
                    ours,
                    theirs,
                    "{rules} vs gnugo {flags:?}: {} {} after {} moves (ours: {:?})\n{}",
                    colour(c),
                    p.to_gtp(),
                    g.move_count(),
                    g.check_move(Move::Play(*p)).err().map(|e| e.to_string()),
                    g.board()
                );
            }
            // A random legal move; a pass now and then, never two in a row.
            let legal: Vec<Move> = g
                .legal_moves()
                .into_iter()
                .filter(|m| *m != Move::Pass)
                .collect();
            let last_pass = g.history().last().is_some_and(|r| r.mv == Move::Pass);
            let mv = if legal.is_empty() || (!last_pass && rng.below(12) == 0) {
                if last_pass {
                    break;
                }
                Move::Pass
            } else {
                legal[rng.below(legal.len())]
            };
            g.play(mv).unwrap();
            let r = gtp.batch(&[format!("play {} {}", colour(c), mv)]);
            assert!(r[0].starts_with('='), "gnugo refused {mv}: {r:?}");
            if g.is_over() {
                break;
            }
        }
    }
}

#[test]
fn gnugo_agrees_on_simple_ko_and_forbidden_suicide() {
    compare(&[], "japanese,cycles=play-on", 1, &[5, 7, 9], 150);
}

// Superko bites beyond the plain ko mostly on tiny boards played long: 4×4 and 5×5 games of
// 400 random moves recreate earlier positions many times.
#[test]
fn gnugo_agrees_on_positional_superko() {
    let rules = "japanese,ko=positional,cycles=play-on";
    compare(
        &["--positional-superko"],
        rules,
        2,
        &[4, 4, 5, 5, 5, 7],
        400,
    );
}

#[test]
fn gnugo_agrees_on_situational_superko() {
    let rules = "japanese,ko=situational,cycles=play-on";
    compare(
        &["--situational-superko"],
        rules,
        3,
        &[4, 4, 5, 5, 5, 7],
        400,
    );
}

#[test]
fn gnugo_agrees_on_multi_stone_suicide() {
    let rules = "japanese,suicide=multi,cycles=play-on";
    compare(&["--allow-suicide"], rules, 4, &[5, 7, 9], 150);
}

#[test]
fn gnugo_agrees_on_all_suicide() {
    let rules = "japanese,suicide=allowed,cycles=play-on";
    compare(&["--allow-all-suicide"], rules, 5, &[5, 7, 9], 150);
}
