//! `baduk bench arena` in small: a few bot players for a fraction of a minute on one server on
//! SQLite, and (under scripts/with-postgres) on two processes of one PostgreSQL database; the
//! report's shape and that players were paired again after their games.

mod common;

use std::process::Command;

/// Runs `baduk bench arena` with `args`: its standard output.
fn bench(args: &[&str]) -> String {
    let o = Command::new(common::BIN)
        .args(["bench", "arena", "--players", "6", "--minutes", "0.4"])
        .args(args)
        .output()
        .expect("baduk runs");
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// The number after `key` on the line that starts with `line`.
fn figure(out: &str, line: &str, key: &str) -> f64 {
    let l = out
        .lines()
        .find(|l| l.starts_with(line))
        .unwrap_or_else(|| panic!("{line}: {out}"));
    let rest = &l[l.find(key).unwrap_or_else(|| panic!("{key}: {l}")) + key.len()..];
    let n: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    n.parse().unwrap_or_else(|_| panic!("{key} {n}: {l}"))
}

/// The report's shape: the signature, pairings beyond the first three boards (players paired
/// again), latencies both ways, the sweep's and the CPU's share a pairing.
fn check(out: &str, signature: &str) {
    let first = out.lines().next().unwrap_or("");
    assert!(first.starts_with(signature), "{out}");
    assert!(figure(out, "pairings made:", "made:") > 3.0, "{out}");
    let again = figure(out, "pairing latency after a game ends", "histogram,");
    assert!(again > 0.0, "{out}");
    let stored = figure(out, "pairing latency from the database", "board stored,");
    assert_eq!(
        again, stored,
        "every latency observed is found in the database: {out}"
    );
    for line in ["sweep:", "server CPU:", "memory:"] {
        assert!(out.lines().any(|l| l.starts_with(line)), "{line}: {out}");
    }
}

#[test]
fn an_arena_bench_on_one_sqlite_server_reports_its_pairings_and_their_latency() {
    let out = bench(&[]);
    check(
        &out,
        "signature: arena of 6 players (baduk level=2, 30 playouts a move), go 9x9 chinese, no clock, 0.4 min, 1 process on SQLite",
    );
}

#[tokio::test]
async fn an_arena_bench_on_two_postgresql_processes_reports_them_both() {
    let Some(pg) = std::env::var("BADUK_TEST_POSTGRES")
        .ok()
        .filter(|v| !v.is_empty())
    else {
        eprintln!("BADUK_TEST_POSTGRES not set: this test runs under scripts/with-postgres");
        return;
    };
    let db = common::fresh_schema(&pg).await;
    let out = bench(&["--processes", "2", "--database-url", &db]);
    check(&out, "signature: arena of 6 players (baduk level=2, 30 playouts a move), go 9x9 chinese, no clock, 0.4 min, 2 processes on PostgreSQL");
    assert!(
        out.lines().any(|l| l.starts_with("pairings by process: ")),
        "{out}"
    );
}
