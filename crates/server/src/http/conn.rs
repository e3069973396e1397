//! Connections: the accept loop of `baduk serve` and what a stranger's connection may hold
//! (docs/api.md, "Limits"). A client address (IPv6 by its /64) holds at most
//! `connections_per_address` connections and the server at most `max_connections`; one over a
//! cap is answered `503` naming it and closed at once. A connection must send a request's head
//! within `header_timeout` of its first byte (and its first request within `header_timeout` of
//! connecting), the body within `body_timeout` of the head, and an idle keep-alive connection
//! is closed after `idle_timeout`. A WebSocket leaves these timeouts when it is upgraded (its own
//! idle rule applies) but keeps its place under the caps until it closes. A trusted proxy's
//! connections carry many clients: they count towards `max_connections` only.

use crate::state::limit::{Cidr, ClientKey};
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

/// The connection limits (each a `baduk serve` flag; a cap of 0 is no cap).
#[derive(Clone, Debug)]
pub struct ConnLimits {
    /// Time to send a request's head, from its first byte (a new connection: from connecting).
    pub header_timeout: Duration,
    /// Time to send a request's body, from the end of its head.
    pub body_timeout: Duration,
    /// Time a keep-alive connection may wait between requests.
    pub idle_timeout: Duration,
    /// Connections one client address may hold at once (trusted proxies are exempt).
    pub per_address: usize,
    /// Connections the server holds at once.
    pub total: usize,
    /// Proxies whose connections carry many clients.
    pub trusted: Vec<Cidr>,
}

/// Connections held now: in all and per client address.
#[derive(Default)]
pub struct Counts {
    total: AtomicUsize,
    per: Mutex<HashMap<ClientKey, usize>>,
}

impl Counts {
    /// Connections open now.
    pub fn total(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// A place for a connection from `key` (None: a trusted proxy), or the cap it is over.
    fn take(self: &Arc<Self>, key: Option<ClientKey>, lim: &ConnLimits) -> Result<Slot, String> {
        let before = self.total.fetch_add(1, Ordering::Relaxed);
        let mut slot = Slot {
            counts: self.clone(),
            key: None,
        };
        if lim.total > 0 && before >= lim.total {
            return Err(format!(
                "the server holds its most connections ({}, --max-connections); try again soon",
                lim.total
            ));
        }
        let Some(key) = key else {
            return Ok(slot);
        };
        let mut per = self.per.lock().expect("connections lock");
        let n = per.entry(key).or_insert(0);
        if lim.per_address > 0 && *n >= lim.per_address {
            if *n == 0 {
                per.remove(&key);
            }
            return Err(format!(
                "too many connections from your address (at most {}, --connections-per-address)",
                lim.per_address
            ));
        }
        *n += 1;
        slot.key = Some(key);
        Ok(slot)
    }
}

/// One connection's place under the caps, given back when its socket closes.
struct Slot {
    counts: Arc<Counts>,
    key: Option<ClientKey>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.counts.total.fetch_sub(1, Ordering::Relaxed);
        if let Some(k) = self.key {
            let mut per = self.counts.per.lock().expect("connections lock");
            if let Some(n) = per.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    per.remove(&k);
                }
            }
        }
    }
}

/// What the watchdog of one connection sees: bytes read, requests in flight, requests done.
#[derive(Default)]
struct Activity {
    read: AtomicU64,
    in_flight: AtomicUsize,
    finished: AtomicBool,
}

/// A request in flight while it lives (a dropped handler counts as finished).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn new(a: &Arc<Activity>) -> InFlight {
        a.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(a.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.finished.store(true, Ordering::Relaxed);
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The socket, counting the bytes read and holding the connection's place under the caps.
struct Tracked {
    io: TcpStream,
    activity: Arc<Activity>,
    _slot: Slot,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.io).poll_read(cx, buf);
        let n = buf.filled().len() - before;
        if n > 0 {
            self.activity.read.fetch_add(n as u64, Ordering::Relaxed);
        }
        r
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The error of a body that did not arrive in time (axum answers it `400` with this text).
#[derive(Debug)]
struct BodyTimeout(Duration);

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body did not arrive within {} s (--body-timeout-seconds)",
            self.0.as_secs_f64()
        )
    }
}

impl std::error::Error for BodyTimeout {}

/// A request body that must be complete by a deadline.
struct TimedBody {
    inner: Body,
    deadline: Pin<Box<tokio::time::Sleep>>,
    limit: Duration,
}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::BoxError>>> {
        let this = &mut *self;
        if let Poll::Ready(f) = http_body::Body::poll_frame(Pin::new(&mut this.inner), cx) {
            return Poll::Ready(f.map(|r| r.map_err(Into::into)));
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(BodyTimeout(this.limit)))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        http_body::Body::is_end_stream(&self.inner)
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::Body::size_hint(&self.inner)
    }
}

/// The body of a streamed answer (NDJSON: the event and game streams of the Bot API): the
/// request counts as in flight until the body ends, so the idle watchdog leaves the connection
/// alone while it streams (the stream itself ends a reader that does not read); it ends when
/// the server stops, so a stop does not wait for it.
struct StreamedBody {
    inner: Body,
    _busy: InFlight,
    stopped: Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl http_body::Body for StreamedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        if self.stopped.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        http_body::Body::poll_frame(Pin::new(&mut self.inner), cx)
    }

    fn is_end_stream(&self) -> bool {
        http_body::Body::is_end_stream(&self.inner)
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::Body::size_hint(&self.inner)
    }
}

/// Whether an answer is a stream (`application/x-ndjson`) that keeps its request in flight.
fn is_stream(resp: &axum::response::Response) -> bool {
    resp.headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/x-ndjson"))
}

/// Why the watchdog closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closed {
    Header,
    Idle,
}

/// Watches one HTTP connection between requests: returns when it must be closed (a head that
/// takes longer than `header` from its first byte, or no request for `idle`; a new connection
/// has `header` for its first request).
async fn watchdog(a: Arc<Activity>, header: Duration, idle: Duration) -> Closed {
    let tick = (header.min(idle) / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    let mut since = Instant::now();
    let mut mark = a.read.load(Ordering::Relaxed);
    let mut first_byte: Option<Instant> = None;
    let mut fresh = true;
    loop {
        tokio::time::sleep(tick).await;
        let now = Instant::now();
        let read = a.read.load(Ordering::Relaxed);
        if a.in_flight.load(Ordering::Relaxed) > 0 || a.finished.swap(false, Ordering::Relaxed) {
            // A request is being answered, or one was since the last look: idle from now.
            (since, mark, first_byte, fresh) = (now, read, None, false);
            continue;
        }
        if read != mark {
            let began = *first_byte.get_or_insert(now);
            if now - began >= header {
                return Closed::Header;
            }
        } else if now - since >= if fresh { header } else { idle } {
            return if fresh { Closed::Header } else { Closed::Idle };
        }
    }
}

/// Accepts connections on `listener` and serves `app` on each until `shutdown` resolves; then
/// waits for the HTTP connections to finish their requests.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    lim: ConnLimits,
    counts: Arc<Counts>,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let (done_tx, mut done_rx) = tokio::sync::mpsc::channel::<()>(1);
    let lim = Arc::new(lim);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    use std::io::ErrorKind::*;
                    if !matches!(e.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset) {
                        tracing::error!("accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    continue;
                }
            },
        };
        // Acknowledgements and states are small writes back to back: no Nagle delay.
        let _ = stream.set_nodelay(true);
        let proxy = lim.trusted.iter().any(|c| c.contains(peer.ip()));
        let key = (!proxy).then(|| ClientKey::of(peer.ip()));
        let slot = match counts.take(key, &lim) {
            Ok(s) => s,
            Err(why) => {
                tracing::debug!(client = %peer, "connection refused: {why}");
                let answer = format!(
                    "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: \
                     text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{why}",
                    why.len()
                );
                let _ = stream.try_write(answer.as_bytes());
                continue;
            }
        };
        let activity = Arc::new(Activity::default());
        let io = Tracked {
            io: stream,
            activity: activity.clone(),
            _slot: slot,
        };
        let app = app.clone();
        let lim = lim.clone();
        let mut stop = stop_rx.clone();
        let stop_streams = stop_rx.clone();
        let done = done_tx.clone();
        tokio::spawn(async move {
            let a = activity.clone();
            let body_timeout = lim.body_timeout;
            let service =
                hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let busy = InFlight::new(&a);
                    let app = app.clone();
                    let mut stop = stop_streams.clone();
                    async move {
                        let mut req = req.map(|b| {
                            let b = Body::new(b);
                            if http_body::Body::is_end_stream(&b) {
                                b
                            } else {
                                Body::new(TimedBody {
                                    inner: b,
                                    deadline: Box::pin(tokio::time::sleep(body_timeout)),
                                    limit: body_timeout,
                                })
                            }
                        });
                        req.extensions_mut().insert(ConnectInfo(peer));
                        let answer = tower::ServiceExt::oneshot(app, req).await;
                        answer.map(|resp| {
                            if is_stream(&resp) {
                                let stopped = Box::pin(async move {
                                    let _ = stop.wait_for(|s| *s).await;
                                });
                                resp.map(|inner| {
                                    Body::new(StreamedBody {
                                        inner,
                                        _busy: busy,
                                        stopped,
                                    })
                                })
                            } else {
                                drop(busy);
                                resp
                            }
                        })
                    }
                });
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(io), service)
                .with_upgrades();
            let mut conn = std::pin::pin!(conn);
            let mut dog = std::pin::pin!(watchdog(activity, lim.header_timeout, lim.idle_timeout));
            let mut stopping = false;
            loop {
                tokio::select! {
                    r = conn.as_mut() => {
                        if let Err(e) = r {
                            tracing::trace!(client = %peer, "connection ended: {e}");
                        }
                        break;
                    }
                    why = &mut dog => {
                        tracing::debug!(client = %peer, "connection closed: {why:?} timeout");
                        break;
                    }
                    _ = stop.changed(), if !stopping => {
                        stopping = true;
                        conn.as_mut().graceful_shutdown();
                    }
                }
            }
            drop(done);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(done_tx);
    let _ = done_rx.recv().await;
}
