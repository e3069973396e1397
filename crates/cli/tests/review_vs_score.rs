//! A review's table is `baduk go score`'s: for every game of GNU Go's scoring suite
//! (`../shared/testdata/gnugo/scoring`), the table served at upload equals `go score --rules all
//! --json` on the file, and after a dead chain is toggled on the review the table equals `go
//! score` on the file with the same stones marked dead (`MA`). Prints the toggle's
//! recomputation time (median, p99). A review also outlives a killed `baduk serve`.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_baduk");

fn suite() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata/gnugo/scoring");
    p.is_dir().then_some(p)
}

fn cli_rows(file: &Path) -> Value {
    let o = Command::new(BIN)
        .args(["go", "score"])
        .arg(file)
        .args(["--rules", "all", "--json", "--now"])
        .output()
        .expect("run baduk");
    assert!(
        o.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("go score --json prints JSON")
}

/// The SGF point of a GTP vertex on a `size`×`size` board.
fn sgf_point(gtp: &str, size: u32) -> String {
    let cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let x = cols.find(&gtp[..1]).expect("a column letter") as u8;
    let row: u32 = gtp[1..].parse().expect("a row number");
    let y = (size - row) as u8;
    format!("{}{}", (b'a' + x) as char, (b'a' + y) as char)
}

async fn post(http: &reqwest::Client, url: &str, body: Vec<u8>) -> (u16, Value) {
    let r = http.post(url).body(body).send().await.expect("answered");
    let st = r.status().as_u16();
    (st, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_tables_are_go_score_tables_over_the_gnugo_suite() {
    let Some(dir) = suite() else {
        eprintln!("../shared/testdata/gnugo/scoring is not here: nothing to compare");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let running = baduk_server::start(baduk_server::Config {
        addr: "127.0.0.1:0".into(),
        database: format!("sqlite:{}", tmp.path().join("r.db").display()),
        rate_limit: 0.0,
        limits: baduk_server::Limits::unlimited(),
        ..Default::default()
    })
    .await
    .expect("the server starts");
    let base = format!("http://{}", running.addr);
    let http = reqwest::Client::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
        .collect();
    files.sort();
    assert!(files.len() >= 50, "{}", files.len());
    let mut toggles: Vec<Duration> = Vec::new();
    let mut compared = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let (st, v) = post(&http, &format!("{base}/api/reviews"), bytes.clone()).await;
        assert_eq!(st, 201, "{}: {v}", f.display());
        let id = v["id"].as_str().unwrap().to_string();
        let r: Value = http
            .get(format!("{base}/api/reviews/{id}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let size = r["size"]["cols"].as_u64().unwrap() as u32;
        assert_eq!(
            r["table"]["rows"],
            cli_rows(f),
            "{}: the table at upload",
            f.display()
        );
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if text.contains("MA[") || text.contains("TB[") || text.contains("TW[") {
            continue; // the file marks its own dead stones: nothing to add
        }
        // Toggle a chain: the last stone played that is still on the board (dead if the
        // proposal has it alive, alive if dead), on top of the proposal.
        let proposed = r["table"]["proposed"].clone();
        let played: Vec<String> = r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .filter(|m| m != "pass")
            .collect();
        let mut marked = Value::Null;
        let mut toggle = String::new();
        for p in played {
            let t0 = Instant::now();
            let (st, v) = post(
                &http,
                &format!("{base}/api/reviews/{id}/marks"),
                json!({"dead": proposed, "toggle": p})
                    .to_string()
                    .into_bytes(),
            )
            .await;
            toggles.push(t0.elapsed());
            if st == 200 {
                marked = v;
                toggle = p;
                break;
            }
            assert_eq!(st, 422, "{}: {v}", f.display());
        }
        assert!(marked.is_object(), "{}: no stone to toggle", f.display());
        let dead: Vec<String> = marked["dead"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect();
        if dead.is_empty() {
            continue; // no marks at all: the CLI would ask the estimator
        }
        let ma: String = dead
            .iter()
            .map(|p| format!("[{}]", sgf_point(p, size)))
            .collect();
        let end = text.rfind(')').unwrap();
        let marked_file = tmp.path().join(f.file_name().unwrap());
        std::fs::write(
            &marked_file,
            format!("{}MA{ma}{}", &text[..end], &text[end..]),
        )
        .unwrap();
        assert_eq!(
            marked["rows"],
            cli_rows(&marked_file),
            "{}: toggled {toggle}, dead {dead:?}",
            f.display()
        );
        compared += 1;
    }
    assert!(compared >= 40, "only {compared} toggles compared");
    toggles.sort();
    let p = |q: f64| toggles[((toggles.len() - 1) as f64 * q).round() as usize];
    println!(
        "review marks: {} toggles on 19x19, recomputation median {:?}, p99 {:?}, max {:?}",
        toggles.len(),
        p(0.5),
        p(0.99),
        toggles.last().unwrap()
    );
}

/// A `baduk serve` child, killed when dropped.
struct Proc(std::process::Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn serve(db: &str, port: u16) -> Proc {
    let child = Command::new(BIN)
        .args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--database",
            db,
        ])
        .args([
            "--no-limits",
            "--review-playouts",
            "200",
            "--bot-threads",
            "1",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("baduk serve starts");
    let http = reqwest::Client::new();
    let end = Instant::now() + Duration::from_secs(30);
    while http
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .send()
        .await
        .map_or(true, |r| r.status() != 200)
    {
        assert!(Instant::now() < end, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Proc(child)
}

async fn analysis(http: &reqwest::Client, base: &str, id: &str) -> Value {
    http.get(format!("{base}/api/reviews/{id}/analysis"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_review_goes_on_after_the_server_is_killed() {
    let tmp = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", tmp.path().join("r.db").display());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let sgf = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/game-9x9.sgf"
    ))
    .unwrap();
    let proc = serve(&db, port).await;
    let (st, v) = post(&http, &format!("{base}/api/reviews"), sgf).await;
    assert_eq!(st, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let (st, a) = post(
        &http,
        &format!("{base}/api/reviews/{id}/analysis"),
        Vec::new(),
    )
    .await;
    assert_eq!(st, 200, "{a}");
    let end = Instant::now() + Duration::from_secs(120);
    let before = loop {
        let a = analysis(&http, &base, &id).await;
        if a["done"].as_u64().unwrap() >= 3 {
            break a;
        }
        assert!(Instant::now() < end, "no progress: {a}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    drop(proc); // SIGKILL
    let _proc = serve(&db, port).await;
    let a = analysis(&http, &base, &id).await;
    assert!(a["done"].as_u64() >= before["done"].as_u64(), "{a}");
    assert!(
        ["queued", "running", "done"].contains(&a["status"].as_str().unwrap()),
        "{a}"
    );
    let end = Instant::now() + Duration::from_secs(180);
    loop {
        let a = analysis(&http, &base, &id).await;
        if a["status"] == "done" {
            assert_eq!(a["done"], a["total"]);
            // The positions stored before the kill are the same ones.
            for p in before["positions"].as_array().unwrap() {
                let k = p["position"].as_u64().unwrap() as usize;
                assert_eq!(&a["positions"][k], p);
            }
            break;
        }
        assert!(Instant::now() < end, "the review did not go on: {a}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
