//! Maximum-cardinality matching on a general graph (Edmonds' blossom algorithm, the
//! breadth-first form with blossom bases) and a greedy pairing that stays completable.
//!
//! The pairing engines build a graph whose edges are the pairings they allow, check that it has
//! a perfect matching, then pair top-down by preference: each tentative pair is kept only if the
//! players left still have a perfect matching, found by one augmenting path from the matching
//! kept so far. So a constraint that can be met for the whole field is met, and the top of the
//! field gets its preferred opponents first.

const NONE: usize = usize::MAX;

/// A graph given by an adjacency matrix, with a matching and the vertices still in play.
pub(crate) struct Matcher {
    n: usize,
    adj: Vec<bool>,
    active: Vec<bool>,
    mate: Vec<usize>,
    // Scratch for the search.
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    blossom: Vec<bool>,
    queue: Vec<usize>,
}

impl Matcher {
    /// A graph on `n` vertices whose edges are the pairs `edge(i, j)` allows.
    pub(crate) fn new(n: usize, edge: impl Fn(usize, usize) -> bool) -> Matcher {
        let mut adj = vec![false; n * n];
        for i in 0..n {
            for j in i + 1..n {
                if edge(i, j) {
                    adj[i * n + j] = true;
                    adj[j * n + i] = true;
                }
            }
        }
        Matcher {
            n,
            adj,
            active: vec![true; n],
            mate: vec![NONE; n],
            parent: vec![NONE; n],
            base: (0..n).collect(),
            used: vec![false; n],
            blossom: vec![false; n],
            queue: Vec::with_capacity(n),
        }
    }

    fn edge(&self, i: usize, j: usize) -> bool {
        self.adj[i * self.n + j]
    }

    /// Grows the matching to a maximum one; true when it is perfect.
    pub(crate) fn perfect(&mut self) -> bool {
        // A greedy start, then an augmenting path from every vertex still exposed.
        for i in 0..self.n {
            if self.mate[i] == NONE {
                if let Some(j) = (i + 1..self.n).find(|&j| self.mate[j] == NONE && self.edge(i, j))
                {
                    self.mate[i] = j;
                    self.mate[j] = i;
                }
            }
        }
        for root in 0..self.n {
            if self.mate[root] == NONE {
                if let Some(end) = self.find_path(root) {
                    self.augment(end);
                }
            }
        }
        self.mate.iter().all(|&m| m != NONE)
    }

    /// Pairs `i` with `j` for good if the other active vertices keep a perfect matching
    /// (the matching is perfect on the active vertices before); false leaves all as it was.
    pub(crate) fn try_pair(&mut self, i: usize, j: usize) -> bool {
        if !self.edge(i, j) || !self.active[i] || !self.active[j] {
            return false;
        }
        if self.mate[i] == j {
            self.active[i] = false;
            self.active[j] = false;
            return true;
        }
        let (a, b) = (self.mate[i], self.mate[j]);
        let saved = self.mate.clone();
        self.active[i] = false;
        self.active[j] = false;
        self.mate[i] = j;
        self.mate[j] = i;
        self.mate[a] = NONE;
        self.mate[b] = NONE;
        if let Some(end) = self.find_path(a) {
            debug_assert_eq!(end, b);
            self.augment(end);
            true
        } else {
            self.active[i] = true;
            self.active[j] = true;
            self.mate = saved;
            false
        }
    }

    fn augment(&mut self, mut v: usize) {
        while v != NONE {
            let pv = self.parent[v];
            let next = self.mate[pv];
            self.mate[v] = pv;
            self.mate[pv] = v;
            v = next;
        }
    }

    fn lca(&self, mut a: usize, mut b: usize) -> usize {
        let mut seen = vec![false; self.n];
        loop {
            a = self.base[a];
            seen[a] = true;
            if self.mate[a] == NONE {
                break;
            }
            a = self.parent[self.mate[a]];
        }
        loop {
            b = self.base[b];
            if seen[b] {
                return b;
            }
            b = self.parent[self.mate[b]];
        }
    }

    fn mark_path(&mut self, mut v: usize, b: usize, mut child: usize) {
        while self.base[v] != b {
            self.blossom[self.base[v]] = true;
            self.blossom[self.base[self.mate[v]]] = true;
            self.parent[v] = child;
            child = self.mate[v];
            v = self.parent[self.mate[v]];
        }
    }

    /// An exposed vertex reached by an augmenting path from `root` (the path is in `parent`).
    fn find_path(&mut self, root: usize) -> Option<usize> {
        let n = self.n;
        self.used.iter_mut().for_each(|u| *u = false);
        self.parent.iter_mut().for_each(|p| *p = NONE);
        for (i, b) in self.base.iter_mut().enumerate() {
            *b = i;
        }
        self.queue.clear();
        self.used[root] = true;
        self.queue.push(root);
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head];
            head += 1;
            for to in 0..n {
                if !self.active[to] || !self.edge(v, to) {
                    continue;
                }
                if self.base[v] == self.base[to] || self.mate[v] == to {
                    continue;
                }
                if to == root || (self.mate[to] != NONE && self.parent[self.mate[to]] != NONE) {
                    let cur = self.lca(v, to);
                    self.blossom.iter_mut().for_each(|b| *b = false);
                    self.mark_path(v, cur, to);
                    self.mark_path(to, cur, v);
                    for i in 0..n {
                        if self.blossom[self.base[i]] {
                            self.base[i] = cur;
                            if !self.used[i] {
                                self.used[i] = true;
                                self.queue.push(i);
                            }
                        }
                    }
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if self.mate[to] == NONE {
                        return Some(to);
                    }
                    let next = self.mate[to];
                    self.used[next] = true;
                    self.queue.push(next);
                }
            }
        }
        None
    }
}

/// Pairs `n` vertices (n even) under the first constraint level with a perfect matching:
/// `edge(level, i, j)` says whether level `level` allows i–j (the last level must allow every
/// pair); then, for each vertex in `order` still unpaired, the first of `prefs(v)` that keeps
/// the rest completable. Returns the pairs and the level used.
pub(crate) fn pair_greedy(
    n: usize,
    levels: usize,
    edge: impl Fn(usize, usize, usize) -> bool,
    order: &[usize],
    prefs: impl Fn(usize) -> Vec<usize>,
) -> (Vec<(usize, usize)>, usize) {
    debug_assert!(n.is_multiple_of(2));
    for level in 0..levels {
        let mut m = Matcher::new(n, |i, j| edge(level, i, j));
        if !m.perfect() {
            continue;
        }
        let mut pairs = Vec::with_capacity(n / 2);
        for &v in order {
            if !m.active[v] {
                continue;
            }
            let partner = prefs(v)
                .into_iter()
                .find(|&w| w != v && m.try_pair(v, w))
                .or_else(|| {
                    // The matching itself always completes.
                    let w = m.mate[v];
                    m.try_pair(v, w).then_some(w)
                })
                .expect("a perfect matching pairs every vertex");
            pairs.push((v, partner));
        }
        return (pairs, level);
    }
    panic!("the last constraint level must allow every pair");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_cycle_blossom_is_matched() {
        // A triangle 0-1-2 with a tail 2-3 and 0-4, 4-5: perfect only through the blossom.
        let edges = [(0, 1), (1, 2), (0, 2), (2, 3), (0, 4), (4, 5)];
        let mut m = Matcher::new(6, |i, j| edges.contains(&(i, j)) || edges.contains(&(j, i)));
        assert!(m.perfect());
    }

    #[test]
    fn star_has_no_perfect_matching() {
        let mut m = Matcher::new(4, |i, _| i == 0);
        assert!(!m.perfect());
    }

    #[test]
    fn try_pair_refuses_a_pair_that_strands_the_rest() {
        // Path 0-1-2-3: pairing 1 with 2 strands 0 and 3.
        let mut m = Matcher::new(4, |i, j| j == i + 1);
        assert!(m.perfect());
        assert!(!m.try_pair(1, 2));
        assert!(m.try_pair(0, 1));
        assert!(m.try_pair(2, 3));
    }
}
