//! A token-bucket rate limiter keyed by client (address and token).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// Requests allowed per key: `rate` a second on average, bursts up to `burst`.
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimiter {
    /// A limiter of `rate` requests a second with bursts of `burst` (rate 0: no limit).
    pub fn new(rate: f64, burst: f64) -> RateLimiter {
        RateLimiter {
            rate,
            burst: burst.max(1.0),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `key` may make one more request now.
    pub fn allow(&self, key: &str) -> bool {
        if self.rate <= 0.0 {
            return true;
        }
        let now = Instant::now();
        let mut b = self.buckets.lock().expect("rate limiter lock");
        if b.len() > 100_000 {
            // Forget full buckets so a flood of keys cannot grow the map without bound.
            let (rate, burst) = (self.rate, self.burst);
            b.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * rate < burst
            });
        }
        let e = b.entry(key.to_string()).or_insert((self.burst, now));
        let refill = now.duration_since(e.1).as_secs_f64() * self.rate;
        e.0 = (e.0 + refill).min(self.burst);
        e.1 = now;
        if e.0 >= 1.0 {
            e.0 -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_flood_is_refused() {
        let l = RateLimiter::new(1.0, 5.0);
        let ok = (0..20).filter(|_| l.allow("a")).count();
        assert_eq!(ok, 5);
        assert!(l.allow("b"), "another client has its own bucket");
        assert!(RateLimiter::new(0.0, 1.0).allow("a"));
    }
}
