//! The Go (baduk) rules library: points, positions, rule sets as data, game history with every
//! repetition rule, scoring under every rule set, life and death, and the SGF adapter.
//!
//! It knows nothing of I/O, terminals or networks; the `baduk` binary and the servers are adapters
//! on top of it.
