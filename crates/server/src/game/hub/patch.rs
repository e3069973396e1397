//! The watchers' deltas made lean (issue 43): a delta's arrays (the board's rows, the legal
//! moves, …) are sent as patches of the same arrays in the delta before it, which every watcher
//! holds, instead of whole. A patch is `{"set": [[i, v], …]}` (these entries replaced, the
//! length kept) or `{"remove": [i, …], "insert": [[k, v], …]}` (the entries at these old
//! indexes dropped, then each value inserted at its new index, in order); an array whose patch
//! would not be smaller than half of it is sent whole. The fields a game never changes (its id,
//! rules, size…) and its seats (which only fill) are left out when the delta before had them
//! the same. docs/api.md, "Changes", says how a client applies them.

use serde_json::{json, Map, Value};
use std::collections::HashSet;

/// The arrays (and stable fields) of the last delta sent to a game's watchers, by the version
/// they describe.
pub type Arrays = (i64, Map<String, Value>);

/// Fields a delta leaves out when the one before had them the same: a game's settings, which
/// never change, and its seats, which only fill (a seat once joined stays joined; a change to
/// them comes in a delta or a full state before the next delta is made).
pub const STABLE: &[&str] = &[
    "columns",
    "created_at",
    "dead_stone_phase",
    "game",
    "handicap",
    "id",
    "komi",
    "rated",
    "rating_kind",
    "rules",
    "rules_label",
    "rules_name",
    "seats",
    "size",
    "variant",
];

/// Makes `change` (a delta from `base`) lean against `last` (the arrays at `base`, if known):
/// each array it patches leaves the change for an entry of its `patch` object. Returns the
/// arrays of the new version, to keep for the next delta.
pub fn lean(change: &mut Value, base: i64, version: i64, last: Option<&Arrays>) -> Arrays {
    let Some(obj) = change.as_object_mut() else {
        return (version, Map::new());
    };
    let keys: Vec<String> = obj
        .iter()
        .filter(|(k, v)| (v.is_array() && *k != "log") || STABLE.contains(&k.as_str()))
        .map(|(k, _)| k.clone())
        .collect();
    let old = last.filter(|(v, _)| *v == base).map(|(_, m)| m);
    let mut patches = Map::new();
    let mut kept = Map::new();
    // Each value moves to the kept arrays; only one sent whole is copied back.
    for k in keys {
        let Some(new) = obj.remove(&k) else {
            continue;
        };
        let sent = match (old.and_then(|o| o.get(&k)), &new) {
            (Some(o), _) if STABLE.contains(&k.as_str()) => o != &new,
            (Some(Value::Array(o)), Value::Array(n)) => match patch(o, n) {
                Some(p) => {
                    patches.insert(k.clone(), p);
                    false
                }
                None => true,
            },
            _ => true,
        };
        if sent {
            obj.insert(k.clone(), new.clone());
        }
        kept.insert(k, new);
    }
    if !patches.is_empty() {
        obj.insert("patch".into(), Value::Object(patches));
    }
    (version, kept)
}

/// A patch turning `old` into `new`, if one is smaller than half of `new`.
pub fn patch(old: &[Value], new: &[Value]) -> Option<Value> {
    let small = |ops: usize| ops * 2 <= new.len().max(1);
    if old.len() == new.len() {
        let set: Vec<Value> = old
            .iter()
            .zip(new)
            .enumerate()
            .filter(|(_, (o, n))| o != n)
            .map(|(i, (_, n))| json!([i, n]))
            .collect();
        if small(set.len()) {
            return Some(json!({ "set": set }));
        }
    }
    let (remove, insert) = splice(old, new);
    if !small(remove.len() + insert.len()) {
        return None;
    }
    // The walk gives `new` by construction; debug builds (the tests) check it as a client
    // applies it.
    debug_assert_eq!(apply_splice(old, &remove, &insert), new);
    Some(json!({
        "remove": remove,
        "insert": insert.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
    }))
}

/// Old indexes to drop, then (new index, value) pairs to insert.
type Splice = (Vec<usize>, Vec<(usize, Value)>);

/// The old indexes to drop and the (new index, value) pairs to insert that turn `old` into
/// `new`. A walk over both: equal heads are kept; otherwise a run of up to [`LOOKAHEAD`] entries
/// of either list before the next match is dropped or inserted, and failing that the old head is
/// dropped and the new one inserted. Every entry of `new` is kept or inserted in its own order,
/// so the result is `new` whatever the lists (a legal list changes by the move played, the
/// points it took or freed and a ko: a few short runs).
fn splice(old: &[Value], new: &[Value]) -> Splice {
    let (mut i, mut j) = (0, 0);
    let (mut remove, mut insert) = (Vec::new(), Vec::new());
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            i += 1;
            j += 1;
            continue;
        }
        if i >= old.len() {
            insert.push((j, new[j].clone()));
            j += 1;
            continue;
        }
        if j >= new.len() {
            remove.push(i);
            i += 1;
            continue;
        }
        let ahead = |a: &[Value], from: usize, x: &Value| {
            (1..=LOOKAHEAD).find(|d| a.get(from + d) == Some(x))
        };
        if let Some(d) = ahead(new, j, &old[i]) {
            insert.extend((j..j + d).map(|k| (k, new[k].clone())));
            j += d;
        } else if let Some(d) = ahead(old, i, &new[j]) {
            remove.extend(i..i + d);
            i += d;
        } else {
            remove.push(i);
            insert.push((j, new[j].clone()));
            i += 1;
            j += 1;
        }
    }
    (remove, insert)
}

/// How far [`splice`] looks for the next match.
const LOOKAHEAD: usize = 8;

/// `old` with the entries at `remove` dropped and `insert` inserted (as a client does it).
fn apply_splice(old: &[Value], remove: &[usize], insert: &[(usize, Value)]) -> Vec<Value> {
    let gone: HashSet<usize> = remove.iter().copied().collect();
    let mut out: Vec<Value> = old
        .iter()
        .enumerate()
        .filter(|(i, _)| !gone.contains(i))
        .map(|(_, v)| v.clone())
        .collect();
    for (k, v) in insert {
        out.insert((*k).min(out.len()), v.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(s: &[&str]) -> Vec<Value> {
        s.iter().map(|x| json!(x)).collect()
    }

    /// A patch applied as a client does it.
    fn apply(old: &[Value], p: &Value) -> Vec<Value> {
        if let Some(set) = p["set"].as_array() {
            let mut out = old.to_vec();
            for e in set {
                out[e[0].as_u64().unwrap() as usize] = e[1].clone();
            }
            return out;
        }
        let remove: Vec<usize> = p["remove"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let insert: Vec<(usize, Value)> = p["insert"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e[0].as_u64().unwrap() as usize, e[1].clone()))
            .collect();
        apply_splice(old, &remove, &insert)
    }

    #[test]
    fn a_move_and_its_captures_patch_the_legal_list_and_the_board() {
        let old = strs(&["A1", "A2", "B1", "B2", "C1", "C2", "C3", "D1", "pass"]);
        // B2 played; A1 taken by a capture's ko; C9 freed.
        let new = strs(&["A2", "B1", "C1", "C2", "C3", "C9", "D1", "pass"]);
        let p = patch(&old, &new).unwrap();
        assert_eq!(apply(&old, &p), new, "{p}");
        let rows = strs(&["...", ".B.", "..."]);
        let after = strs(&["...", ".BW", "..."]);
        let p = patch(&rows, &after).unwrap();
        assert_eq!(p, json!({"set": [[1, ".BW"]]}));
        assert_eq!(apply(&rows, &p), after);
    }

    #[test]
    fn a_list_that_changed_too_much_is_sent_whole_and_any_other_patches_right() {
        let old = strs(&["A", "B", "C", "D"]);
        assert!(patch(&old, &strs(&["W", "X", "Y", "Z"])).is_none());
        for new in [
            strs(&["B", "A", "C", "D", "E"]),
            strs(&["A", "C", "B", "D"]),
            strs(&["A", "A", "B", "C", "D", "D"]),
        ] {
            let (remove, insert) = splice(&old, &new);
            assert_eq!(apply_splice(&old, &remove, &insert), new);
        }
    }

    #[test]
    fn a_delta_keeps_its_arrays_for_the_next_and_patches_against_them() {
        let mut first = json!({"version": 5, "id": "g1", "board": ["..", ".."], "legal": ["A1", "A2", "B1", "B2", "pass"], "log": [1]});
        let kept = lean(&mut first, 4, 5, None);
        assert!(first.get("patch").is_none(), "nothing to patch against");
        let mut next = json!({"version": 6, "id": "g1", "board": ["B.", ".."], "legal": ["A2", "B1", "B2", "pass"], "log": [2]});
        let again = lean(&mut next, 5, 6, Some(&kept));
        assert_eq!(
            next,
            json!({"version": 6, "log": [2], "patch": {"board": {"set": [[0, "B."]]}, "legal": {"remove": [0], "insert": []}}})
        );
        // Kept arrays of another version are not used.
        let mut other = json!({"version": 8, "board": ["B.", "W."], "log": []});
        lean(&mut other, 7, 8, Some(&again));
        assert!(other.get("patch").is_none());
    }

    proptest::proptest! {
        #[test]
        fn any_patch_applies_to_the_list_it_was_made_from(
            keep in proptest::collection::vec(proptest::bool::ANY, 40),
            extra in proptest::collection::vec(0usize..60, 0..6),
        ) {
            let all: Vec<String> = (0..60).map(|i| format!("P{i}")).collect();
            let old: Vec<Value> = all[..40].iter().map(|s| json!(s)).collect();
            let mut chosen: Vec<usize> = (0..40).filter(|&i| keep[i]).collect();
            chosen.extend(extra);
            chosen.sort_unstable();
            chosen.dedup();
            let new: Vec<Value> = chosen.iter().map(|&i| json!(all[i])).collect();
            if let Some(p) = patch(&old, &new) {
                proptest::prop_assert_eq!(apply(&old, &p), new);
            }
        }
    }
}
