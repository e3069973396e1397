//! Issue 14: what real GUIs (Sabaki, Lizzie, LizGoban, GoGui) need from the engine — analysis
//! for either colour, readable `info` lines, strict analysis arguments, any komi, FF[4] SGF, a
//! version they accept — driven through `run` with a client that waits between commands as a
//! GUI does.

use baduk_gtp::engine_with_options;
use std::io::{BufReader, Read, Write};
use std::time::{Duration, Instant};

/// Input that hands over each line after its delay, as a GUI types commands over time.
struct Slow {
    lines: Vec<(Duration, String)>,
    next: usize,
    cur: Vec<u8>,
    pos: usize,
    sent: std::sync::Arc<std::sync::Mutex<Vec<Instant>>>,
}

impl Read for Slow {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.cur.len() {
            let Some((delay, line)) = self.lines.get(self.next) else {
                return Ok(0);
            };
            std::thread::sleep(*delay);
            self.sent.lock().unwrap().push(Instant::now());
            self.cur = format!("{line}\n").into_bytes();
            self.pos = 0;
            self.next += 1;
        }
        let n = buf.len().min(self.cur.len() - self.pos);
        buf[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Output that notes when each line was written.
#[derive(Default)]
struct Timed {
    partial: String,
    lines: Vec<(Instant, String)>,
}

impl Write for Timed {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.partial.push_str(&String::from_utf8_lossy(b));
        while let Some(k) = self.partial.find('\n') {
            let line = self.partial[..k].to_string();
            self.partial.drain(..=k);
            self.lines.push((Instant::now(), line));
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `script` (delay in ms before each line, line) and returns the timed output lines and
/// the times the lines were sent.
fn drive(opts: &str, script: &[(u64, &str)]) -> (Vec<(Instant, String)>, Vec<Instant>) {
    let mut e = engine_with_options(opts).unwrap();
    let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let input = Slow {
        lines: script
            .iter()
            .map(|(d, l)| (Duration::from_millis(*d), l.to_string()))
            .collect(),
        next: 0,
        cur: Vec::new(),
        pos: 0,
        sent: sent.clone(),
    };
    let mut out = Timed::default();
    e.run(BufReader::new(input), &mut out).unwrap();
    let sent = sent.lock().unwrap().clone();
    (out.lines, sent)
}

/// The text of a scripted session without delays.
fn session(opts: &str, input: &str) -> String {
    let mut e = engine_with_options(opts).unwrap();
    let mut out: Vec<u8> = Vec::new();
    e.run(std::io::Cursor::new(input.as_bytes().to_vec()), &mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

fn answers(opts: &str, input: &str) -> Vec<String> {
    session(opts, input)
        .split("\n\n")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// One move of an analysis line, read the way Sabaki reads it: split at `info`, the `pv` runs
/// to the end, the other words are key-value pairs.
#[derive(Debug)]
struct Variation {
    mv: String,
    visits: u64,
    winrate: f64,
    order: u64,
    pv: Vec<String>,
    keys: Vec<String>,
}

fn sabaki_parse(line: &str) -> Vec<Variation> {
    let mut out = Vec::new();
    for part in line.split("info ").map(str::trim).filter(|p| !p.is_empty()) {
        let (head, pv) = part.split_once(" pv ").expect("each move has a pv");
        let words: Vec<&str> = head.split_whitespace().collect();
        let get = |k: &str| {
            words
                .chunks(2)
                .find(|c| c[0] == k)
                .map(|c| c[1].to_string())
                .unwrap_or_else(|| panic!("{k} missing in {part}"))
        };
        // Kata lines may carry `pvVisits …` after the pv, and `ownership …` after the last.
        let pv: Vec<String> = pv
            .split(" pvVisits ")
            .next()
            .unwrap()
            .split(" ownership ")
            .next()
            .unwrap()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        out.push(Variation {
            mv: get("move"),
            visits: get("visits").parse().unwrap(),
            winrate: get("winrate").parse().unwrap(),
            order: get("order").parse().unwrap(),
            pv,
            keys: words.chunks(2).map(|c| c[0].to_string()).collect(),
        });
    }
    out
}

/// The `info` lines of the response with id `id`.
fn info_lines(text: &str, id: u32) -> Vec<String> {
    let after = text
        .split(&format!("={id}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("no ={id} in {text}"));
    let body = after.split("\n\n").next().unwrap();
    body.lines()
        .filter(|l| l.starts_with("info "))
        .map(str::to_string)
        .collect()
}

fn top_winrate(text: &str, id: u32) -> f64 {
    let lines = info_lines(text, id);
    let v = sabaki_parse(lines.last().expect("an info line"));
    assert_eq!(v[0].order, 0);
    v[0].winrate
}

#[test]
fn analysis_is_for_the_colour_asked_not_the_tree_at_hand() {
    // Komi 100 on 9×9: White wins whatever happens, Black never. Black's analysis after
    // White's (and the other way round, and after set-up stones) must say so.
    for (komi, first, second, setup) in [
        ("100", 'w', 'b', ""),
        ("-100", 'b', 'w', ""),
        ("100", 'w', 'b', "set_free_handicap c3 g7\n"),
        ("-100", 'b', 'w', "set_free_handicap c3 g7\n"),
    ] {
        let text = session(
            "playouts=300,seed=5",
            &format!(
                "boardsize 9\nkomi {komi}\n{setup}1 lz-analyze {first} 10\n2 lz-analyze {second} 10\n3 genmove {second}\n"
            ),
        );
        let (w1, w2) = (top_winrate(&text, 1), top_winrate(&text, 2));
        assert!(w1 > 9000.0, "{first} wins with komi {komi}: {w1}\n{text}");
        assert!(
            w2 < 1000.0,
            "{second} loses with komi {komi}, whatever tree the engine had: {w2}\n{text}"
        );
        assert!(text.contains("=3 "), "{text}");
    }
}

#[test]
fn analysis_lines_list_the_moves_worth_showing_as_sabaki_reads_them() {
    let (out, _) = drive(
        "seed=3",
        &[
            (0, "boardsize 9"),
            (0, "play b e5"),
            (0, "1 lz-analyze w interval 10"),
            (700, "name"),
        ],
    );
    let text: Vec<&str> = out.iter().map(|(_, l)| l.as_str()).collect();
    let lines: Vec<&&str> = text.iter().filter(|l| l.starts_with("info ")).collect();
    assert!(lines.len() >= 3, "{text:?}");
    for line in lines {
        assert!(line.len() < 4000, "a line of {} bytes", line.len());
        let v = sabaki_parse(line);
        assert!(!v.is_empty() && v.len() <= 20, "{} moves", v.len());
        for (k, m) in v.iter().enumerate() {
            assert_eq!(m.order, k as u64);
            assert_eq!(m.pv[0], m.mv);
            for key in ["visits", "winrate", "prior", "lcb", "order"] {
                assert!(m.keys.iter().any(|x| x == key), "{key} missing");
            }
            if k > 0 {
                assert!(m.visits <= v[k - 1].visits, "listed most visited first");
                assert!(m.visits >= 2, "a move with {} visit(s) listed", m.visits);
            }
        }
        // Sabaki shows the best win rate over the listed moves: it must be the best move's.
        let best = v.iter().map(|m| m.winrate).fold(f64::MIN, f64::max);
        assert_eq!(best, v[0].winrate, "{line}");
    }
}

#[test]
fn maxmoves_minmoves_and_kata_lines() {
    let (out, _) = drive(
        "seed=4",
        &[
            (0, "boardsize 9"),
            (0, "1 lz-analyze b interval 10 maxmoves 2"),
            (
                350,
                "2 kata-analyze b interval 10 ownership true pvVisits true minmoves 4",
            ),
            (350, "name"),
        ],
    );
    let text: String = out
        .iter()
        .map(|(_, l)| format!("{l}\n"))
        .collect::<String>();
    for l in info_lines(&text, 1) {
        assert!(sabaki_parse(&l).len() <= 2, "{l}");
    }
    let kata = info_lines(&text, 2);
    assert!(!kata.is_empty(), "{text}");
    for l in &kata {
        let v = sabaki_parse(l);
        assert!(v.len() >= 4, "minmoves 4: {l}");
        assert!(
            v[0].winrate <= 1.0 && v[0].winrate >= 0.0,
            "KataGo win rates are fractions"
        );
        assert!(l.contains(" pvVisits "), "{l}");
        for key in ["utility", "scoreMean", "scoreLead", "prior", "lcb", "order"] {
            assert!(v[0].keys.iter().any(|k| k == key), "{key} missing in {l}");
        }
        let own = l.split(" ownership ").nth(1).expect("ownership");
        let vals: Vec<f64> = own.split_whitespace().map(|x| x.parse().unwrap()).collect();
        assert_eq!(vals.len(), 81);
        assert!(vals.iter().all(|o| (-1.0..=1.0).contains(o)));
    }
}

#[test]
fn kata_score_lead_is_for_the_colour_analysed() {
    let text = session(
        "playouts=300,seed=8",
        "boardsize 9\nkomi 50\n1 kata-analyze b 10\n2 kata-analyze w 10\n",
    );
    let lead = |id| {
        let l = info_lines(&text, id).pop().unwrap();
        let words: Vec<&str> = l.split_whitespace().collect();
        let k = words.iter().position(|w| *w == "scoreLead").unwrap();
        words[k + 1].parse::<f64>().unwrap()
    };
    let (b, w) = (lead(1), lead(2));
    assert!(b < -10.0 && w > 10.0, "komi 50: Black {b}, White {w}");
}

#[test]
fn lz_genmove_analyze_streams_while_it_thinks_and_its_colour_is_optional() {
    let (out, _) = drive(
        "time=0.6,seed=2",
        &[
            (0, "boardsize 9"),
            (0, "5 lz-genmove_analyze 10"),
            (0, "quit"),
        ],
    );
    let start = out.iter().position(|(_, l)| l == "=5").expect("=5");
    let end = out
        .iter()
        .position(|(_, l)| l.starts_with("play "))
        .unwrap();
    let infos: Vec<&(Instant, String)> = out[start..end]
        .iter()
        .filter(|(_, l)| l.starts_with("info "))
        .collect();
    assert!(infos.len() >= 3, "lines while thinking: {}", infos.len());
    // Streamed: the first line came well before the move.
    assert!(out[end].0.duration_since(infos[0].0) > Duration::from_millis(200));
    assert_ne!(out[end].1, "play resign");
}

#[test]
fn named_keys_avoid_allow_and_a_prompt_stop() {
    let (out, sent) = drive(
        "seed=6",
        &[
            (0, "boardsize 9"),
            (0, "1 lz-analyze b interval 10 minmoves 3"),
            (500, "2 lz-analyze b 1000 avoid b E5,D5,E4,F5,E6 1"),
            (300, "3 lz-analyze b interval 5 allow b C3,G7 1"),
            (300, "4 name"),
        ],
    );
    let text: String = out.iter().map(|(_, l)| format!("{l}\n")).collect();
    // `interval 10 minmoves 3` is a 100 ms interval: about 5 lines in 0.5 s, not 12.
    let n = info_lines(&text, 1).len();
    assert!((2..=7).contains(&n), "{n} lines in 0.5 s at 100 ms");
    for l in info_lines(&text, 2) {
        for v in sabaki_parse(&l) {
            assert!(
                !["E5", "D5", "E4", "F5", "E6"].contains(&v.mv.as_str()),
                "{l}"
            );
        }
    }
    let allowed = info_lines(&text, 3);
    assert!(!allowed.is_empty());
    for l in allowed {
        for v in sabaki_parse(&l) {
            assert!(["C3", "G7", "pass"].contains(&v.mv.as_str()), "{l}");
        }
    }
    // The stop: each new command is answered within ~50 ms of arriving, whatever the interval
    // (10 s for analysis 2). Loose bound for a loaded test machine.
    for (k, id) in [(3usize, "=3"), (4, "=4 baduk")] {
        let answered = out.iter().find(|(_, l)| l == id).expect(id).0;
        let took = answered.duration_since(sent[k]);
        assert!(took < Duration::from_millis(250), "{id} took {took:?}");
    }
}

#[test]
fn bad_analysis_arguments_are_refused_and_change_nothing() {
    let a = answers(
        "playouts=50",
        "boardsize 9\nplay b e5\n1 lz-analyze b fly\n2 lz-analyze purple\n3 lz-analyze b interval\n4 lz-analyze b avoid b Z99 1\n5 lz-analyze b avoid b E5\n6 kata-analyze b ownership maybe\n7 lz-analyze b ownership true\n8 lz-analyze b interval -1\n9 lz-genmove_analyze b maxmoves\n10 kata-analyze b avoid w K1 1\nshowboard\n",
    );
    for (k, ans) in a[2..12].iter().enumerate() {
        assert!(
            ans.starts_with(&format!("?{} syntax error", k + 1)),
            "{k}: {ans}"
        );
    }
    assert!(a[5].contains("off the board"), "{}", a[5]);
    assert_eq!(
        a[12].matches('X').count(),
        1,
        "nothing was played: {}",
        a[12]
    );
    assert!(a[12].contains("to move: W"), "{}", a[12]);
}

#[test]
fn any_finite_komi_is_accepted_and_scored_exactly() {
    // Black owns the left side, White the right: 10 points each (A3's dead stone removed).
    let mut s = String::from("boardsize 5\n");
    for r in 1..=5 {
        s.push_str(&format!("play b b{r}\nplay w d{r}\n"));
    }
    s.push_str("play w a3\nplay b pass\nplay w pass\n");
    for (komi, score) in [
        ("3.75", "W+3.75"),
        ("6.3", "W+6.3"),
        ("-0.25", "B+0.25"),
        ("0", "0"),
    ] {
        let a = answers(
            "playouts=20",
            &format!("{s}komi {komi}\nfinal_score\nprintsgf\n"),
        );
        let n = a.len();
        assert_eq!(a[n - 3], "= ", "komi {komi}");
        assert_eq!(a[n - 2], format!("= {score}"), "komi {komi}");
        assert!(a[n - 1].contains(&format!("KM[{komi}]")), "{}", a[n - 1]);
    }
    // Refused with a reason, the komi unchanged.
    let a = answers(
        "playouts=20",
        "komi 3.75\nkomi nan\nkomi inf\nkomi 1e999\nkomi -inf\nkomi\nkomi 6.5.5\nprintsgf\n",
    );
    for ans in &a[1..7] {
        assert!(ans.starts_with("? syntax error"), "{ans}");
    }
    assert!(a[1].contains("finite"), "{}", a[1]);
    assert!(a[7].contains("KM[3.75]"), "{}", a[7]);
}

#[test]
fn baduk_rules_keeps_the_komi_unless_it_sets_komi() {
    let a = answers(
        "playouts=20",
        "komi 3.75\nbaduk-rules japanese\nprintsgf\nbaduk-rules japanese,komi=6.5\nprintsgf\nkomi 0.5\nkgs-rules chinese\nprintsgf\n",
    );
    assert!(a[2].contains("KM[3.75]"), "{}", a[2]);
    assert!(a[4].contains("KM[6.5]"), "{}", a[4]);
    assert!(a[7].contains("KM[0.5]"), "{}", a[7]);
}

#[test]
fn printsgf_is_strict_ff4() {
    let a = answers(
        "playouts=20",
        "boardsize 9\nplay b e5\nprintsgf\nboardsize 19\nprintsgf\n",
    );
    for (k, n) in [(2, 9), (4, 19)] {
        assert!(a[k].contains(&format!("SZ[{n}]")), "{}", a[k]);
        assert!(!a[k].contains(&format!("SZ[{n}:{n}]")), "{}", a[k]);
        for p in ["FF[4]", "GM[1]", "CA[UTF-8]", "AP[baduk:", "DT["] {
            assert!(a[k].contains(p), "{p} missing: {}", a[k]);
        }
    }
}

#[test]
fn version_is_a_plain_version_number() {
    let a = answers("playouts=20", "1 version\n2 name\n");
    let v = a[0].strip_prefix("=1 ").unwrap();
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
    let parts: Vec<&str> = v.split('.').collect();
    assert_eq!(parts.len(), 3, "{v}");
    assert!(parts.iter().all(|p| p.parse::<u32>().is_ok()), "{v}");
    assert_eq!(a[1], "=2 baduk");
}

#[test]
fn off_board_vertices_are_invalid_coordinates_as_gnu_go_says() {
    let a = answers(
        "playouts=20",
        "boardsize 9\nplay b K1\nplay b A10\nplay w A0\nplay b zz\nplay b e5\n",
    );
    assert_eq!(a[1], "? invalid coordinate");
    assert_eq!(a[2], "? invalid coordinate");
    assert_eq!(a[3], "? invalid coordinate");
    assert!(a[4].starts_with("? syntax error"), "{}", a[4]);
    assert_eq!(a[5], "= ");
}

#[test]
fn list_commands_names_the_kata_commands() {
    let a = answers("playouts=20", "list_commands\nknown_command kata-analyze\n");
    assert!(a[0]
        .lines()
        .any(|l| l.trim_start_matches("= ") == "kata-analyze"));
    assert_eq!(a[1], "= true");
}

#[test]
fn avoid_holds_for_the_plies_it_is_given_for() {
    let (out, _) = drive(
        "seed=9",
        &[
            (0, "boardsize 9"),
            (
                0,
                "1 lz-analyze b interval 10 avoid w E5,D5,E4,F5,E6 2 allow b C3,G7 1",
            ),
            (500, "name"),
        ],
    );
    let text: String = out.iter().map(|(_, l)| format!("{l}\n")).collect();
    let mut replies = 0;
    for l in info_lines(&text, 1) {
        for v in sabaki_parse(&l) {
            assert!(["C3", "G7", "pass"].contains(&v.mv.as_str()), "{l}");
            if let Some(r) = v.pv.get(1) {
                replies += 1;
                assert!(!["E5", "D5", "E4", "F5", "E6"].contains(&r.as_str()), "{l}");
            }
        }
    }
    assert!(replies > 0, "{text}");
}
