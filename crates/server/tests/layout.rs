//! The server's house keeps its shape (issue 40): no source file over 1,000 lines, and imports
//! run one way between the domain folders of `src/`:
//!
//! `lib.rs` → `http` → `botapi` → `tournaments` → `challenges` → `mail` → `review` →
//! `players`, `cluster` → `state` → `config` → `game` → `store` → `net`.
//!
//! A domain may not name a domain above it (`crate::http` from `game`, …), nor what `lib.rs`
//! itself defines or re-exports (`crate::Config`: name `crate::config::Config`). There is no
//! exception: an upward import fails here (move the thing down, or hand it down as a value).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The most lines a source file of the server may have.
const MAX_LINES: usize = 1000;

/// Each domain folder (or file) of `src/` and the `crate::` names it may not use.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "net",
        &[
            "http",
            "botapi",
            "tournaments",
            "challenges",
            "mail",
            "players",
            "review",
            "cluster",
            "state",
            "config",
            "game",
            "store",
        ],
    ),
    (
        "store",
        &[
            "http",
            "botapi",
            "tournaments",
            "challenges",
            "mail",
            "players",
            "review",
            "cluster",
            "state",
            "config",
            "game",
        ],
    ),
    (
        "config",
        &[
            "http",
            "botapi",
            "tournaments",
            "challenges",
            "mail",
            "players",
            "review",
            "cluster",
            "state",
        ],
    ),
    (
        "game",
        &[
            "http",
            "botapi",
            "tournaments",
            "challenges",
            "mail",
            "players",
            "review",
            "cluster",
            "state",
            "config",
        ],
    ),
    (
        "state",
        &[
            "http",
            "botapi",
            "tournaments",
            "challenges",
            "mail",
            "players",
            "review",
            "cluster",
        ],
    ),
    (
        "cluster",
        &[
            "http",
            "botapi",
            "tournaments",
            "challenges",
            "mail",
            "players",
            "review",
        ],
    ),
    (
        "players",
        &[
            "http",
            "botapi",
            "tournaments",
            "challenges",
            "mail",
            "review",
        ],
    ),
    (
        "review",
        &["http", "botapi", "tournaments", "challenges", "mail"],
    ),
    ("mail", &["http", "botapi", "tournaments", "challenges"]),
    ("challenges", &["http", "botapi", "tournaments"]),
    ("tournaments", &["http", "botapi"]),
    ("botapi", &["http"]),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src/ reads") {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `crate::a::b…` path in `code` (comments left out), as `a::b…`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let tail = &rest[i + "crate::".len()..];
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            out.push(tail[..end].trim_end_matches(':').to_string());
            rest = &tail[end..];
        }
    }
    out
}

#[test]
fn no_source_file_of_the_server_passes_a_thousand_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p)
                .expect("a source file")
                .lines()
                .count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these by job (issue 40): {long:?}");
}

#[test]
fn no_domain_imports_a_domain_above_it() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    // The modules `lib.rs` declares: a `crate::` name that is none of them is lib.rs's own.
    let modules: BTreeSet<String> = std::fs::read_dir(&root)
        .expect("src/ reads")
        .map(|e| e.expect("a directory entry").path())
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .filter(|m| m != "lib")
        .collect();
    let mut found = Vec::new();
    for p in &files {
        let rel = p.strip_prefix(&root).expect("under src/");
        let rel_s = rel.to_string_lossy().replace('\\', "/");
        let domain = rel_s
            .split('/')
            .next()
            .unwrap_or("")
            .trim_end_matches(".rs")
            .to_string();
        if rel_s == "lib.rs" {
            continue;
        }
        // `http` may name every domain, but not lib.rs's own items either.
        let forbidden: &[&str] = FORBIDDEN
            .iter()
            .find(|(d, _)| *d == domain)
            .map_or(&[], |(_, f)| *f);
        let code = std::fs::read_to_string(p).expect("a source file");
        // `use crate::{a, b}` groups name their domains one by one.
        let mut paths = crate_paths(&code);
        for group in code.split("crate::{").skip(1) {
            let inner = group.split('}').next().unwrap_or("");
            paths.extend(inner.split(',').map(|s| s.trim().to_string()));
        }
        for path in paths {
            let top = path.split("::").next().unwrap_or("");
            if !top.is_empty() && !modules.contains(top) {
                found.push(format!("{rel_s}: crate::{path} (lib.rs's own)"));
                continue;
            }
            if !forbidden.contains(&top) {
                continue;
            }
            found.push(format!("{rel_s}: crate::{path}"));
        }
    }
    assert!(
        found.is_empty(),
        "imports that run up between domains (issue 40; move the thing down instead): {found:#?}"
    );
}
