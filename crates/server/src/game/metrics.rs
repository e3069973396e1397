//! The counters of one server process: actions stored by source, acknowledgement latencies,
//! and what the hub and the cluster count. `http::metrics` prints them for `GET /metrics`.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
/// Who stored an action.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// A seat's holder (HTTP or WebSocket, here or forwarded from another process).
    Player,
    /// A bot in its seat.
    Bot,
    /// The clock (a timeout, or Wall Go's automatic turn).
    Clock,
}

/// The process's counters (monotonic since it started).
#[derive(Debug, Default)]
pub struct Metrics {
    /// Actions stored by seat holders.
    pub actions_player: AtomicU64,
    /// Actions stored by bots.
    pub actions_bot: AtomicU64,
    /// Actions stored by the clock.
    pub actions_clock: AtomicU64,
    /// Bot searches started here.
    pub bot_searches: AtomicU64,
    /// Lease renewals stored.
    pub lease_renewals: AtomicU64,
    /// Games taken over from a node whose lease ran out (or from nobody).
    pub takeovers: AtomicU64,
    /// Unfinished games dropped from memory while idle (they load again on demand).
    pub evicted: AtomicU64,
    /// Games loaded because their stored `wake_at` came (a clock or policy end, a bot to move).
    pub woken: AtomicU64,
    /// Games handed to another node to even out the load.
    pub handoffs: AtomicU64,
    /// Requests forwarded to the owner of their game.
    pub forwarded: AtomicU64,
    /// Commits refused by the lease check (this process had lost the game).
    pub fenced: AtomicU64,
    /// Other processes' actions applied here from their events (no database read).
    pub events_applied: AtomicU64,
    /// Loaded games read again from the database (an event without its change, a missed event,
    /// a resync that found a copy behind).
    pub event_reloads: AtomicU64,
    /// Of those: for an event that does not carry its change (a rotated token, a rated end).
    pub reloads_change: AtomicU64,
    /// Of those: for an event that was not the next one (events were missed), or did not apply.
    pub reloads_gap: AtomicU64,
    /// Of those: found behind by a resync (a re-made LISTEN connection, the 2-second check).
    pub reloads_resync: AtomicU64,
    /// Joins of a seat applied here from their events, without reading the game.
    pub joins_applied: AtomicU64,
    /// Seconds from an action's arrival at this process to its acknowledgement.
    pub ack: Histogram,
    /// Seconds from an action (its stored time) to its event's arrival here (this process's
    /// own, which it hears too, included).
    pub event_delivery: Histogram,
    /// Seconds from an event's arrival here to its application to the game's copy.
    pub event_queue: Histogram,
    /// Tournament boards with a game made by pairing here (all formats).
    pub tournament_pairings: AtomicU64,
    /// Seconds from the end of an arena player's game to the storing of their next board.
    pub tournament_pairing_latency: Histogram,
    /// Microseconds spent in the tournaments' sweep.
    pub tournament_sweep_us: AtomicU64,
}

/// The upper bounds of the ack latency buckets, in milliseconds.
pub const ACK_BUCKETS_MS: [u64; 13] = [
    1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000,
];

/// A latency histogram with fixed buckets (Prometheus' cumulative `_bucket`, `_sum`, `_count`).
#[derive(Debug, Default)]
pub struct Histogram {
    /// Observations at or under each bound of [`ACK_BUCKETS_MS`] (not cumulative here).
    buckets: [AtomicU64; ACK_BUCKETS_MS.len()],
    /// Observations over the last bound.
    over: AtomicU64,
    /// The sum of all observations, in microseconds.
    sum_us: AtomicU64,
}

impl Histogram {
    /// Records one latency.
    pub fn observe(&self, d: std::time::Duration) {
        let us = d.as_micros().min(u64::MAX as u128) as u64;
        self.sum_us.fetch_add(us, Ordering::Relaxed);
        match ACK_BUCKETS_MS.iter().position(|&b| us <= b * 1_000) {
            Some(i) => self.buckets[i].fetch_add(1, Ordering::Relaxed),
            None => self.over.fetch_add(1, Ordering::Relaxed),
        };
    }

    /// Writes the histogram as metric `name` in Prometheus' text format.
    pub(crate) fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut total = 0;
        for (b, c) in ACK_BUCKETS_MS.iter().zip(&self.buckets) {
            total += c.load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "{name}_bucket{{le=\"{}\"}} {total}",
                *b as f64 / 1_000.0
            );
        }
        total += self.over.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {total}");
        let sum = self.sum_us.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {total}");
    }
}

impl Metrics {
    /// Counts one stored action.
    pub fn action(&self, source: Source) {
        let c = match source {
            Source::Player => &self.actions_player,
            Source::Bot => &self.actions_bot,
            Source::Clock => &self.actions_clock,
        };
        c.fetch_add(1, Ordering::Relaxed);
    }
}
