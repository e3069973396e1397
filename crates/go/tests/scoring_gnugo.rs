//! The dead-stone estimator on GNU Go's scoring regression games (`score.tst`, `score2.tst`):
//! finished 19×19 games scored under Japanese rules with the file's komi, compared with the
//! result GNU Go's suite expects.

use baduk_go::life::{estimate, EstimateConfig};
use baduk_go::scoring::record::Record;
use baduk_go::scoring::score;
use baduk_go::{Komi, Preset, Rules};

const GNUGO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/testdata/gnugo"
);

/// (file, expected result) pairs of the active tests of a `.tst` file.
fn cases(tst: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(format!("{GNUGO}/{tst}")).expect("tst file");
    let mut out = Vec::new();
    let mut file = None;
    let mut asked = false;
    for line in text.lines() {
        let l = line.trim();
        if let Some(f) = l.strip_prefix("loadsgf ") {
            file = Some(f.trim_start_matches("games/").to_string());
            asked = false;
        } else if l.ends_with("final_score") && !l.starts_with('#') {
            asked = true;
        } else if let Some(want) = l.strip_prefix("#? [") {
            if let (Some(f), true) = (&file, asked) {
                let want = want
                    .trim_end_matches('*')
                    .trim_end_matches(']')
                    .replace('\\', "");
                out.push((f.clone(), want));
            }
            asked = false;
        }
    }
    out
}

#[test]
fn estimator_agrees_with_gnugo_scoring_regressions() {
    let mut all = cases("score.tst");
    all.extend(cases("score2.tst"));
    let (mut exact, mut winner, mut near) = (0, 0, 0);
    let mut lines = Vec::new();
    let mut missing = Vec::new();
    for (file, want) in &all {
        let path = format!("{GNUGO}/{file}");
        let Ok(text) = std::fs::read_to_string(&path) else {
            missing.push(file.clone());
            continue;
        };
        let rec = Record::from_sgf(&text, None).expect("readable sgf");
        let mut rules = Rules::preset(Preset::Japanese).with_size(rec.board.size());
        rules.komi = rec.komi.unwrap_or(Komi::from_halves(11));
        let est = estimate(&rec.board, &EstimateConfig::default());
        let s = score(&rec.board, &rec.facts, &est.settled, &rules);
        let got = s.outcome.to_string();
        let want_margin: f64 = want[2..].parse().unwrap_or(0.0);
        let got_margin = s.margin().as_f64();
        let want_signed = if want.starts_with('B') {
            want_margin
        } else {
            -want_margin
        };
        if got == *want {
            exact += 1;
        }
        if got.as_bytes()[0] == want.as_bytes()[0] {
            winner += 1;
        }
        if (got_margin - want_signed).abs() <= 5.0 {
            near += 1;
        }
        lines.push(format!("{file}: want {want}, got {got}"));
    }
    let n = all.len() - missing.len();
    println!("not in the test data: {missing:?}");
    println!(
        "GNU Go scoring regressions: {n} games; exact result {exact} ({:.0}%), same winner {winner} ({:.0}%), within 5 points {near} ({:.0}%)",
        100.0 * exact as f64 / n as f64,
        100.0 * winner as f64 / n as f64,
        100.0 * near as f64 / n as f64
    );
    for l in &lines {
        println!("  {l}");
    }
    assert!(n >= 50, "cases read: {n}");
    // Floors we reach: 43/55 exact (78%) and 50/55 same winner (91%) with the default seed, 76% and
    // 89% with other seeds; the rest end with large unsettled groups.
    assert!(exact * 100 >= n * 70, "exact result in only {exact}/{n}");
    assert!(winner * 100 >= n * 85, "same winner in only {winner}/{n}");
}
