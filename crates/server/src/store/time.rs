//! Time as every process counts it: the database's clock, this machine's clock plus the offset
//! measured against the database (`Store::clock_offset`). Below the hub, which charges clocks
//! by it, and used by the store itself to measure the offset.

use std::sync::atomic::{AtomicI64, Ordering};

/// How far the database's clock is ahead of this machine's (ms); every process charges time
/// by the database's clock, so two machines whose clocks differ agree on every clock.
static CLOCK_OFFSET_MS: AtomicI64 = AtomicI64::new(0);

/// How far tests have moved every clock forward (ms; always 0 outside tests).
static TEST_SHIFT_MS: AtomicI64 = AtomicI64::new(0);

/// Milliseconds since 1970 by the database's clock (this machine's clock plus the measured
/// offset; SQLite lives on this machine, so its offset is 0), plus the tests' shift.
pub fn now_ms() -> i64 {
    local_ms() + CLOCK_OFFSET_MS.load(Ordering::Relaxed) + TEST_SHIFT_MS.load(Ordering::Relaxed)
}

/// Tests only: moves [`now_ms`] forward by `ms` for the whole process (days pass without a
/// sleep). Tests that use it run alone in their own test binary.
#[doc(hidden)]
pub fn advance_test_clock(ms: i64) {
    TEST_SHIFT_MS.fetch_add(ms, Ordering::Relaxed);
}

/// Milliseconds since 1970 by this machine's clock.
pub fn local_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Sets the offset of the database's clock (see [`now_ms`]).
pub fn set_clock_offset(ms: i64) {
    CLOCK_OFFSET_MS.store(ms, Ordering::Relaxed);
}
