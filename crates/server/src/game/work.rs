//! CPU-heavy work off the async runtime: replaying and scoring a record, exporting SGF, a
//! player's games as one collection. Such work runs on the blocking pool under one server-wide
//! budget — at most one job a core at once, at most [`QUEUE`] waiting — so however many
//! requests ask for it, the runtime's threads stay free for moves, clocks and `/healthz`, and a
//! request past the queue gets a 503 at once instead of waiting. A live game's own heavy step
//! (the dead-stone estimate at its count, a dispute's verification) has a budget of its own,
//! [`live`]: it waits for a core but is never refused, and never waits behind reviews.

use crate::game::room::ActError;
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
/// game reaches its count, a dispute's verification) under the live games' budget ([`live`]):
/// on a multi-threaded runtime the worker first hands its other tasks to the other workers
/// (`block_in_place`), so clocks, moves and `/healthz` do not wait behind it, then waits for a
/// core of the budget; elsewhere (one-threaded runtime, no runtime) it runs as is.
pub fn in_place<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| live().with(f))
        }
        _ => f(),
    }
}

/// A budget for work that may wait but is never refused: at most `permits` jobs at once, the
/// rest wait on their own (blocking) threads.
pub struct Gate {
    busy: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
    permits: usize,
}

impl Gate {
    /// A gate letting `permits` jobs through at once.
    pub fn new(permits: usize) -> Gate {
        Gate {
            busy: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
            permits: permits.max(1),
        }
    }

    /// Jobs running now.
    pub fn busy(&self) -> usize {
        *self.busy.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` once fewer than `permits` jobs run (a panic in `f` still frees its place).
    pub fn with<T>(&self, f: impl FnOnce() -> T) -> T {
        struct Place<'a>(&'a Gate);
        impl Drop for Place<'_> {
            fn drop(&mut self) {
                *self.0.busy.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
                self.0.freed.notify_one();
            }
        }
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        while *busy >= self.permits {
            busy = self.freed.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
        *busy += 1;
        drop(busy);
        let _place = Place(self);
        f()
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// The live games' budget: one count or dispute a core at once, beside [`heavy`]'s (a live
/// game never waits behind queued reviews, and is never refused).
pub fn live() -> &'static Gate {
    static GATE: OnceLock<Gate> = OnceLock::new();
    GATE.get_or_init(|| Gate::new(cores()))
}

/// The server-wide pool for replay, scoring and export: one job a core.
pub fn heavy() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool::new(cores(), QUEUE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_gate_lets_its_permits_through_and_no_more() {
        let gate = Arc::new(Gate::new(2));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (gate, most) = (gate.clone(), most.clone());
                std::thread::spawn(move || {
                    gate.with(|| {
                        most.fetch_max(gate.busy(), Ordering::Relaxed);
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    })
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(most.load(Ordering::Relaxed), 2);
        assert_eq!(gate.busy(), 0);
        // A panic frees its place.
        let g = gate.clone();
        assert!(std::thread::spawn(move || g.with(|| panic!("boom")))
            .join()
            .is_err());
        assert_eq!(gate.busy(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn live_work_holds_a_place_of_its_gate_and_not_the_runtime() {
        // A count that takes long (held here until told) on the only worker: other tasks (a
        // clock, a move) still run, and the count holds a place of the live games' budget.
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let count = tokio::spawn(async move { in_place(move || rx.recv().is_ok()) });
        while live().busy() == 0 {
            tokio::task::yield_now().await;
        }
        let tick = tokio::spawn(async { 1 });
        let tick = tokio::time::timeout(std::time::Duration::from_secs(10), tick).await;
        assert_eq!(tick.expect("the runtime is not blocked").unwrap(), 1);
        tx.send(()).unwrap();
        assert!(count.await.unwrap());
        assert_eq!(live().busy(), 0);
    }

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
