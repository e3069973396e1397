//! Copies of a stored game, made in the database at once (`baduk bench million` fills a database
//! with a million games this way): same settings, seats and actions, a new id each, and for
//! the first ones their times moved so that their clocks run out at chosen moments.

use super::{Store, StoreError};

/// How to copy a template game.
#[derive(Clone, Debug)]
pub struct Copies<'a> {
    /// The game copied.
    pub template: &'a str,
    /// The ids' prefix (letters); the copies are `PREFIX0000000`, `PREFIX0000001`, ….
    pub prefix: &'a str,
    /// How many copies.
    pub count: i64,
    /// The first `shifted` copies have every time moved by `shift_base + i * shift_step` ms
    /// (the i-th copy); the others keep the template's times.
    pub shifted: i64,
    /// The shift of the first copy (ms).
    pub shift_base: i64,
    /// The shift between two shifted copies (ms).
    pub shift_step: i64,
}

impl Store {
    /// Stores `c.count` copies of game `c.template` (rows of `games`, `seats` and `actions`),
    /// one statement per table; the number of games made.
    pub async fn copy_game(&self, c: &Copies<'_>) -> Result<u64, StoreError> {
        if !c.prefix.bytes().all(|b| b.is_ascii_alphabetic()) || c.prefix.is_empty() {
            return Err(StoreError::Db(format!(
                "copy prefix `{}`: letters only",
                c.prefix
            )));
        }
        // i: the copy's number; d: how far its times move.
        let (series, id) = if self.postgres {
            (
                "generate_series(0, $2 - 1) AS n(i)".to_string(),
                format!("'{}' || lpad(n.i::text, 7, '0')", c.prefix),
            )
        } else {
            (
                "(WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < $2) SELECT i FROM s) AS n".to_string(),
                format!("'{}' || printf('%07d', n.i)", c.prefix),
            )
        };
        let d = "(CASE WHEN n.i < $3 THEN $4 + n.i * $5 ELSE 0 END)";
        let statements = [
            format!(
                "INSERT INTO games (id, game, settings, status, version, summary, created_at, updated_at, \
                 rated, listed, owner, to_move, turn_since, deadline, wake_at) \
                 SELECT {id}, g.game, g.settings, g.status, g.version, g.summary, g.created_at + {d}, \
                 g.updated_at + {d}, g.rated, g.listed, g.owner, g.to_move, g.turn_since + {d}, \
                 g.deadline + {d}, g.wake_at + {d} FROM games g, {series} WHERE g.id = $1"
            ),
            format!(
                "INSERT INTO seats (game_id, seat, spec, token_hash, joined, account_id) \
                 SELECT {id}, s.seat, s.spec, s.token_hash, s.joined, s.account_id \
                 FROM seats s, {series} WHERE s.game_id = $1"
            ),
            format!(
                "INSERT INTO actions (game_id, seq, seat, action, at, auto, clocks) \
                 SELECT {id}, a.seq, a.seat, a.action, a.at + {d}, a.auto, a.clocks \
                 FROM actions a, {series} WHERE a.game_id = $1"
            ),
        ];
        let mut tx = self.write().begin().await?;
        let mut made = 0;
        for (k, sql) in statements.iter().enumerate() {
            let mut q = sqlx::query(sql).bind(c.template).bind(c.count);
            if k != 1 {
                q = q.bind(c.shifted).bind(c.shift_base).bind(c.shift_step);
            }
            let done = q.execute(&mut *tx).await?;
            if k == 0 {
                made = done.rows_affected();
            }
        }
        tx.commit().await?;
        Ok(made)
    }
}
