//! Connections as a stranger would hold them, over real TCP (issue 39, point 7): headers sent a
//! byte at a time, a body that never finishes, idle keep-alive connections, and more
//! connections from one address than its cap; WebSockets keep their own rules.

mod common;

use common::{closes_within, token, Server};
use serde_json::json;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A TCP connection to `addr` from the loopback address `from` (another client than 127.0.0.1).
async fn connect_from(from: &str, addr: SocketAddr) -> TcpStream {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(format!("{from}:0").parse().unwrap()).unwrap();
    sock.connect(addr).await.expect("connects")
}

/// Sends a GET of /healthz on `s` and reads the answer's first bytes (or "" if it closed).
async fn healthz(s: &mut TcpStream) -> String {
    let _ = s
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    read_some(s).await
}

/// What arrives on `s` within 3 s (up to 4 KiB; "" if it closed or nothing came).
async fn read_some(s: &mut TcpStream) -> String {
    let mut buf = vec![0u8; 4096];
    match tokio::time::timeout(Duration::from_secs(3), s.read(&mut buf)).await {
        Ok(Ok(n)) => String::from_utf8_lossy(&buf[..n]).into_owned(),
        _ => String::new(),
    }
}

#[tokio::test]
async fn headers_sent_a_byte_at_a_time_are_cut_off_at_the_header_timeout() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.header_timeout = Duration::from_secs(2);
    })
    .await;
    let mut conn = TcpStream::connect(s.addr).await.unwrap();
    let (mut rd, mut wr) = conn.split();
    let started = Instant::now();
    let head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
    let trickle = async {
        for b in head {
            if wr.write_all(&[*b]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    let mut got = Vec::new();
    let read = async {
        let mut buf = [0u8; 1024];
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::select! {
        _ = read => {}
        _ = trickle => panic!("the whole head went through at a byte every 0.5 s"),
        _ = tokio::time::sleep(Duration::from_secs(10)) => panic!("still open after 10 s"),
    }
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1500) && took < Duration::from_secs(4),
        "closed after {took:?}"
    );
    assert!(!String::from_utf8_lossy(&got).contains("200 OK"));
    // A new connection that sends nothing at all is closed too.
    let mut silent = TcpStream::connect(s.addr).await.unwrap();
    assert!(closes_within(&mut silent, 4).await);
    // An honest request is answered.
    let mut honest = TcpStream::connect(s.addr).await.unwrap();
    assert!(healthz(&mut honest).await.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn a_body_that_never_finishes_is_refused_at_the_body_timeout() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.body_timeout = Duration::from_secs(1);
    })
    .await;
    let mut conn = TcpStream::connect(s.addr).await.unwrap();
    let started = Instant::now();
    conn.write_all(
        b"POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"username\":",
    )
    .await
    .unwrap();
    let answer = read_some(&mut conn).await;
    let took = started.elapsed();
    assert!(
        answer.starts_with("HTTP/1.1 400") && answer.contains("body-timeout"),
        "{answer}"
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(closes_within(&mut conn, 3).await, "and the connection goes");
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.idle_timeout = Duration::from_secs(2);
        c.limits.header_timeout = Duration::from_secs(5);
    })
    .await;
    let mut conn = TcpStream::connect(s.addr).await.unwrap();
    assert!(healthz(&mut conn).await.starts_with("HTTP/1.1 200"));
    // Kept alive for a while: a second request on it is answered.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(healthz(&mut conn).await.starts_with("HTTP/1.1 200"));
    let idle_from = Instant::now();
    assert!(closes_within(&mut conn, 5).await, "closed when idle");
    let idle = idle_from.elapsed();
    assert!(
        idle >= Duration::from_millis(1500) && idle < Duration::from_secs(4),
        "{idle:?}"
    );
}

#[tokio::test]
async fn connections_over_the_per_address_cap_are_refused_while_another_address_connects() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.connections_per_address = 3;
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut c = connect_from("127.0.0.1", s.addr).await;
        assert!(healthz(&mut c).await.starts_with("HTTP/1.1 200"));
        held.push(c);
    }
    // The fourth from the same address: 503 naming the cap, and closed.
    let mut over = connect_from("127.0.0.1", s.addr).await;
    let answer = read_some(&mut over).await;
    assert!(
        answer.starts_with("HTTP/1.1 503") && answer.contains("--connections-per-address"),
        "{answer}"
    );
    assert!(closes_within(&mut over, 2).await);
    // Another address is served.
    let mut other = connect_from("127.0.0.2", s.addr).await;
    assert!(healthz(&mut other).await.starts_with("HTTP/1.1 200"));
    // A place given back is taken again.
    held.pop();
    let end = Instant::now() + Duration::from_secs(5);
    loop {
        let mut again = connect_from("127.0.0.1", s.addr).await;
        if healthz(&mut again).await.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < end, "the place never came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_total_cap_holds_for_every_address() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.max_connections = 2;
    })
    .await;
    let mut a = connect_from("127.0.0.1", s.addr).await;
    let mut b = connect_from("127.0.0.2", s.addr).await;
    assert!(healthz(&mut a).await.starts_with("HTTP/1.1 200"));
    assert!(healthz(&mut b).await.starts_with("HTTP/1.1 200"));
    let mut c = connect_from("127.0.0.3", s.addr).await;
    let answer = read_some(&mut c).await;
    assert!(
        answer.starts_with("HTTP/1.1 503") && answer.contains("--max-connections"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_websocket_outlives_the_http_timeouts_and_counts_under_the_cap() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.idle_timeout = Duration::from_secs(1);
        c.limits.header_timeout = Duration::from_secs(1);
        c.limits.connections_per_address = 50;
    })
    .await;
    let (id, seats) = s.create(json!({"game": "go", "size": 9})).await;
    let mut w = s.watch(&id).await;
    assert_eq!(w.next_of("state").await["type"], "state");
    tokio::time::sleep(Duration::from_secs(3)).await;
    s.ok(&id, &token(&seats, "black"), "E5").await;
    let v = w.next().await;
    assert!(
        v["type"] == "delta" || v["type"] == "state",
        "the socket still hears the game: {v}"
    );
}

#[tokio::test]
async fn websockets_count_under_the_per_address_cap() {
    let s = Server::start_config("sqlite", |c| {
        c.limits.connections_per_address = 2;
    })
    .await;
    // The game is made from another address, so only the sockets count against 127.0.0.1.
    let http = reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let made: serde_json::Value = http
        .post(format!("{}/api/games", s.base))
        .header("content-type", "application/json")
        .body(json!({"game": "go", "size": 9}).to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = made["id"].as_str().unwrap();
    let _w1 = s.watch(id).await;
    let _w2 = s.watch(id).await;
    let mut over = connect_from("127.0.0.1", s.addr).await;
    assert!(read_some(&mut over).await.starts_with("HTTP/1.1 503"));
}
