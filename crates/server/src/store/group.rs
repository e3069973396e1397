//! The group commit: the queue of actions waiting for the writer, and the batch that stores
//! them in one transaction (`Store::append_rated` queues an action here). SQLite has one
//! writer; on PostgreSQL the batch also carries each action's event (its NOTIFY, delivered at
//! the commit in the batch's order), so one commit and one round trip serve many actions.

use super::types::Schedule;
use super::{ActionRow, Store, StoreError};

/// One action waiting for the group commit.
#[derive(Debug)]
pub(super) struct AppendJob {
    /// The game.
    pub(super) id: String,
    /// The action.
    pub(super) row: ActionRow,
    /// The game's status after it.
    pub(super) status: String,
    /// Its lobby line after it.
    pub(super) summary: String,
    /// Its schedule after it.
    pub(super) schedule: Schedule,
    /// The node that must own the game (the fence).
    pub(super) owner: String,
    /// Where its answer goes once its batch committed.
    pub(super) done: tokio::sync::oneshot::Sender<Result<(), StoreError>>,
}

impl AppendJob {
    /// Its status, lobby line and schedule, as the store's statements take them.
    fn line(&self) -> (&str, &str, &Schedule) {
        (&self.status, &self.summary, &self.schedule)
    }
}

/// The most actions one group commit stores.
const GROUP_MAX: usize = 256;

/// The group commit: whatever actions wait when the writer is free go in one
/// transaction; none waits on purpose, so a lone action is stored at once. Ends when every
/// copy of the store is dropped.
pub(super) async fn group_commits(
    store: Store,
    mut queue: tokio::sync::mpsc::UnboundedReceiver<AppendJob>,
) {
    while let Some(first) = queue.recv().await {
        let mut batch = vec![first];
        while batch.len() < GROUP_MAX {
            match queue.try_recv() {
                Ok(j) => batch.push(j),
                Err(_) => break,
            }
        }
        let answers = match store.append_batch(&batch).await {
            Ok(a) => a,
            // Nothing of the batch was stored: one at a time, so one action's failure is
            // its own.
            Err(_) => {
                let mut a = Vec::with_capacity(batch.len());
                for j in &batch {
                    a.push(
                        store
                            .append_alone(&j.id, &j.row, j.line(), None, &j.owner)
                            .await
                            .map(|_| ()),
                    );
                }
                a
            }
        };
        for (j, a) in batch.into_iter().zip(answers) {
            let _ = j.done.send(a);
        }
    }
}

impl Store {
    /// Stores a batch of actions (of different games: a game's room lock lets one of its
    /// actions through at a time) in one transaction; each one's own answer. Err: nothing of
    /// the batch was stored.
    async fn append_batch(
        &self,
        batch: &[AppendJob],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let mut tx = self.write().begin().await?;
        let mut out = Vec::with_capacity(batch.len());
        for j in batch {
            let stored = self
                .append_in(&mut tx, &j.id, &j.row, j.line(), &j.owner)
                .await?;
            if stored.is_ok() {
                // The event carries the action (the others apply it without reading).
                match super::payload::action_payload(&j.id, &j.row) {
                    Some(p) => self.notify_payload(&mut tx, &p).await?,
                    None => self.notify_payload(&mut tx, &j.id).await?,
                }
            }
            out.push(stored);
        }
        tx.commit().await?;
        use std::sync::atomic::Ordering::Relaxed;
        self.queries.group_commits.fetch_add(1, Relaxed);
        self.queries
            .group_commit_actions
            .fetch_add(batch.len() as u64, Relaxed);
        Ok(out)
    }
}
