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
    let arrays: Map<String, Value> = obj
        .iter()
        .filter(|(k, v)| (v.is_array() && *k != "log") || STABLE.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some((_, old)) = last.filter(|(v, _)| *v == base) {
        let mut patches = Map::new();
        for (k, new) in &arrays {
            if STABLE.contains(&k.as_str()) {
                if old.get(k) == Some(new) {
                    obj.remove(k);
                }
                continue;
            }
            let (Some(Value::Array(o)), Value::Array(n)) = (old.get(k), new) else {
                continue;
            };
            if let Some(p) = patch(o, n) {
                obj.remove(k);
                patches.insert(k.clone(), p);
            }
        }
        if !patches.is_empty() {
            obj.insert("patch".into(), Value::Object(patches));
        }
    }
    (version, arrays)
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
    let (remove, insert) = splice(old, new)?;
    if !small(remove.len() + insert.len()) {
        return None;
    }
    // Checked, as a client applies it: an order the walk misread is never sent.
    (apply_splice(old, &remove, &insert) == new).then(|| {
        json!({
            "remove": remove,
            "insert": insert.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
        })
    })
}

/// Old indexes to drop, then (new index, value) pairs to insert.
type Splice = (Vec<usize>, Vec<(usize, Value)>);

/// The old indexes to drop and the (new index, value) pairs to insert that turn `old` into
/// `new`, for two lists of distinct strings in one order (the legal moves); None otherwise.
fn splice(old: &[Value], new: &[Value]) -> Option<Splice> {
    let strs = |a: &[Value]| -> Option<Vec<String>> {
        a.iter().map(|v| v.as_str().map(str::to_string)).collect()
    };
    let (o, n) = (strs(old)?, strs(new)?);
    let in_old: HashSet<&str> = o.iter().map(String::as_str).collect();
    let in_new: HashSet<&str> = n.iter().map(String::as_str).collect();
    if in_old.len() != o.len() || in_new.len() != n.len() {
        return None; // repeated entries: no single reading
    }
    let (mut i, mut j) = (0, 0);
    let (mut remove, mut insert) = (Vec::new(), Vec::new());
    while i < o.len() || j < n.len() {
        match (o.get(i), n.get(j)) {
            (Some(a), Some(b)) if a == b => {
                i += 1;
                j += 1;
            }
            (Some(a), _) if !in_new.contains(a.as_str()) => {
                remove.push(i);
                i += 1;
            }
            (_, Some(b)) if !in_old.contains(b.as_str()) => {
                insert.push((j, new[j].clone()));
                j += 1;
            }
            _ => return None, // both kept but in another order
        }
    }
    Some((remove, insert))
}

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
    fn a_list_that_changed_too_much_or_reordered_is_sent_whole() {
        let old = strs(&["A", "B", "C", "D"]);
        assert!(patch(&old, &strs(&["W", "X", "Y", "Z"])).is_none());
        assert!(patch(&old, &strs(&["B", "A", "C", "D", "E"])).is_none());
        assert!(patch(&strs(&["A", "A"]), &strs(&["A", "B", "A"])).is_none());
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
