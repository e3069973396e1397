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
