//! Transparent huge pages, off for the server's process. The allocator asks the kernel for
//! huge pages where it may; the first touch of each one stalls the touching thread while the
//! kernel clears 2 MiB (tens of milliseconds on a virtual machine whose memory is new to it),
//! and a runtime thread that stalls holds up every socket and commit queued behind it. With
//! them off, `scripts/bench-serve 10000 16 --rate 2000 --one-socket` went from an ack p99 of
//! 45–65 ms to 15 ms, and a flat-out action costs less CPU, not more (docs/scaling.md, "Huge
//! pages"). The bot's search keeps them: only `serve` and `bench serve` call this.

/// Turns transparent huge pages off for this process, for every mapping it has and will have
/// (Linux; elsewhere nothing). A kernel that refuses is not an error: the server runs as before.
pub fn turn_off() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_SET_THP_DISABLE takes integers only and touches no memory of ours.
        let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The kernel says so in /proc/self/status (Linux 5.0 and later; older ones have no line).
    #[test]
    fn after_turn_off_the_kernel_reports_huge_pages_off() {
        super::turn_off();
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        if let Some(line) = status.lines().find(|l| l.starts_with("THP_enabled:")) {
            assert_eq!(line.split_whitespace().nth(1), Some("0"), "{line}");
        }
    }
}
