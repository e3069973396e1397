//! The path every action of one game takes in the process that owns it: the seat's
//! credential, the rules library, the store (with the owner check), the broadcast to watchers,
//! then the bot's turn if a bot is to move (docs/scaling.md: only the owner runs bots).

use super::*;

impl Hub {
    /// The seat whose token this is, compared in constant time; 403 for any other token.
    pub fn seat_of_token(room: &Room, token: &str) -> Result<usize, ActError> {
        let h = hash_token(token);
        let mut found = None;
        for (i, s) in room.seats.iter().enumerate() {
            if let Some(th) = &s.token_hash {
                if bool::from(th.ct_eq(&h)) {
                    found = Some(i);
                }
            }
        }
        found.ok_or_else(|| ActError::forbidden("this token holds no seat in this game"))
    }

    /// Marks the seat as joined the first time its token is used.
    pub(super) async fn mark_joined(&self, h: &Handle, room: &mut Room, seat: usize) {
        if room.seats[seat].joined {
            return;
        }
        room.seats[seat].joined = true;
        let summary = room.summary().to_string();
        if let Err(e) = self
            .store
            .join(
                &room.id,
                seat,
                (room.status(), &summary, &room.schedule()),
                (
                    room.seats[seat].token_hash.as_ref(),
                    room.seats[seat].player.as_ref(),
                ),
            )
            .await
        {
            tracing::warn!("game {}: could not store the join: {e}", room.id);
        }
        let _ = h.tx.send(state_message(room));
    }

    /// The seat a credential holds: a token's seat, or the account's.
    pub fn seat_of(room: &Room, cred: Cred<'_>) -> Result<usize, ActError> {
        match cred {
            Cred::Token(t) => Self::seat_of_token(room, t),
            Cred::Account(a) => room
                .seat_of_account(a)
                .ok_or_else(|| ActError::forbidden("you hold no seat in this game")),
        }
    }

    /// A token holder shows up (page load, socket hello): returns the seat.
    pub async fn hello(self: &Arc<Self>, id: &str, token: &str) -> Result<usize, ActError> {
        self.hello_as(id, Cred::Token(token)).await
    }

    /// A seat holder shows up (page load, socket hello): returns the seat.
    pub async fn hello_as(self: &Arc<Self>, id: &str, cred: Cred<'_>) -> Result<usize, ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let seat = Self::seat_of(&room, cred)?;
        self.mark_joined(&h, &mut room, seat).await;
        Ok(seat)
    }

    /// Claims an open seat: a fresh token for it.
    pub async fn join(
        self: &Arc<Self>,
        id: &str,
        seat_name: &str,
    ) -> Result<(usize, String), ActError> {
        self.join_as(id, seat_name, None).await
    }

    /// Claims an open seat for an account (or anonymously): a fresh token for it.
    pub async fn join_as(
        self: &Arc<Self>,
        id: &str,
        seat_name: &str,
        player: Option<Player>,
    ) -> Result<(usize, String), ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let seat = room
            .seat_index(seat_name)
            .ok_or_else(|| ActError::bad_request(format!("no seat `{seat_name}` in this game")))?;
        if room.seats[seat].spec.kind != "open" || room.seats[seat].token_hash.is_some() {
            return Err(ActError::conflict(format!(
                "seat {seat_name} is not open to join"
            )));
        }
        if room.rated && player.is_none() {
            return Err(crate::game::room::sign_in_first());
        }
        if let Some(p) = &player {
            if room.seats[1 - seat]
                .player
                .as_ref()
                .is_some_and(|o| o.id == p.id)
            {
                return Err(ActError::conflict("you already hold the other seat")
                    .with_code("seat.yours", Value::Null));
            }
        }
        let token = new_token();
        let hash = hash_token(&token);
        let account = player.as_ref().map(|p| p.id.as_str());
        if !self
            .store
            .claim(id, seat, &hash, account)
            .await
            .map_err(storage)?
        {
            return Err(ActError::conflict(format!(
                "seat {seat_name} was just taken"
            )));
        }
        room.seats[seat].token_hash = Some(hash);
        room.seats[seat].player = player;
        self.mark_joined(&h, &mut room, seat).await;
        if crate::game::events::all_seated(&room) {
            self.events.announce(&room, "gameStart");
        }
        Ok((seat, token))
    }

    /// One action from a token holder; returns the new full state.
    pub async fn act(
        self: &Arc<Self>,
        id: &str,
        token: &str,
        action: &str,
    ) -> Result<Value, ActError> {
        self.act_as(id, Cred::Token(token), action, true).await
    }

    /// One action from a seat holder (token or account); returns the new state: the full state
    /// with `full`, otherwise the change since the version before the call ([`Room::change`]:
    /// the state without its history, the rows stored and the splice of the history; the
    /// rows are two when a clock that had run out was settled first).
    pub async fn act_as(
        self: &Arc<Self>,
        id: &str,
        cred: Cred<'_>,
        action: &str,
        full: bool,
    ) -> Result<Value, ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let (base, keep) = (room.version(), room.history_len());
        let (seat, now) = self.act_locked(&h, &mut room, cred, action).await?;
        Ok(if full {
            room.state(now, None, Some(seat))
        } else {
            room.change(base, keep, now, Some(seat))
        })
    }

    /// One action from a seat holder; returns only the new version (a socket's `ack` needs
    /// no more, so no state is built for it).
    pub async fn act_version(
        self: &Arc<Self>,
        id: &str,
        cred: Cred<'_>,
        action: &str,
    ) -> Result<i64, ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        self.act_locked(&h, &mut room, cred, action).await?;
        Ok(room.version())
    }

    /// The action of [`Hub::act_as`] under the room's lock: the seat that acted and when.
    async fn act_locked(
        self: &Arc<Self>,
        h: &Arc<Handle>,
        room: &mut Room,
        cred: Cred<'_>,
        action: &str,
    ) -> Result<(usize, i64), ActError> {
        let seat = Self::seat_of(room, cred)?;
        self.mark_joined(h, room, seat).await;
        let now = now_ms();
        // A clock that ran out while nobody looked is settled first.
        if let Some((s, a)) = room.timeout_action(now) {
            self.commit(h, room, s, &a, now, Origin::Clock).await?;
        }
        match self
            .commit(h, room, seat, action, now, Origin::Player)
            .await
        {
            Ok(_) => room.illegal_in_row[seat] = 0,
            Err(e) => return Err(self.strike(h, room, seat, e, now).await),
        }
        Ok((seat, now))
    }

    /// Checks, stores, then broadcasts one action.
    pub(super) async fn commit(
        self: &Arc<Self>,
        h: &Arc<Handle>,
        room: &mut Room,
        seat: usize,
        action: &str,
        now: i64,
        origin: Origin,
    ) -> Result<ActionRow, ActError> {
        if action.len() > 64 {
            return Err(ActError::bad_request("action: too long (64 bytes at most)"));
        }
        // What watchers' deltas start from: the version and the length of the history now.
        let (base, keep) = (room.version(), room.history_len());
        let was_over = room.is_over();
        // The library checks the action; a panic in there (a bug) must not leave the room
        // changed but unstored, so the room is rebuilt from the database when one happens.
        let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            match origin {
                Origin::Player => room.apply(seat, action, now, false),
                Origin::Bot => room.apply(seat, action, now, false),
                Origin::Clock => room.apply_timeout(seat, action, now),
            }
            .map(|row| {
                let line = (room.status(), room.summary().to_string(), room.schedule());
                (row, line)
            })
        }));
        let (row, (status, summary, schedule)) = match applied {
            Ok(r) => r?,
            Err(_) => {
                match self.build(&room.id).await {
                    Ok(Some((fresh, owned))) => {
                        *room = fresh;
                        h.owned.store(owned, Ordering::Relaxed);
                    }
                    _ => {
                        self.rooms.lock().expect("rooms lock").remove(&room.id);
                    }
                }
                return Err(ActError::internal(
                    "the server failed while checking this action; nothing was stored",
                ));
            }
        };
        let rated = crate::game::ratings::rated_end(room);
        let stored = self
            .store
            .append_rated(
                &room.id,
                &row,
                (status, &summary, &schedule),
                rated.as_ref().map(|r| r as &dyn crate::store::RatingUpdate),
                &self.cluster.node,
            )
            .await;
        if let Ok(changes) = &stored {
            if !changes.is_empty() {
                room.rating_changes = changes.clone();
            }
        }
        if let Err(e) = stored {
            if matches!(e, StoreError::Fenced) {
                // Another process owns the game now: this one stops playing it.
                self.metrics.fenced.fetch_add(1, Ordering::Relaxed);
                h.owned.store(false, Ordering::Relaxed);
                self.after_commit(h, room);
            }
            // Nothing was stored: rebuild the game as the database has it.
            match self.build(&room.id).await {
                Ok(Some((fresh, owned))) => {
                    *room = fresh;
                    h.owned.store(owned, Ordering::Relaxed);
                }
                // The database cannot be read either: forget the game here; the next request
                // loads it afresh.
                _ => {
                    self.rooms.lock().expect("rooms lock").remove(&room.id);
                }
            }
            let _ = h.tx.send(state_message(room));
            return Err(storage(e));
        }
        // The commit passed the owner check: this process owns the game (a handoff to it may
        // not have been reconciled yet).
        h.owned.store(true, Ordering::Relaxed);
        // The delta for watchers (this action and what it changed, never the whole history)
        // is built once and shared by all of them, and not at all when nobody watches.
        if h.tx.receiver_count() > 0 {
            let _ = h.tx.send(delta_message(h, room, base, keep));
        }
        // The game ended with this action: its accounts hear of it.
        if !was_over && room.is_over() {
            self.events.announce(room, "gameFinish");
        }
        self.metrics.action(match origin {
            Origin::Player => crate::game::metrics::Source::Player,
            Origin::Bot => crate::game::metrics::Source::Bot,
            Origin::Clock => crate::game::metrics::Source::Clock,
        });
        self.after_commit(h, room);
        Ok(row)
    }

    /// After a change: the search of a bot for an older position stops, and a bot to act now
    /// joins the queue.
    pub(super) fn after_commit(self: &Arc<Self>, h: &Arc<Handle>, room: &Room) {
        let mut current = h.bot_stop.lock().expect("bot stop lock");
        if let Some(old) = current.take() {
            old.store(true, Ordering::Relaxed);
        }
        // Only the owner's bots play (another process's copy is for its watchers).
        if room.is_over() || !h.owned() || self.answer_for_bot_account(h, room) {
            return;
        }
        let Some((seat, spec)) = bot_to_act(room) else {
            return;
        };
        let stop = Arc::new(AtomicBool::new(false));
        *current = Some(stop.clone());
        drop(current);
        let version = room.version();
        let job = Job {
            room: room.clone(),
            seat,
            spec,
            clock_ms: room.deadline().map(|d| (d - now_ms()).max(0)),
        };
        let hub = self.clone();
        let h = h.clone();
        self.metrics.bot_searches.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let action = match hub.bots.think(job, stop).await {
                Ok(Some(a)) => a,
                Ok(None) => return, // cancelled before it ran
                Err(e) => {
                    tracing::warn!("bot failed: {e}");
                    return;
                }
            };
            let mut room = h.room.lock().await;
            if room.version() != version {
                return; // the game moved on while the bot thought
            }
            let now = now_ms();
            if let Err(e) = hub
                .commit(&h, &mut room, seat, &action, now, Origin::Bot)
                .await
            {
                tracing::warn!("game {}: bot action `{action}` refused: {e}", room.id);
            }
        });
    }

    /// Gives the seat a fresh token (the caller holds the current one); the old one is refused
    /// from now on.
    pub async fn rotate(
        self: &Arc<Self>,
        id: &str,
        seat_name: &str,
        token: &str,
    ) -> Result<(usize, String), ActError> {
        let h = self.get(id).await?;
        let mut room = h.room.lock().await;
        let seat = room
            .seat_index(seat_name)
            .ok_or_else(|| ActError::not_found(format!("no seat `{seat_name}` in this game")))?;
        if Self::seat_of_token(&room, token)? != seat {
            return Err(ActError::forbidden(format!(
                "this token does not hold seat {seat_name}"
            )));
        }
        let fresh = new_token();
        let hash = hash_token(&fresh);
        self.store
            .set_token(id, seat, &hash)
            .await
            .map_err(storage)?;
        room.seats[seat].token_hash = Some(hash);
        Ok((seat, fresh))
    }
}
