//! The Go bot: Monte Carlo tree search with a rules-faithful playout policy.
