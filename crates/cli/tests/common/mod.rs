//! What the tests that run `baduk serve` as a process share.
#![allow(dead_code)] // each test file uses some of these

use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_baduk");

/// A TCP port on loopback that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `baduk serve` child process, killed when dropped.
pub struct Proc {
    pub child: Child,
    pub base: String,
    pub port: u16,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until the server at `base` answers `/healthz` (30 s at most).
pub async fn wait_up(base: &str) {
    let http = reqwest::Client::new();
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(r) = http.get(format!("{base}/healthz")).send().await {
            if r.status() == 200 {
                break;
            }
        }
        assert!(Instant::now() < end, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `baduk serve` on `db` with `args` and the cluster `secret`, once it answers.
pub async fn serve(db: &str, args: &[&str], secret: &str) -> Proc {
    let port = free_port();
    let child = Command::new(BIN)
        .args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--database",
            db,
        ])
        .args(args)
        // Processes on one PostgreSQL forward actions to a game's owner with this secret.
        .env("BADUK_CLUSTER_SECRET", secret)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("baduk serve starts");
    let base = format!("http://127.0.0.1:{port}");
    wait_up(&base).await;
    Proc { child, base, port }
}

/// POSTs `body` as JSON (with a bearer `token`): the status and the JSON answer (0 and null
/// when the server did not answer).
pub async fn post(base: &str, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut r = reqwest::Client::new()
        .post(format!("{base}{path}"))
        .json(&body);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    match r.send().await {
        Ok(resp) => {
            let s = resp.status().as_u16();
            (s, resp.json().await.unwrap_or(Value::Null))
        }
        Err(_) => (0, Value::Null),
    }
}

/// A game's state.
pub async fn state(base: &str, id: &str) -> Value {
    reqwest::get(format!("{base}/api/games/{id}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The test database with a fresh schema first in the search path (a cluster of its own).
pub async fn fresh_schema(db: &str) -> String {
    let schema = format!("c_{}", baduk_server::game::hub::new_id());
    let pool = sqlx::postgres::PgPool::connect(db).await.unwrap();
    sqlx::query(&format!("CREATE SCHEMA {schema}"))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let sep = if db.contains('?') { '&' } else { '?' };
    format!("{db}{sep}options[search_path]={schema}")
}
