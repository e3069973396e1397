//! One serving process a SQLite file: `baduk serve` holds an exclusive lock on `FILE.lock` (the
//! database's path with `.lock` added, holding the holder's process id) for as long as it runs;
//! the operating system lets it go when the process exits, however it exits.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// The lock file of a `sqlite:` database URL; None for PostgreSQL (several processes share one
/// by design) or a URL that names no file (the store refuses it when it opens).
pub fn lock_path(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("sqlite:")?.trim_start_matches("//");
    let file = rest.split('?').next().unwrap_or("");
    if file.is_empty() || file.starts_with(":memory:") {
        return None;
    }
    Some(PathBuf::from(format!("{file}.lock")))
}

/// Takes the lock of the SQLite database at `url` for this process (None for PostgreSQL). The
/// error names the database and, when another process holds it, that process's id.
pub fn lock_sqlite(url: &str) -> Result<Option<File>, String> {
    let Some(path) = lock_path(url) else {
        return Ok(None);
    };
    let shown = path.display();
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("database {url}: cannot open its lock file {shown}: {e}"))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut held = String::new();
            let _ = file.read_to_string(&mut held);
            let pid = held.trim();
            let who = if pid.is_empty() {
                "another process".to_string()
            } else {
                format!("process {pid}")
            };
            return Err(format!(
                "database {url}: {who} serves this SQLite file (it holds {shown}); \
                 one process a SQLite file: stop it first (SIGTERM) and wait for it to exit"
            ));
        }
        Err(TryLockError::Error(e)) => {
            return Err(format!("database {url}: cannot lock {shown}: {e}"));
        }
    }
    let mine = format!("{}\n", std::process::id());
    let mut note = || -> std::io::Result<()> {
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(mine.as_bytes())?;
        file.flush()
    };
    note().map_err(|e| format!("database {url}: cannot write its lock file {shown}: {e}"))?;
    Ok(Some(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_file_sits_beside_the_sqlite_file() {
        assert_eq!(
            lock_path("sqlite:./baduk.db"),
            Some(PathBuf::from("./baduk.db.lock"))
        );
        assert_eq!(
            lock_path("sqlite:///tmp/x.db?mode=rwc"),
            Some(PathBuf::from("/tmp/x.db.lock"))
        );
        assert_eq!(lock_path("postgres://u@h/db"), None);
        assert_eq!(lock_path("sqlite::memory:"), None);
    }

    #[test]
    fn a_second_lock_on_one_file_is_refused_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("a.db").display());
        let held = lock_sqlite(&url).unwrap().expect("a SQLite file is locked");
        let err = lock_sqlite(&url).unwrap_err();
        assert!(
            err.contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        drop(held);
        assert!(
            lock_sqlite(&url).unwrap().is_some(),
            "free again once let go"
        );
    }
}
