//! Email against a real SMTP server (aiosmtpd, started here on a free port): an address
//! verified by its one-time link, "forgot password" (the same answer for any address, a
//! single-use link, every session ended, the old password refused, a rate per account), a "your
//! move" mail found by the sweep at a simulated time, one-click unsubscribe, nothing mailed to
//! an unverified address, and an SMTP server down or refusing: the mail stays queued and is
//! tried again with backoff while requests and games go on. Every mail is parsed as MIME.
//!
//! Needs Python 3 with aiosmtpd (`pip install aiosmtpd`); without it these tests say so and
//! pass without running.

mod common;

use baduk_server::config::MailConfig;
use baduk_server::mail::sweep::{forget_old, sweep};
use baduk_server::mail::{rows, send};
use common::accounts::{
    call, get, play, send as req, session_of, signup, uniq, with_token, Session,
};
use common::{databases, Server};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The SMTP server: accepts every mail (writing each to a file), or refuses every recipient.
const SMTP_PY: &str = r#"
import asyncio, itertools, os, sys
from aiosmtpd.smtp import SMTP
mode, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
count = itertools.count()
class Handler:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if mode == 'refuse':
            return '550 5.1.1 no such mailbox here'
        envelope.rcpt_tos.append(address)
        return '250 OK'
    async def handle_DATA(self, server, session, envelope):
        i = next(count)
        tmp = os.path.join(out, '.%04d.tmp' % i)
        with open(tmp, 'wb') as f:
            f.write(envelope.original_content)
        os.rename(tmp, os.path.join(out, '%04d.eml' % i))
        return '250 Message accepted'
async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(Handler()), '127.0.0.1', port)
    await server.serve_forever()
asyncio.run(main())
"#;

/// Whether Python's aiosmtpd is there (else the tests say so and pass).
fn have_aiosmtpd() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import aiosmtpd"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: the mail tests need Python 3 with aiosmtpd (pip install aiosmtpd)");
    }
    ok
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("its address")
        .port()
}

/// A running SMTP server (killed when dropped) and the folder its mails land in.
struct Smtp {
    child: std::process::Child,
    dir: PathBuf,
}

impl Smtp {
    /// Starts it on `port` (`accept` or `refuse`), writing mails under `dir`.
    async fn start(port: u16, mode: &str, dir: &Path) -> Smtp {
        let script = dir.join("smtp.py");
        std::fs::write(&script, SMTP_PY).expect("the script is written");
        let out = dir.join("mails");
        std::fs::create_dir_all(&out).expect("a mail folder");
        let smtp = Smtp {
            child: std::process::Command::new("python3")
                .arg(&script)
                .arg(mode)
                .arg(port.to_string())
                .arg(&out)
                .spawn()
                .expect("python3 starts"),
            dir: out,
        };
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return smtp;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the SMTP server did not listen on {port}");
    }

    /// Every mail received so far, in order, as raw bytes.
    fn raw(&self) -> Vec<Vec<u8>> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .expect("the mail folder reads")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .collect();
        files.sort();
        files
            .iter()
            .map(|p| std::fs::read(p).expect("a mail"))
            .collect()
    }

    /// Every mail received so far, parsed.
    fn mails(&self) -> Vec<Parsed> {
        self.raw().iter().map(|b| Parsed::of(b)).collect()
    }
}

impl Drop for Smtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the tests read of a mail (parsed by a MIME parser).
#[derive(Debug, Clone)]
struct Parsed {
    to: String,
    subject: String,
    body: String,
    list_unsubscribe: Option<String>,
    list_unsubscribe_post: Option<String>,
}

impl Parsed {
    fn of(raw: &[u8]) -> Parsed {
        let m = mail_parser::MessageParser::default()
            .parse(raw)
            .expect("a MIME message");
        Parsed {
            to: m
                .to()
                .and_then(|a| a.first())
                .and_then(|a| a.address())
                .expect("a To address")
                .to_string(),
            subject: m.subject().expect("a subject").to_string(),
            body: m.body_text(0).expect("a text body").to_string(),
            list_unsubscribe: m
                .header_raw("List-Unsubscribe")
                .map(|s| s.trim().to_string()),
            list_unsubscribe_post: m
                .header_raw("List-Unsubscribe-Post")
                .map(|s| s.trim().to_string()),
        }
    }

    /// The 64-hex-digit token after `marker` in the body.
    fn token_after(&self, marker: &str) -> String {
        let at = self
            .body
            .find(marker)
            .unwrap_or_else(|| panic!("no {marker} in {}", self.body));
        let t: String = self.body[at + marker.len()..].chars().take(64).collect();
        assert!(
            t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()),
            "{t}"
        );
        t
    }
}

/// The mail settings of a test server sending to `port` (the sweep and sender run by hand).
fn mail_config(port: u16) -> MailConfig {
    MailConfig {
        smtp: Some(format!("smtp://127.0.0.1:{port}")),
        from: Some("baduk <noreply@baduk.test>".into()),
        public_url: None,
        manual: true,
    }
}

async fn mail_server(db: &str, cfg: &MailConfig) -> Server {
    let cfg = cfg.clone();
    Server::start_config(db, move |c| c.mail = cfg).await
}

/// A test server on `db` sending to a fresh SMTP server that accepts every mail: the server,
/// the SMTP server, the mail settings and the folder (kept while the test runs).
async fn with_smtp(db: &str) -> (Server, Smtp, MailConfig, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a folder");
    let port = free_port();
    let smtp = Smtp::start(port, "accept", dir.path()).await;
    let cfg = mail_config(port);
    let s = mail_server(db, &cfg).await;
    (s, smtp, cfg, dir)
}

fn now() -> i64 {
    baduk_server::game::hub::now_ms()
}

/// Sends what is due now; returns how many went.
async fn flush(s: &Server, cfg: &MailConfig, at: i64) -> usize {
    send::send_due(&s.hub.store, cfg, at)
        .await
        .expect("the outbox reads")
}

/// A signed-up account whose address `email` is verified (the mail read and its link followed).
async fn verified(s: &Server, smtp: &Smtp, cfg: &MailConfig, name: &str, email: &str) -> Session {
    let who = signup(s, name).await;
    let before = smtp.raw().len();
    let (st, v) = call(
        s,
        "PUT",
        "/api/mail/email",
        &who,
        Some(json!({"email": email})),
    )
    .await;
    assert_eq!(st, 202, "{v}");
    assert_eq!(flush(s, cfg, now()).await, 1);
    let mail = smtp.mails().pop().expect("the verification mail");
    assert_eq!(smtp.raw().len(), before + 1);
    let token = mail.token_after("/mail/verify#");
    let (st, v) = s
        .post(
            "/api/mail/verify",
            None,
            &json!({"token": token}).to_string(),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    who
}

/// A new account named from `base`, its address verified, that chose `prefs`: its session,
/// name and address.
async fn subscriber(
    s: &Server,
    smtp: &Smtp,
    cfg: &MailConfig,
    base: &str,
    prefs: Value,
) -> (Session, String, String) {
    let name = uniq(base);
    let email = format!("{name}@example.org");
    let who = verified(s, smtp, cfg, &name, &email).await;
    let (st, v) = call(s, "PUT", "/api/mail/prefs", &who, Some(prefs.clone())).await;
    assert_eq!((st, &v["prefs"]), (200, &prefs), "{v}");
    (who, name, email)
}

#[tokio::test]
async fn an_address_is_verified_once_by_its_link_and_bad_settings_are_refused() {
    if !have_aiosmtpd() {
        return;
    }
    for db in databases() {
        let (s, smtp, cfg, _dir) = with_smtp(&db).await;
        let kim = signup(&s, &uniq("kim")).await;
        let (st, v) = get(&s, "/api/mail", &kim).await;
        assert_eq!(st, 200);
        assert_eq!(
            (v["enabled"].clone(), v["email"].clone()),
            (json!(true), Value::Null),
            "{v}"
        );
        // Hostile first: no address, a header smuggled in, a guest, an API token, bad choices.
        for bad in [
            json!({"email": "kim"}),
            json!({"email": "kim@example.org\r\nBcc: x@y.z"}),
            json!({"email": "a@b"}),
            json!({"email": 5}),
            json!({"address": "kim@example.org"}),
        ] {
            let (st, v) = call(&s, "PUT", "/api/mail/email", &kim, Some(bad.clone())).await;
            assert_eq!(st, 400, "{bad}: {v}");
        }
        let (st, v) = call(
            &s,
            "PUT",
            "/api/mail/email",
            &kim,
            Some(json!({"email": "kim"})),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (400, Some("mail.address")), "{v}");
        let (guest, _) = common::accounts::guest(&s).await;
        let (st, v) = call(
            &s,
            "PUT",
            "/api/mail/email",
            &guest,
            Some(json!({"email": "g@example.org"})),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (403, Some("mail.guest")), "{v}");
        let (_, tok) = call(
            &s,
            "POST",
            "/api/tokens",
            &kim,
            Some(json!({"label": "bot"})),
        )
        .await;
        let (st, v) = with_token(
            &s,
            "PUT",
            "/api/mail/email",
            tok["token"].as_str(),
            Some(json!({"email": "kim@example.org"})),
        )
        .await;
        assert_eq!(
            (st, v["code"].as_str()),
            (403, Some("auth.session_only")),
            "{v}"
        );
        for bad in [
            json!({"your_move": 0, "game_start": true, "clock_low": true, "challenge": true, "digest": false}),
            json!({"your_move": 169, "game_start": true, "clock_low": true, "challenge": true, "digest": false}),
        ] {
            let (st, v) = call(&s, "PUT", "/api/mail/prefs", &kim, Some(bad)).await;
            assert_eq!((st, v["code"].as_str()), (400, Some("mail.prefs")), "{v}");
        }
        let (st, _) = call(
            &s,
            "PUT",
            "/api/mail/prefs",
            &kim,
            Some(json!({"your_move": 5})),
        )
        .await;
        assert_eq!(st, 400);
        assert!(
            send::outbox(&s.hub.store).await.unwrap().is_empty(),
            "nothing queued yet"
        );

        // The address, then its link: once.
        let (st, v) = call(
            &s,
            "PUT",
            "/api/mail/email",
            &kim,
            Some(json!({"email": "Kim@Example.org"})),
        )
        .await;
        assert_eq!(st, 202, "{v}");
        assert_eq!(
            (v["email"].clone(), v["verified"].clone()),
            (json!("Kim@Example.org"), json!(false))
        );
        assert_eq!(flush(&s, &cfg, now()).await, 1);
        let mails = smtp.mails();
        assert_eq!(mails.len(), 1, "{mails:?}");
        let m = &mails[0];
        assert_eq!(m.to, "Kim@Example.org");
        assert!(m.subject.contains("verify"), "{m:?}");
        assert!(
            m.list_unsubscribe.is_none(),
            "a verification is no notification: {m:?}"
        );
        let token = m.token_after("/mail/verify#");
        assert!(
            m.body.contains(&format!("{}/mail/verify#{token}", s.base)),
            "{}",
            m.body
        );
        let verify = |t: String| {
            let s = &s;
            async move {
                s.post("/api/mail/verify", None, &json!({"token": t}).to_string())
                    .await
            }
        };
        let mut guessed = token.clone();
        guessed.replace_range(
            ..4,
            if token.starts_with("0000") {
                "1111"
            } else {
                "0000"
            },
        );
        for t in [
            guessed,
            "x".repeat(64),
            String::new(),
            token.to_uppercase()[..63].to_string(),
        ] {
            let (st, v) = verify(t).await;
            assert_eq!((st, v["code"].as_str()), (400, Some("mail.token")), "{v}");
        }
        let (st, v) = verify(token.clone()).await;
        assert_eq!((st, v["verified"].clone()), (200, json!(true)), "{v}");
        let (st, v) = verify(token).await;
        assert_eq!(
            (st, v["code"].as_str()),
            (400, Some("mail.token")),
            "used: {v}"
        );
        let (_, v) = get(&s, "/api/mail", &kim).await;
        assert_eq!(v["verified"], true, "{v}");
        assert_eq!(v["prefs"]["your_move"], 24, "{v}");
        // Nothing more was sent.
        assert_eq!(flush(&s, &cfg, now()).await, 0);
        assert_eq!(smtp.raw().len(), 1);
    }
}

#[tokio::test]
async fn a_password_reset_link_works_once_ends_every_session_and_the_old_password() {
    if !have_aiosmtpd() {
        return;
    }
    for db in databases() {
        let (s, smtp, cfg, _dir) = with_smtp(&db).await;
        let name = uniq("lee");
        let email = format!("{name}@example.org");
        let first = verified(&s, &smtp, &cfg, &name, &email).await;
        let login = |pw: &'static str| {
            let (s, name) = (&s, name.clone());
            async move {
                req(
                    s,
                    "POST",
                    "/api/auth/login",
                    &Session::default(),
                    None,
                    Some(json!({"username": name, "password": pw})),
                )
                .await
            }
        };
        let (st, set, v) = login("tengen-hoshi-komoku").await;
        assert_eq!(st, 200, "{v}");
        let second = session_of(set, &v);
        // The same answer for an address nobody has, an unverified one and a known one.
        let forgot = |e: &str| {
            let s = &s;
            let body = json!({"email": e}).to_string();
            async move { s.post("/api/password/forgot", None, &body).await }
        };
        let unknown = forgot("nobody@example.org").await;
        let known = forgot(&email.to_uppercase()).await;
        assert_eq!(unknown.0, 202, "{unknown:?}");
        assert_eq!(unknown, known);
        let (st, v) = forgot("not an address").await;
        assert_eq!((st, v["code"].as_str()), (400, Some("mail.address")), "{v}");
        assert_eq!(
            flush(&s, &cfg, now()).await,
            1,
            "one link, to the account's address"
        );
        let m = smtp.mails().pop().unwrap();
        assert_eq!(m.to, email);
        assert!(m.subject.contains("password"), "{m:?}");
        let token = m.token_after("/mail/reset#");
        let reset = |t: &str, pw: &str| {
            let s = &s;
            let body = json!({"token": t, "password": pw}).to_string();
            async move { s.post("/api/password/reset", None, &body).await }
        };
        // A guessed link, a weak password (the link stays good), an expired link (a time
        // past its hour): refused, nothing changed.
        let (st, v) = reset(&"ab".repeat(32), "a-new-long-passphrase").await;
        assert_eq!((st, v["code"].as_str()), (400, Some("mail.token")), "{v}");
        let (st, v) = reset(&token, "short").await;
        assert_eq!(
            (st, v["code"].as_str()),
            (400, Some("auth.password_short")),
            "{v}"
        );
        let late = rows::take(
            &s.hub.store,
            &token,
            rows::Purpose::Reset,
            now() + 3_600_001,
        )
        .await
        .unwrap();
        assert!(late.is_none(), "an hour later the link is dead");
        let (st, _) = get(&s, "/api/me", &first).await;
        assert_eq!(st, 200, "nothing changed yet");
        // The reset: every session ends, the old password is refused, the link is dead.
        let (st, v) = reset(&token, "a-new-long-passphrase").await;
        assert_eq!((st, v["name"].as_str()), (200, Some(name.as_str())), "{v}");
        for who in [&first, &second] {
            let (st, v) = get(&s, "/api/me", who).await;
            assert_eq!(st, 401, "a session of before the reset: {v}");
        }
        let (st, _, v) = login("tengen-hoshi-komoku").await;
        assert_eq!(st, 401, "the old password: {v}");
        let (st, _, v) = login("a-new-long-passphrase").await;
        assert_eq!(st, 200, "{v}");
        let (st, v) = reset(&token, "another-long-passphrase").await;
        assert_eq!(
            (st, v["code"].as_str()),
            (400, Some("mail.token")),
            "reused: {v}"
        );
        // Rated per account: three links an hour at most, each ask answered alike.
        for _ in 0..4 {
            assert_eq!(forgot(&email).await, known);
        }
        assert_eq!(
            flush(&s, &cfg, now()).await,
            2,
            "three links in the hour in all"
        );
        assert_eq!(smtp.raw().len(), 4, "verification, then three links");
    }
}

/// A game between `black` and `white` (accounts) on `clock` (None: untimed), black to play;
/// returns its id.
async fn game_with_clock(
    s: &Server,
    black: &Session,
    white: &Session,
    clock: Option<&str>,
) -> String {
    let mut spec = json!({"game": "go", "size": 9});
    if let Some(c) = clock {
        spec["clock"] = json!(c);
    }
    common::accounts::game_between(s, black, white, spec)
        .await
        .0
}

#[tokio::test]
async fn a_your_move_mail_comes_once_after_the_hours_chosen_and_one_click_unsubscribes() {
    if !have_aiosmtpd() {
        return;
    }
    for db in databases() {
        let (s, smtp, cfg, _dir) = with_smtp(&db).await;
        let prefs = json!({"your_move": 2, "game_start": false, "clock_low": true,
            "challenge": false, "digest": false});
        let (park, _, email) = subscriber(&s, &smtp, &cfg, "park", prefs).await;
        // Choi has an address, never verified: nothing but its verification goes there.
        let choi = signup(&s, &uniq("choi")).await;
        let choi_at = format!("{}@example.org", uniq("choi"));
        let (st, _) = call(
            &s,
            "PUT",
            "/api/mail/email",
            &choi,
            Some(json!({"email": choi_at})),
        )
        .await;
        assert_eq!(st, 202);
        let (st, _) = call(
            &s,
            "PUT",
            "/api/mail/prefs",
            &choi,
            Some(json!({"your_move": 1,
            "game_start": true, "clock_low": true, "challenge": true, "digest": false})),
        )
        .await;
        assert_eq!(st, 200);
        let id = game_with_clock(&s, &park, &choi, None).await;
        let t0 = now();
        let base = s.base.clone();
        // Park to play: not yet after an hour, once after two, never twice.
        assert_eq!(sweep(&s.hub.store, &base, t0 + 3_600_000).await.unwrap(), 0);
        assert_eq!(
            sweep(&s.hub.store, &base, t0 + 2 * 3_600_000 + 60_000)
                .await
                .unwrap(),
            1
        );
        assert_eq!(
            sweep(&s.hub.store, &base, t0 + 3 * 3_600_000)
                .await
                .unwrap(),
            0
        );
        let before = smtp.raw().len();
        assert_eq!(
            flush(&s, &cfg, t0 + 3 * 3_600_000).await,
            2,
            "choi's verification, park's move"
        );
        let mails = smtp.mails()[before..].to_vec();
        let to_park: Vec<&Parsed> = mails.iter().filter(|m| m.to == email).collect();
        assert_eq!(to_park.len(), 1, "{mails:?}");
        let m = to_park[0];
        assert!(m.subject.contains("Your move"), "{m:?}");
        assert!(m.body.contains(&format!("{base}/g/{id}")), "{}", m.body);
        assert_eq!(
            m.list_unsubscribe_post.as_deref(),
            Some("List-Unsubscribe=One-Click")
        );
        let url = m.list_unsubscribe.clone().expect("List-Unsubscribe");
        let url = url
            .trim_start_matches('<')
            .trim_end_matches('>')
            .to_string();
        assert!(
            url.starts_with(&format!("{base}/api/mail/unsubscribe/")),
            "{url}"
        );
        assert!(m.body.contains("/mail/unsubscribe#"), "{}", m.body);
        // Choi moves later and is to move for hours: an unverified address gets nothing.
        play(&s, &id, &park, "E5").await;
        let t1 = now();
        assert_eq!(
            sweep(&s.hub.store, &base, t1 + 5 * 3_600_000)
                .await
                .unwrap(),
            0
        );
        // One click (the mail client's POST, no cookie), then no more "your move" mails.
        let resp = s
            .http
            .post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body("List-Unsubscribe=One-Click")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let (_, v) = get(&s, "/api/mail", &park).await;
        assert_eq!(v["prefs"]["your_move"], Value::Null, "{v}");
        assert_eq!(v["prefs"]["clock_low"], true, "other kinds stay: {v}");
        let bad = format!("{base}/api/mail/unsubscribe/{}", "0".repeat(64));
        let resp = s.http.post(&bad).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 400);
        play(&s, &id, &choi, "C3").await;
        let t2 = now();
        assert_eq!(
            sweep(&s.hub.store, &base, t2 + 10 * 3_600_000)
                .await
                .unwrap(),
            0
        );
        assert_eq!(flush(&s, &cfg, t2 + 10 * 3_600_000).await, 0);
        assert!(smtp
            .mails()
            .iter()
            .all(|m| m.to != choi_at || m.subject.contains("verify")));
    }
}

#[tokio::test]
async fn an_smtp_server_down_or_refusing_keeps_the_mail_queued_and_retried_with_backoff() {
    if !have_aiosmtpd() {
        return;
    }
    for db in databases() {
        let dir = tempfile::tempdir().expect("a folder");
        let port = free_port();
        let cfg = mail_config(port);
        let s = mail_server(&db, &cfg).await;
        // Nobody listens: the request is answered, the game goes on, the mail waits.
        let kang = signup(&s, &uniq("kang")).await;
        let (st, v) = call(
            &s,
            "PUT",
            "/api/mail/email",
            &kang,
            Some(json!({"email": "kang@example.org"})),
        )
        .await;
        assert_eq!(st, 202, "{v}");
        let other = signup(&s, &uniq("yoo")).await;
        let id = game_with_clock(&s, &kang, &other, None).await;
        let t0 = now();
        assert_eq!(flush(&s, &cfg, t0).await, 0);
        play(&s, &id, &kang, "E5").await;
        let q = send::outbox(&s.hub.store).await.unwrap();
        assert_eq!(q.len(), 1, "{q:?}");
        assert_eq!((q[0].attempts, q[0].sent_at), (1, None), "{q:?}");
        assert_eq!(q[0].next_try_at, t0 + send::FIRST_RETRY_MS);
        assert!(q[0].error.is_some(), "{q:?}");
        // Refusing every recipient: tried again after the wait, then it waits twice as long.
        {
            let _refusing = Smtp::start(port, "refuse", dir.path()).await;
            assert_eq!(flush(&s, &cfg, t0 + 30_000).await, 0, "not before its time");
            assert_eq!(send::outbox(&s.hub.store).await.unwrap()[0].attempts, 1);
            let t1 = t0 + send::FIRST_RETRY_MS;
            assert_eq!(flush(&s, &cfg, t1).await, 0);
            let q = send::outbox(&s.hub.store).await.unwrap();
            assert_eq!(
                (q[0].attempts, q[0].next_try_at),
                (2, t1 + 2 * send::FIRST_RETRY_MS)
            );
            assert!(q[0].error.as_deref().unwrap_or("").contains("550"), "{q:?}");
        }
        play(&s, &id, &other, "C3").await;
        // The server is back: the mail goes, once.
        let smtp = Smtp::start(port, "accept", dir.path()).await;
        let t2 = t0 + 3 * send::FIRST_RETRY_MS;
        assert_eq!(flush(&s, &cfg, t2).await, 1);
        assert_eq!(flush(&s, &cfg, t2 + 3_600_000).await, 0);
        let mails = smtp.mails();
        assert_eq!(mails.len(), 1);
        assert_eq!(mails[0].to, "kang@example.org");
        let state = s.state(&id).await;
        assert_eq!(
            state["moves"].as_array().map(Vec::len),
            Some(2),
            "the game went on: {state}"
        );
    }
}

#[tokio::test]
async fn with_no_smtp_email_is_off_and_nothing_is_queued() {
    for db in databases() {
        let s = Server::start(&db).await;
        let han = signup(&s, &uniq("han")).await;
        let (_, v) = get(&s, "/api/mail", &han).await;
        assert_eq!(v["enabled"], false, "{v}");
        let (_, v) = s.get("/api/mail").await;
        assert_eq!(v, json!({"enabled": false}));
        let (st, v) = call(
            &s,
            "PUT",
            "/api/mail/email",
            &han,
            Some(json!({"email": "han@example.org"})),
        )
        .await;
        assert_eq!((st, v["code"].as_str()), (409, Some("mail.off")), "{v}");
        let (st, v) = s
            .post(
                "/api/password/forgot",
                None,
                &json!({"email": "han@example.org"}).to_string(),
            )
            .await;
        assert_eq!((st, v["code"].as_str()), (409, Some("mail.off")), "{v}");
        assert!(send::outbox(&s.hub.store).await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn the_background_worker_sends_the_queue_by_itself() {
    if !have_aiosmtpd() {
        return;
    }
    let dir = tempfile::tempdir().expect("a folder");
    let port = free_port();
    let smtp = Smtp::start(port, "accept", dir.path()).await;
    let cfg = MailConfig {
        manual: false,
        ..mail_config(port)
    };
    let s = mail_server("sqlite", &cfg).await;
    let yun = signup(&s, &uniq("yun")).await;
    let (st, _) = call(
        &s,
        "PUT",
        "/api/mail/email",
        &yun,
        Some(json!({"email": "yun@example.org"})),
    )
    .await;
    assert_eq!(st, 202);
    for _ in 0..300 {
        if !smtp.raw().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mails = smtp.mails();
    assert_eq!(mails.len(), 1, "sent within 30 s by the worker");
    assert_eq!(mails[0].to, "yun@example.org");
}

#[tokio::test]
async fn challenges_received_come_in_one_daily_digest_with_an_unsubscribe_from_all() {
    if !have_aiosmtpd() {
        return;
    }
    for db in databases() {
        let (s, smtp, cfg, _dir) = with_smtp(&db).await;
        let prefs = json!({"your_move": null, "game_start": true, "clock_low": true,
            "challenge": true, "digest": true});
        let (jang, name, _) = subscriber(&s, &smtp, &cfg, "jang", prefs).await;
        let challenge = |from: Session| {
            let (s, name) = (&s, name.clone());
            async move {
                let (st, v) = call(
                    s,
                    "POST",
                    "/api/challenges",
                    &from,
                    Some(json!({"to": name, "game": "go", "size": 9, "rated": false})),
                )
                .await;
                assert_eq!(st, 201, "{v}");
                v["id"]
                    .as_str()
                    .or(v["challenge"]["id"].as_str())
                    .unwrap()
                    .to_string()
            }
        };
        // Made a moment after Jang was last seen.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let first = challenge(signup(&s, &uniq("cho")).await).await;
        let t0 = now();
        let base = s.base.clone();
        let before = smtp.raw().len();
        // The first digest goes at once (none went in the day before), then a day later.
        assert_eq!(sweep(&s.hub.store, &base, t0 + 60_000).await.unwrap(), 1);
        assert_eq!(flush(&s, &cfg, t0 + 60_000).await, 1);
        let second = challenge(signup(&s, &uniq("seo")).await).await;
        let t1 = now();
        assert_eq!(sweep(&s.hub.store, &base, t1 + 3_600_000).await.unwrap(), 1);
        assert_eq!(
            sweep(&s.hub.store, &base, t1 + 2 * 3_600_000)
                .await
                .unwrap(),
            0
        );
        assert_eq!(
            flush(&s, &cfg, t1 + 2 * 3_600_000).await,
            0,
            "kept for the digest"
        );
        let day = t0 + 60_000 + 24 * 3_600_000;
        assert_eq!(sweep(&s.hub.store, &base, day).await.unwrap(), 0);
        assert_eq!(flush(&s, &cfg, day).await, 1);
        let mails = smtp.mails()[before..].to_vec();
        assert_eq!(mails.len(), 2, "{mails:?}");
        assert!(
            mails[0].body.contains(&format!("/c/{first}")),
            "{}",
            mails[0].body
        );
        assert!(mails[1].subject.contains("digest"), "{:?}", mails[1]);
        assert!(
            mails[1].body.contains(&format!("/c/{second}")),
            "{}",
            mails[1].body
        );
        assert!(!mails[1].body.contains(&format!("/c/{first}")), "each once");
        // Its one click stops every notification.
        let url = mails[1].list_unsubscribe.clone().expect("List-Unsubscribe");
        let url = url
            .trim_start_matches('<')
            .trim_end_matches('>')
            .to_string();
        let resp = s
            .http
            .post(&url)
            .body("List-Unsubscribe=One-Click")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let (_, v) = get(&s, "/api/mail", &jang).await;
        assert_eq!(
            v["prefs"],
            json!({"your_move": null, "game_start": false,
            "clock_low": false, "challenge": false, "digest": false}),
            "{v}"
        );
        // More than a year later the sent mails and the dead links are forgotten.
        forget_old(&s.hub.store, day + 400 * 24 * 3_600_000)
            .await
            .unwrap();
        assert!(send::outbox(&s.hub.store).await.unwrap().is_empty());
        let resp = s.http.post(&url).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 400, "the link is gone with its row");
    }
}

#[test]
fn addresses_are_checked_by_form_and_length() {
    use baduk_server::mail::address;
    assert_eq!(address(" kim@example.org ").unwrap(), "kim@example.org");
    for bad in [
        "",
        "kim",
        "kim@",
        "@example.org",
        "kim@localhost",
        "kim lee@example.org",
        "kim@example.org\r\nBcc: x@y.z",
        &format!("{}@example.org", "a".repeat(250)),
    ] {
        assert_eq!(address(bad).unwrap_err().code, "mail.address", "{bad:?}");
    }
}

#[test]
fn retries_wait_twice_as_long_each_time_up_to_six_hours() {
    assert_eq!(send::backoff_ms(1), 60_000);
    assert_eq!(send::backoff_ms(2), 120_000);
    assert_eq!(send::backoff_ms(4), 480_000);
    assert_eq!(send::backoff_ms(12), send::MAX_RETRY_MS);
    assert_eq!(send::backoff_ms(1000), send::MAX_RETRY_MS);
}

#[test]
fn smtp_urls_parse_and_bad_ones_name_the_flag() {
    assert!(send::transport("smtp://127.0.0.1:2525").is_ok());
    assert!(send::transport("smtp://user:pass@mail.example:587?tls=required").is_ok());
    assert!(send::transport("smtps://user:pass@mail.example").is_ok());
    assert!(send::transport("http://mail.example")
        .unwrap_err()
        .contains("--smtp"));
    let cfg = MailConfig {
        smtp: Some("smtp://u:p@mail.example:25".into()),
        ..Default::default()
    };
    assert_eq!(
        send::sender(&cfg).unwrap().email.to_string(),
        "baduk@mail.example"
    );
}

#[tokio::test]
async fn a_bad_smtp_url_or_sender_stops_the_server_at_start() {
    for (smtp, from) in [
        ("http://mail.example.org", None),
        ("smtp://127.0.0.1:25", Some("not an address")),
    ] {
        let dir = tempfile::tempdir().expect("a folder");
        let cfg = baduk_server::Config {
            addr: "127.0.0.1:0".into(),
            database: format!("sqlite:{}", dir.path().join("t.db").display()),
            mail: MailConfig {
                smtp: Some(smtp.into()),
                from: from.map(str::to_string),
                ..Default::default()
            },
            ..Default::default()
        };
        let e = baduk_server::start(cfg).await.err().expect("refused");
        assert!(e.0.contains("--smtp") || e.0.contains("--mail-from"), "{e}");
    }
}

#[tokio::test]
async fn a_clock_under_a_day_is_mailed_once_a_turn_and_not_for_a_short_clock() {
    if !have_aiosmtpd() {
        return;
    }
    for db in databases() {
        let (s, smtp, cfg, _dir) = with_smtp(&db).await;
        let prefs = json!({"your_move": null, "game_start": false, "clock_low": true,
            "challenge": false, "digest": false});
        let (baek, _, email) = subscriber(&s, &smtp, &cfg, "baek", prefs).await;
        let other = signup(&s, &uniq("nam")).await;
        // A day on the clock (and a day more a move); and a live game's ten minutes.
        let long = game_with_clock(&s, &baek, &other, Some("fischer:86400:86400")).await;
        let short = game_with_clock(&s, &baek, &other, Some("fischer:600:5")).await;
        let turn = s.hub.store.schedule_of(&long).await.unwrap().unwrap();
        let since = turn.turn_since.expect("a turn");
        let deadline = turn.deadline.expect("a clock");
        assert!(deadline - since >= 24 * 3_600_000, "{turn:?}");
        let base = s.base.clone();
        // The turn is not an hour old yet: nothing; then once, about the long game only.
        assert_eq!(
            sweep(&s.hub.store, &base, since + 30 * 60_000)
                .await
                .unwrap(),
            0
        );
        let later = since + 3_600_000 + 60_000;
        assert_eq!(sweep(&s.hub.store, &base, later).await.unwrap(), 1);
        assert_eq!(
            sweep(&s.hub.store, &base, later + 3_600_000).await.unwrap(),
            0
        );
        let before = smtp.raw().len();
        assert_eq!(flush(&s, &cfg, later).await, 1);
        let m = smtp.mails()[before].clone();
        assert_eq!(m.to, email);
        assert!(m.body.contains(&format!("/g/{long}")), "{}", m.body);
        assert!(!m.body.contains(&format!("/g/{short}")), "{}", m.body);
        assert!(m.list_unsubscribe.is_some(), "{m:?}");
    }
}
