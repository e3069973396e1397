//! Who a client is, and how much it may ask: the client's address (IPv6 by its /64), read from
//! `X-Forwarded-For` only when the peer is a trusted proxy, and rate budgets keyed by it on
//! `governor`'s keyed limiters. Nothing a client invents (a header, a token) picks its bucket.

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::num::NonZeroU32;
use std::time::Duration;

pub use crate::net::{client_ip, Cidr, ClientKey, RemoteUse};

/// One rate budget (creating games, actions, sockets…) kept per client: `rate` a second on
/// average with bursts of `burst`; rate 0 means no limit.
pub struct Budget<K = ClientKey>
where
    K: std::hash::Hash + Eq + Clone,
{
    name: &'static str,
    limiter: Option<DefaultKeyedRateLimiter<K>>,
    rate: f64,
    burst: u32,
    /// Shared with the cluster's other processes (see [`Budget::shared`]).
    shared: Option<Shared<K>>,
    /// Held exactly over the cluster, bursts included (see [`Budget::exact`]).
    exact: Option<Exact>,
}

/// A budget's bucket in the database, shared by every process of the cluster: `tag` names the
/// budget there, clients are named by the cluster's keyed hash (never an address or a name).
struct Exact {
    store: crate::store::Store,
    remote: std::sync::Arc<RemoteUse>,
    tag: &'static str,
}

/// A budget's share of the cluster: what its clients used here since the last report, and
/// what they used elsewhere, charged here at their next request; `tag` names the budget on
/// the bus (unique among the shared budgets).
struct Shared<K> {
    remote: std::sync::Arc<RemoteUse>,
    tag: &'static str,
    used: std::sync::Mutex<std::collections::HashMap<K, u32>>,
}

impl<K: std::hash::Hash + Eq + Clone> Budget<K> {
    /// A budget named `name` (it names itself in refusals) of `rate` a second, bursts of `burst`.
    pub fn new(name: &'static str, rate: f64, burst: u32) -> Budget<K> {
        let limiter = (rate > 0.0 && rate.is_finite()).then(|| {
            let period = Duration::from_secs_f64((1.0 / rate).clamp(1e-6, 86_400.0));
            let quota = Quota::with_period(period)
                .expect("a period above zero")
                .allow_burst(NonZeroU32::new(burst.max(1)).expect("at least one"));
            RateLimiter::keyed(quota)
        });
        Budget {
            name,
            limiter,
            rate: if rate > 0.0 && rate.is_finite() {
                rate
            } else {
                0.0
            },
            burst: burst.max(1),
            shared: None,
            exact: None,
        }
    }

    /// The budget's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Takes one from `key`'s budget, or says how long to wait. A shared budget first charges
    /// what the client used on the other processes.
    pub fn check(&self, key: &K) -> Result<(), Refused> {
        let Some(l) = &self.limiter else {
            return Ok(());
        };
        if let Some(s) = &self.shared {
            let owed = s.remote.take_owed(s.tag, key).min(self.burst);
            for _ in 0..owed {
                if l.check_key(key).is_err() {
                    break;
                }
            }
        }
        l.check_key(key).map_err(|until| Refused {
            budget: self.name,
            retry_after: until.wait_time_from(DefaultClock::default().now()),
            rate: self.rate,
            burst: self.burst,
        })?;
        if let Some(s) = &self.shared {
            *s.used
                .lock()
                .expect("used lock")
                .entry(key.clone())
                .or_default() += 1;
        }
        Ok(())
    }

    /// This budget shared over the cluster under `tag`: its use here is reported (by the
    /// caller, from [`Reported::take_reported`]) and the others' use, noted in `remote`, is
    /// charged here.
    pub fn shared(mut self, remote: std::sync::Arc<RemoteUse>, tag: &'static str) -> Budget<K> {
        self.shared = Some(Shared {
            remote,
            tag,
            used: Default::default(),
        });
        self
    }

    /// This budget held exactly over the cluster under `tag`: besides this process's bucket,
    /// each grant takes from one bucket in `store` that every process shares, so N processes
    /// grant one burst between them, not N (see [`Budget::take`]).
    pub fn exact(
        mut self,
        store: crate::store::Store,
        remote: std::sync::Arc<RemoteUse>,
        tag: &'static str,
    ) -> Budget<K> {
        self.exact = Some(Exact { store, remote, tag });
        self
    }

    /// Takes one from `key`'s budget: this process's bucket ([`Budget::check`]), then, for a
    /// budget held exactly over the cluster, the database's. Should the database fail, this
    /// process's bucket alone decides (and the failure is logged).
    pub async fn take(&self, key: &K) -> Result<(), Refused> {
        self.check(key)?;
        let (Some(x), Some(_)) = (&self.exact, &self.limiter) else {
            return Ok(());
        };
        let every_ms = (1000.0 / self.rate).round().clamp(1.0, 86_400_000.0) as i64;
        let client = format!("{:016x}", x.remote.hash(key));
        let now = crate::game::hub::now_ms();
        match x
            .store
            .take_from_bucket(x.tag, &client, now, every_ms, i64::from(self.burst))
            .await
        {
            Ok(None) => Ok(()),
            Ok(Some(wait_ms)) => Err(Refused {
                budget: self.name,
                retry_after: Duration::from_millis(wait_ms.max(1) as u64),
                rate: self.rate,
                burst: self.burst,
            }),
            Err(e) => {
                tracing::warn!("the cluster's bucket of {} failed: {e}", x.tag);
                Ok(())
            }
        }
    }

    /// Forgets clients whose budget is full again (memory stays bounded by recent clients).
    pub fn forget_idle(&self) {
        if let Some(l) = &self.limiter {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }
}

/// A budget whose use is reported to the cluster's other processes, whatever its key.
pub trait Reported: Send + Sync {
    /// The budget's name on the bus (None: not shared).
    fn tag(&self) -> Option<&'static str>;
    /// What each client used here since the last call, the clients named by their hash.
    fn take_reported(&self) -> Vec<(u64, u32)>;
}

impl<K: std::hash::Hash + Eq + Clone + Send + Sync> Reported for Budget<K> {
    fn tag(&self) -> Option<&'static str> {
        self.shared.as_ref().map(|s| s.tag)
    }

    fn take_reported(&self) -> Vec<(u64, u32)> {
        let Some(s) = &self.shared else {
            return Vec::new();
        };
        let used: Vec<(K, u32)> = s.used.lock().expect("used lock").drain().collect();
        used.into_iter()
            .map(|(k, n)| (s.remote.hash(&k), n))
            .collect()
    }
}

/// The addresses that signed in to each account lately (keyed by the account's normalised
/// name): they pass the account's budget across all addresses, so a flood of guesses at a name
/// from elsewhere slows the guessers without locking the owner out. At most
/// [`Known::PER_NAME`] addresses a name and [`Known::NAMES`] names; forgotten after a month.
#[derive(Default)]
pub struct Known {
    seen: std::sync::Mutex<std::collections::HashMap<String, Vec<(ClientKey, std::time::Instant)>>>,
}

impl Known {
    /// Addresses remembered per name (the oldest goes first).
    pub const PER_NAME: usize = 8;
    /// Names remembered at most (past it, new names are not remembered until some expire).
    pub const NAMES: usize = 100_000;
    /// How long a sign-in is remembered.
    pub const KEEP: Duration = Duration::from_secs(30 * 24 * 3600);

    /// Whether `client` signed in to `name` within [`Known::KEEP`].
    pub fn contains(&self, name: &str, client: &ClientKey) -> bool {
        let seen = self.seen.lock().expect("known lock");
        seen.get(name).is_some_and(|v| {
            v.iter()
                .any(|(k, at)| k == client && at.elapsed() < Self::KEEP)
        })
    }

    /// Notes that `client` signed in to `name` now.
    pub fn insert(&self, name: &str, client: ClientKey) {
        let mut seen = self.seen.lock().expect("known lock");
        if !seen.contains_key(name) && seen.len() >= Self::NAMES {
            seen.retain(|_, v| v.iter().any(|(_, at)| at.elapsed() < Self::KEEP));
            if seen.len() >= Self::NAMES {
                return;
            }
        }
        let v = seen.entry(name.to_string()).or_default();
        v.retain(|(k, at)| *k != client && at.elapsed() < Self::KEEP);
        if v.len() >= Self::PER_NAME {
            v.remove(0);
        }
        v.push((client, std::time::Instant::now()));
    }

    /// Forgets sign-ins older than [`Known::KEEP`].
    pub fn forget_idle(&self) {
        let mut seen = self.seen.lock().expect("known lock");
        seen.retain(|_, v| {
            v.retain(|(_, at)| at.elapsed() < Self::KEEP);
            !v.is_empty()
        });
    }
}

/// A request over its budget: which budget, and when to come back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Refused {
    /// The budget's name (`requests`, `games created`, `actions`, `sockets opened`).
    pub budget: &'static str,
    /// How long until one more is allowed.
    pub retry_after: Duration,
    /// The budget's steady rate, a second.
    pub rate: f64,
    /// How many the budget allows at once.
    pub burst: u32,
}

impl Refused {
    /// Whole seconds for `Retry-After` (at least 1).
    pub fn retry_secs(&self) -> u64 {
        self.retry_after.as_secs_f64().ceil().max(1.0) as u64
    }

    /// The budget's size in words: "5 a minute, 5 at once".
    pub fn size(&self) -> String {
        let (n, unit) = if self.rate >= 1.0 {
            (self.rate, " second")
        } else if self.rate * 60.0 >= 1.0 {
            (self.rate * 60.0, " minute")
        } else {
            (self.rate * 3600.0, "n hour")
        };
        let n = (n * 100.0).round() / 100.0;
        format!("{n} a{unit}, {} at once", self.burst)
    }

    /// The refusal's sentence: the budget, its size and when to come back.
    pub fn message(&self) -> String {
        format!(
            "too many {}: the limit is {}; slow down (try again in {} s)",
            self.budget,
            self.size(),
            self.retry_secs()
        )
    }

    /// The refusal's `args`: budget, size and wait, for a client to show in its own words.
    pub fn args(&self) -> serde_json::Value {
        serde_json::json!({"budget": self.budget, "seconds": self.retry_secs(),
            "rate_per_minute": (self.rate * 60.0 * 100.0).round() / 100.0, "burst": self.burst})
    }

    /// The refusal as a 429 [`ActError`] with code `limit.rate`.
    pub fn to_error(&self) -> crate::game::room::ActError {
        crate::game::room::ActError::too_many(self.message()).with_code("limit.rate", self.args())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_burst_passes_then_the_flood_is_refused_with_a_wait() {
        let b = Budget::new("actions", 1.0, 5);
        let k = ClientKey::of(ip("192.0.2.1"));
        let ok = (0..20).filter(|_| b.check(&k).is_ok()).count();
        assert_eq!(ok, 5);
        let r = b.check(&k).unwrap_err();
        assert_eq!(r.budget, "actions");
        assert!(r.retry_secs() >= 1);
        assert!(
            r.message()
                .starts_with("too many actions: the limit is 1 a second, 5 at once;"),
            "{}",
            r.message()
        );
        let m = Budget::<ClientKey>::new("sign-in attempts", 5.0 / 60.0, 5);
        let _ = (0..6).map(|_| m.check(&k)).collect::<Vec<_>>();
        assert_eq!(m.check(&k).unwrap_err().size(), "5 a minute, 5 at once");
        let h = Budget::<ClientKey>::new("rated games", 3.0 / 86_400.0, 3);
        let _ = (0..3).map(|_| h.check(&k)).collect::<Vec<_>>();
        assert_eq!(h.check(&k).unwrap_err().size(), "0.13 an hour, 3 at once");
        assert!(
            b.check(&ClientKey::of(ip("192.0.2.2"))).is_ok(),
            "another client has its own"
        );
        assert!(
            Budget::new("x", 0.0, 1).check(&k).is_ok(),
            "rate 0: no limit"
        );
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_64_and_mapped_ipv4_by_the_ipv4() {
        let a = ClientKey::of(ip("2001:db8:1:2:aaaa::1"));
        let b = ClientKey::of(ip("2001:db8:1:2:ffff:1:2:3"));
        let c = ClientKey::of(ip("2001:db8:1:3::1"));
        assert_eq!(a, b, "one /64 is one client");
        assert_ne!(a, c);
        assert_eq!(
            ClientKey::of(ip("::ffff:192.0.2.7")),
            ClientKey::of(ip("192.0.2.7"))
        );
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
    }

    #[test]
    fn forwarded_for_is_read_only_from_trusted_proxies() {
        let trusted: Vec<Cidr> = vec!["10.0.0.0/8".parse().unwrap(), "::1".parse().unwrap()];
        let xff = Some("198.51.100.9, 10.1.1.1");
        // A stranger's header is ignored.
        assert_eq!(
            client_ip(ip("203.0.113.5"), xff, &trusted),
            ip("203.0.113.5")
        );
        // Through the trusted proxies: the first address they did not add.
        assert_eq!(client_ip(ip("10.0.0.2"), xff, &trusted), ip("198.51.100.9"));
        assert_eq!(
            client_ip(ip("::1"), Some("198.51.100.9"), &trusted),
            ip("198.51.100.9")
        );
        // A client that prepends its own fake entries does not escape its address.
        assert_eq!(
            client_ip(ip("10.0.0.2"), Some("1.2.3.4, 198.51.100.9"), &trusted),
            ip("198.51.100.9")
        );
        // Nonsense in the header: the last address that read.
        assert_eq!(
            client_ip(ip("10.0.0.2"), Some("junk"), &trusted),
            ip("10.0.0.2")
        );
        assert_eq!(client_ip(ip("10.0.0.2"), None, &trusted), ip("10.0.0.2"));
    }

    #[test]
    fn known_addresses_are_per_name_and_bounded() {
        let k = Known::default();
        let a = ClientKey::of(ip("192.0.2.1"));
        let b = ClientKey::of(ip("192.0.2.2"));
        k.insert("alice", a);
        assert!(k.contains("alice", &a));
        assert!(!k.contains("alice", &b));
        assert!(!k.contains("bob", &a));
        for i in 0..20 {
            k.insert("alice", ClientKey::of(ip(&format!("198.51.100.{i}"))));
        }
        assert!(
            !k.contains("alice", &a),
            "the oldest of more than PER_NAME goes"
        );
        assert!(k.contains("alice", &ClientKey::of(ip("198.51.100.19"))));
    }

    #[test]
    fn ranges_read_and_match() {
        let c: Cidr = "192.168.0.0/16".parse().unwrap();
        assert!(c.contains(ip("192.168.44.1")));
        assert!(!c.contains(ip("192.169.0.1")));
        assert!(c.contains(ip("::ffff:192.168.0.1")));
        assert!("0.0.0.0/0".parse::<Cidr>().unwrap().contains(ip("8.8.8.8")));
        assert!(!"0.0.0.0/0".parse::<Cidr>().unwrap().contains(ip("::2")));
        let v6: Cidr = "2001:db8::/32".parse().unwrap();
        assert!(v6.contains(ip("2001:db8:ffff::1")));
        for bad in ["", "10.0.0.0/33", "::/129", "nonsense", "10.0.0.0/x"] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
    }
}
