//! CPU-heavy work off the async runtime: replaying and scoring a record, exporting SGF, a
//! player's games as one collection. Such work runs on the blocking pool under one server-wide
//! budget — at most one job a core at once, at most [`QUEUE`] waiting — so however many
//! requests ask for it, the runtime's threads stay free for moves, clocks and `/healthz`, and a
//! request past the queue gets a 503 at once instead of waiting.

use crate::room::ActError;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use tokio::sync::Semaphore;

/// Jobs that may wait for a core at once; past this a request is refused (503).
pub const QUEUE: usize = 64;

/// A budget of blocking threads: permits and a bounded queue.
pub struct Pool {
    permits: Semaphore,
    waiting: AtomicUsize,
    queue: usize,
}

/// Counts one waiter while it lives (a client that hangs up leaves the queue).
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Pool {
    /// A pool running `permits` jobs at once with at most `queue` waiting.
    pub fn new(permits: usize, queue: usize) -> Pool {
        Pool {
            permits: Semaphore::new(permits.max(1)),
            waiting: AtomicUsize::new(0),
            queue,
        }
    }

    /// Jobs waiting for a permit now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Runs `f` on a blocking thread once a permit is free; a 503 when the queue is full, a
    /// 500 if `f` panicked (nothing it was computing is stored).
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ActError> {
        let waiting = Waiting(&self.waiting);
        if self.waiting.fetch_add(1, Ordering::Relaxed) >= self.queue {
            return Err(ActError::busy(format!(
                "the server is busy: {} jobs wait for a core already; try again in a few seconds",
                self.queue
            ))
            .with_code("limit.busy", serde_json::json!({"queue": self.queue})));
        }
        let permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| ActError::internal("the server is stopping"))?;
        drop(waiting);
        let out = tokio::task::spawn_blocking(f).await.map_err(|_| {
            ActError::internal("the server failed on this request; nothing was changed")
        })?;
        drop(permit);
        Ok(out)
    }
}

/// Runs CPU-heavy `f` that a live game's action needs at once (the dead-stone estimate when a
/// game reaches its count, a dispute's verification): on a multi-threaded runtime the worker
/// hands its other tasks to the other workers first (`block_in_place`), so clocks, moves and
/// `/healthz` do not wait behind it; elsewhere (one-threaded runtime, no runtime) it runs as is.
pub fn in_place<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// The server-wide pool for replay, scoring and export: one job a core.
pub fn heavy() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Pool::new(cores, QUEUE)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_queue_refuses_at_once_and_a_job_runs_off_the_runtime() {
        let pool = Arc::new(Pool::new(1, 1));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = Arc::new(std::sync::Mutex::new(rx));
        // One job holds the permit until told; one more waits; the third is refused.
        let p = pool.clone();
        let r = rx.clone();
        let first =
            tokio::spawn(async move { p.run(move || r.lock().unwrap().recv().is_ok()).await });
        while pool.permits.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let p = pool.clone();
        let second = tokio::spawn(async move { p.run(|| 2).await });
        while pool.waiting() == 0 {
            tokio::task::yield_now().await;
        }
        let third = pool.run(|| 3).await.unwrap_err();
        assert_eq!(third.status, 503);
        assert!(third.message.contains("busy"), "{}", third.message);
        tx.send(()).unwrap();
        assert!(first.await.unwrap().unwrap());
        assert_eq!(second.await.unwrap().unwrap(), 2);
        assert_eq!(pool.waiting(), 0);
        assert_eq!(pool.run(|| 4).await.unwrap(), 4);
    }
}
