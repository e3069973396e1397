//! Conditional moves on the hub: a seated player's plan saved, shown to that player alone, or
//! cleared, under the game's lock and stored before it counts (so a restart or the game's next
//! owner has it); loaded with the game. The reply is played by `actor.rs` in the commit of the
//! opponent's move. Only the game's owner saves a plan (requests elsewhere are forwarded, as
//! actions are; docs/scaling.md).

use super::*;
use crate::game::conditional::{self, Plan};
use crate::game::room::Core;

impl Hub {
    /// The plans stored for a game built from the database: those still valid at its version
    /// (stale ones are left for the next save or commit to replace).
    pub(super) async fn load_plans(&self, room: &mut Room) -> Result<(), ActError> {
        let Core::Go(g) = &room.core else {
            return Ok(());
        };
        let size = g.rules.size;
        for (seat, version, text) in self.store.plans(&room.id).await.map_err(storage)? {
            if seat < 2 && version == room.version() && !room.is_over() {
                room.plans[seat] = conditional::from_stored(version, &text, size);
            }
        }
        Ok(())
    }

    /// The seat of a credential for a plan: 403 `conditional.not_seated` for anyone else.
    fn plan_seat(room: &Room, cred: Cred<'_>) -> Result<usize, ActError> {
        Self::seat_of(room, cred).map_err(|e| e.with_code("conditional.not_seated", Value::Null))
    }

    /// The answer about a seat's plan: `{"seat", "version", "moves"}` (`moves` empty: none).
    fn plan_json(room: &Room, seat: usize) -> Value {
        let (version, moves) = match &room.plans[seat] {
            Some(p) => (json!(p.version), conditional::tree_json(&p.moves)),
            None => (Value::Null, json!({})),
        };
        json!({"seat": room.seat_names()[seat], "version": version, "moves": moves})
    }

    /// The asker's own plan in game `id`.
    pub async fn plan_of(self: &Arc<Self>, id: &str, cred: Cred<'_>) -> Result<Value, ActError> {
        let h = self.get(id).await?;
        let room = h.room.lock().await;
        let seat = Self::plan_seat(&room, cred)?;
        Ok(Self::plan_json(&room, seat))
    }

    /// Replaces the asker's plan in game `id` with `moves` (checked: shape, caps, every move
    /// legal; `{}` clears it); stored before it is answered.
    pub async fn set_plan(
        self: &Arc<Self>,
        id: &str,
        cred: Cred<'_>,
        moves: &Value,
    ) -> Result<Value, ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let seat = Self::plan_seat(&room, cred)?;
        conditional::may_plan(&room, seat)?;
        let Core::Go(g) = &room.core else {
            return Err(conditional::may_plan(&room, seat).unwrap_err());
        };
        let tree = conditional::parse(moves, g.rules.size)?;
        if tree.is_empty() {
            drop(room);
            return self.clear_plan(id, cred).await;
        }
        conditional::check(&room, seat, &tree)?;
        let version = room.version();
        let text = conditional::tree_json(&tree).to_string();
        self.store
            .save_plan(id, seat, version, &text, &self.cluster.node)
            .await
            .map_err(storage)?;
        room.plans[seat] = Some(Plan {
            version,
            moves: tree,
        });
        Ok(Self::plan_json(&room, seat))
    }

    /// Clears the asker's plan in game `id` (nothing to clear is no error).
    pub async fn clear_plan(self: &Arc<Self>, id: &str, cred: Cred<'_>) -> Result<Value, ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let seat = Self::plan_seat(&room, cred)?;
        self.store
            .drop_plan(id, Some(seat))
            .await
            .map_err(storage)?;
        room.plans[seat] = None;
        Ok(Self::plan_json(&room, seat))
    }
}

/// A reply played from a plan, not stored yet.
pub(super) struct Reply {
    /// The seat that planned it.
    seat: usize,
    /// Its action's row.
    row: ActionRow,
}

impl Hub {
    /// The other seat's planned reply to `row` (an action just applied to `room`), applied to
    /// the room at the same instant, its plan moved to the branch after it. None: no plan
    /// matched (plans that no longer fit the game are dropped from the room).
    pub(super) fn planned_reply(
        &self,
        room: &mut Room,
        row: &ActionRow,
        now: i64,
    ) -> Option<Reply> {
        let (seat, node) = conditional::answer(room, row)?;
        match room.apply(seat, &node.reply, now, false) {
            Ok(played) => {
                let version = room.version();
                room.plans[seat] = (!node.then.is_empty()).then_some(Plan {
                    version,
                    moves: node.then,
                });
                Some(Reply { seat, row: played })
            }
            Err(e) => {
                tracing::info!("game {}: a planned reply was refused: {e}", room.id);
                room.plans[seat] = None;
                None
            }
        }
    }

    /// Stores an action and the planned reply to it in one commit, with the plan after them.
    pub(super) async fn store_with_reply(
        &self,
        room: &Room,
        row: &ActionRow,
        reply: &Reply,
        line: (&str, &str, &crate::store::types::Schedule),
        rated: Option<&dyn crate::store::RatingUpdate>,
    ) -> Result<Vec<crate::store::types::RatingChange>, StoreError> {
        let after = room.plans[reply.seat]
            .as_ref()
            .map(|p| (p.version, conditional::tree_json(&p.moves).to_string()));
        self.store
            .append_with_reply(
                &room.id,
                [row, &reply.row],
                line,
                (reply.seat, after.as_ref().map(|(v, t)| (*v, t.as_str()))),
                rated,
                &self.cluster.node,
            )
            .await
    }

    /// Deletes the stored plans of a game whose plans ended in memory (its opponent deviated,
    /// or any other action came); a failure is harmless: a stale plan is never loaded.
    pub(super) async fn drop_stale_plans(&self, room: &Room) {
        if room.plans.iter().all(Option::is_none) {
            if let Err(e) = self.store.drop_plan(&room.id, None).await {
                tracing::warn!("game {}: could not delete its ended plans: {e}", room.id);
            }
        }
    }
}
