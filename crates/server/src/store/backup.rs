//! `baduk backup`: a consistent copy of a live SQLite database, taken while the server runs
//! (SQLite's `VACUUM INTO`: one read transaction, so the copy is one moment of the database).
//! PostgreSQL is backed up with its own `pg_dump` (docs/operating.md).

use sqlx::Connection;
use std::path::Path;

/// Copies the SQLite database at `url` (`sqlite:PATH`) to the new file `out`, without migrating
/// or locking out the running server; returns the copy's size in bytes. Refuses PostgreSQL URLs
/// and an `out` that exists.
pub async fn backup(url: &str, out: &Path) -> Result<u64, String> {
    let Some(rest) = url.strip_prefix("sqlite:") else {
        return Err(if url.starts_with("postgres") {
            "a PostgreSQL database is backed up with pg_dump (docs/operating.md, \"Backups\")"
                .into()
        } else {
            format!("database {url}: expected sqlite:PATH")
        });
    };
    let path = rest.trim_start_matches("//");
    let path = path.split('?').next().unwrap_or_default();
    if path.is_empty() || !Path::new(path).is_file() {
        return Err(format!("database {url}: no such file"));
    }
    if out.exists() {
        return Err(format!(
            "{}: exists; a backup never overwrites",
            out.display()
        ));
    }
    let out_text = out
        .to_str()
        .ok_or_else(|| format!("{}: not a UTF-8 path", out.display()))?;
    sqlx::any::install_default_drivers();
    // Read-only: the backup never writes to the live file (no migration, no journal change).
    let mut conn = sqlx::AnyConnection::connect(&format!("sqlite://{path}?mode=ro"))
        .await
        .map_err(|e| format!("database {url}: cannot open: {e}"))?;
    sqlx::query("PRAGMA busy_timeout=10000")
        .execute(&mut conn)
        .await
        .map_err(|e| format!("database {url}: {e}"))?;
    sqlx::query("VACUUM INTO $1")
        .bind(out_text)
        .execute(&mut conn)
        .await
        .map_err(|e| format!("backup to {}: {e}", out.display()))?;
    conn.close().await.ok();
    std::fs::metadata(out)
        .map(|m| m.len())
        .map_err(|e| format!("{}: {e}", out.display()))
}
