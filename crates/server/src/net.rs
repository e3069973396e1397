//! Who a client is, by its network address: the key the limits count by (an IPv4 address, or
//! an IPv6 address cut to its /64), the address ranges of trusted proxies, and the client behind
//! a proxy's `X-Forwarded-For`. The bottom of the server: it names no other module, so every
//! domain (the hub counting open games per client included) may use it.

use std::net::{IpAddr, Ipv6Addr};
use std::str::FromStr;

/// A client as the limits see it: an IPv4 address, or an IPv6 address cut to its /64 (one
/// subscriber's network; an IPv4-mapped IPv6 address counts as the IPv4 address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    /// The address (an IPv6 client's /64 prefix).
    pub fn ip(&self) -> IpAddr {
        self.0
    }

    /// The key of address `ip`.
    pub fn of(ip: IpAddr) -> ClientKey {
        match ip {
            IpAddr::V4(v4) => ClientKey(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey(IpAddr::V4(v4)),
                None => {
                    let s = v6.segments();
                    ClientKey(IpAddr::V6(Ipv6Addr::new(
                        s[0], s[1], s[2], s[3], 0, 0, 0, 0,
                    )))
                }
            },
        }
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(a) => write!(f, "{a}"),
            IpAddr::V6(a) => write!(f, "{a}/64"),
        }
    }
}

/// An address range `ADDR/BITS` (or one address), such as `10.0.0.0/8` or `::1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    bits: u8,
}

impl FromStr for Cidr {
    type Err = String;
    fn from_str(s: &str) -> Result<Cidr, String> {
        let bad = || format!("`{s}`: an address range such as 10.0.0.0/8, 127.0.0.1 or ::1/128");
        let (a, b) = match s.trim().split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (s.trim(), None),
        };
        let addr: IpAddr = a.parse().map_err(|_| bad())?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let bits = match b {
            None => max,
            Some(b) => b.parse::<u8>().ok().filter(|&n| n <= max).ok_or_else(bad)?,
        };
        Ok(Cidr { addr, bits })
    }
}

impl Cidr {
    /// Whether `ip` lies in the range (an IPv4-mapped IPv6 address counts as IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                let mask = u32::MAX.checked_shl(32 - self.bits as u32).unwrap_or(0);
                u32::from(n) & mask == u32::from(a) & mask
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                let mask = u128::MAX.checked_shl(128 - self.bits as u32).unwrap_or(0);
                u128::from(n) & mask == u128::from(a) & mask
            }
            _ => false,
        }
    }
}

/// The client behind a request from `peer`: the peer itself, unless the peer is a trusted proxy
/// and sent `X-Forwarded-For`; then the rightmost address there that is not a trusted proxy
/// (the one the nearest trusted proxy saw). A header that does not read falls back to the peer.
pub fn client_ip(peer: IpAddr, forwarded_for: Option<&str>, trusted: &[Cidr]) -> IpAddr {
    if !trusted.iter().any(|c| c.contains(peer)) {
        return peer;
    }
    let Some(header) = forwarded_for else {
        return peer;
    };
    let mut last = peer;
    for part in header.rsplit(',').take(32) {
        let Ok(ip) = part.trim().parse::<IpAddr>() else {
            return last;
        };
        last = ip;
        if !trusted.iter().any(|c| c.contains(ip)) {
            return ip;
        }
    }
    last
}

/// What the cluster's other processes report of each client (issue 43): rate-budget use not
/// yet charged here, and the sockets each client holds open on each of them. Clients are
/// named by [`RemoteUse::hash`], a hash keyed by the cluster's secret, never by address.
#[derive(Debug)]
pub struct RemoteUse {
    salt: u64,
    /// budget → client → (use not charged here yet, when it was reported, ms).
    owed: std::sync::Mutex<std::collections::HashMap<String, ClientsOwed>>,
    /// Whether `owed` has anything (the budgets' check reads this first).
    any_owed: std::sync::atomic::AtomicBool,
    /// client → (node, sockets open there, when it was reported, ms).
    sockets: std::sync::Mutex<std::collections::HashMap<u64, Vec<NodeSockets>>>,
}

/// Use reported by the others and not yet charged here: client → (amount, when reported, ms).
type ClientsOwed = std::collections::HashMap<u64, (u32, i64)>;

/// One process's report of a client's open sockets: (node, sockets, when reported, ms).
type NodeSockets = (String, u32, i64);

/// How long a report of another process stands (ms): use not charged by then is dropped, and
/// sockets not reported again are taken as closed.
pub const REMOTE_USE_MS: i64 = 3_000;

impl RemoteUse {
    /// An empty record; `secret` keys the clients' hash (the same on every process).
    pub fn new(secret: Option<&str>) -> RemoteUse {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        "baduk remote use".hash(&mut h);
        secret.hash(&mut h);
        RemoteUse {
            salt: h.finish(),
            owed: Default::default(),
            any_owed: Default::default(),
            sockets: Default::default(),
        }
    }

    /// The client's name in reports: a hash of its key keyed by the cluster's secret (std's
    /// SipHash: processes of different Rust builds may name a client differently, so during a
    /// rolling upgrade across toolchains the budgets are per process again).
    pub fn hash<K: std::hash::Hash + ?Sized>(&self, key: &K) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        self.salt.hash(&mut h);
        key.hash(&mut h);
        h.finish()
    }

    /// Notes that `client` used `n` of `budget` on another process at `now`.
    pub fn owe(&self, budget: &str, client: u64, n: u32, now: i64) {
        let mut o = self.owed.lock().expect("owed lock");
        let by_client = match o.get_mut(budget) {
            Some(m) => m,
            None => o.entry(budget.to_string()).or_default(),
        };
        let e = by_client.entry(client).or_insert((0, now));
        e.0 = e.0.saturating_add(n);
        e.1 = now;
        self.any_owed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Takes what `key` owes of `budget` (0: nothing).
    pub fn take_owed<K: std::hash::Hash + ?Sized>(&self, budget: &str, key: &K) -> u32 {
        if !self.any_owed.load(std::sync::atomic::Ordering::Relaxed) {
            return 0;
        }
        let h = self.hash(key);
        let mut o = self.owed.lock().expect("owed lock");
        let n = o
            .get_mut(budget)
            .and_then(|m| m.remove(&h))
            .map_or(0, |e| e.0);
        if o.values().all(|m| m.is_empty()) {
            self.any_owed
                .store(false, std::sync::atomic::Ordering::Relaxed);
        }
        n
    }

    /// Replaces what `node` reported of `client`'s open sockets.
    pub fn set_sockets(&self, node: &str, client: u64, open: u32, now: i64) {
        let mut s = self.sockets.lock().expect("sockets lock");
        let v = s.entry(client).or_default();
        match v.iter_mut().find(|e| e.0 == node) {
            Some(e) => (e.1, e.2) = (open, now),
            None => v.push((node.to_string(), open, now)),
        }
    }

    /// The sockets `key` holds open on the other processes, as last reported within
    /// [`REMOTE_USE_MS`] of `now`.
    pub fn sockets_of(&self, key: &ClientKey, now: i64) -> usize {
        let h = self.hash(key);
        let s = self.sockets.lock().expect("sockets lock");
        s.get(&h).map_or(0, |v| {
            v.iter()
                .filter(|e| now - e.2 <= REMOTE_USE_MS)
                .map(|e| e.1 as usize)
                .sum()
        })
    }

    /// Drops reports older than [`REMOTE_USE_MS`] at `now`.
    pub fn expire(&self, now: i64) {
        let mut o = self.owed.lock().expect("owed lock");
        o.retain(|_, m| {
            m.retain(|_, (_, at)| now - *at <= REMOTE_USE_MS);
            !m.is_empty()
        });
        if o.is_empty() {
            self.any_owed
                .store(false, std::sync::atomic::Ordering::Relaxed);
        }
        drop(o);
        let mut s = self.sockets.lock().expect("sockets lock");
        s.retain(|_, v| {
            v.retain(|e| now - e.2 <= REMOTE_USE_MS);
            !v.is_empty()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_use_is_charged_once_and_reports_expire() {
        let r = RemoteUse::new(Some("secret"));
        let k = ClientKey::of("192.0.2.1".parse().unwrap());
        let other = ClientKey::of("192.0.2.2".parse().unwrap());
        // The same secret names a client the same on every process; another secret does not.
        assert_eq!(r.hash(&k), RemoteUse::new(Some("secret")).hash(&k));
        assert_ne!(r.hash(&k), RemoteUse::new(Some("other")).hash(&k));
        assert_ne!(r.hash(&k), r.hash(&other));
        r.owe("actions", r.hash(&k), 2, 1_000);
        r.owe("actions", r.hash(&k), 3, 1_500);
        assert_eq!(r.take_owed("requests", &k), 0);
        assert_eq!(r.take_owed("actions", &other), 0);
        assert_eq!(r.take_owed("actions", &k), 5);
        assert_eq!(r.take_owed("actions", &k), 0, "charged once");
        r.set_sockets("n1", r.hash(&k), 2, 1_000);
        r.set_sockets("n2", r.hash(&k), 1, 1_000);
        assert_eq!(r.sockets_of(&k, 1_000), 3);
        r.set_sockets("n1", r.hash(&k), 0, 2_000);
        assert_eq!(r.sockets_of(&k, 2_000), 1);
        assert_eq!(
            r.sockets_of(&k, 1_000 + REMOTE_USE_MS + 1),
            0,
            "a stale report"
        );
        r.owe("actions", r.hash(&k), 1, 1_000);
        r.expire(1_000 + REMOTE_USE_MS + 1);
        assert_eq!(r.take_owed("actions", &k), 0, "an expired report");
    }
}
