//! What a room shows, apart from how it plays: its state and deltas for each viewer, the clocks,
//! the lobby's summary, the rating changes and the game record.

use super::*;

impl Room {
    /// The state a player or spectator sees (never tokens); `upto` gives the position after
    /// that many moves (a replay), `you` the seat of the asking token.
    pub fn state(&self, now: i64, upto: Option<usize>, you: Option<usize>) -> Value {
        self.view(now, upto, you, true)
    }

    /// How many entries the state's history arrays (`moves`, and Wall Go's `auto`) hold.
    pub fn history_len(&self) -> usize {
        match &self.core {
            Core::Go(g) => g.history_len(),
            Core::Wall(w) => w.move_count(),
        }
    }

    /// What changed since version `base`, when the history arrays held `keep` entries (docs/api.md,
    /// "Changes"): the state without its history arrays (`actions`, `moves`, Wall Go's `auto`),
    /// whose size does not grow with the game, plus `base`, `log` (the action rows stored since
    /// `base`) and `history` (keep the first `keep` entries of each history array, then append
    /// these). A client holding the state of version `base` rebuilds the full state from it.
    pub fn change(&self, base: i64, keep: usize, now: i64, you: Option<usize>) -> Value {
        let mut v = self.view(now, None, you, false);
        let names = self.seat_names();
        let from = usize::try_from(base).unwrap_or(0).min(self.actions.len());
        let log: Vec<Value> = self.actions[from..]
            .iter()
            .map(|a| action_json(names, a))
            .collect();
        let keep = keep.min(self.history_len());
        let history = match &self.core {
            Core::Go(g) => json!({"keep": keep, "moves": g.moves_from(keep)}),
            Core::Wall(w) => {
                json!({"keep": keep, "moves": w.moves_from(keep), "auto": w.auto_from(keep)})
            }
        };
        let obj = v.as_object_mut().expect("a room's state is an object");
        obj.insert("base".into(), json!(base));
        obj.insert("log".into(), Value::Array(log));
        obj.insert("history".into(), history);
        v
    }

    /// The state's `clocks` at `now` (null without a clock).
    pub fn clocks_json(&self, now: i64) -> Value {
        if !self.clocks.is_running_kind() {
            return Value::Null;
        }
        let running = !self.is_over();
        let to_move = self.to_move();
        let mut m = serde_json::Map::new();
        for (i, n) in self.seat_names().iter().enumerate() {
            let on = running && to_move == Some(i);
            // Paused for a review, a clock shows what it had when the pause began.
            let at = self.review_paused_at.unwrap_or(now);
            let spent = if on {
                self.counted(i, self.turn_start, at)
            } else {
                0
            };
            let mut v = self.clocks.view(i, on, spent);
            // A correspondence clock stopped for its side's weekend or vacation.
            if on && (self.clock_stopped(i, now) || self.review_paused_at.is_some()) {
                v["paused"] = json!(true);
            }
            m.insert(n.to_string(), v);
        }
        Value::Object(m)
    }

    /// The state; without `history` it leaves out the arrays whose length grows with the game.
    pub(super) fn view(
        &self,
        now: i64,
        upto: Option<usize>,
        you: Option<usize>,
        history: bool,
    ) -> Value {
        let names = self.seat_names();
        let kind = crate::game::ratings::kind_of(&self.settings);
        let to_move = self.to_move();
        let clocks = self.clocks_json(now);
        let seats: serde_json::Map<String, Value> = names
            .iter()
            .zip(&self.seats)
            .enumerate()
            .map(|(i, (n, s))| {
                let mut seat = json!({"kind": s.spec.kind, "bot": s.spec.bot, "options": s.spec.options, "joined": s.joined || s.spec.is_bot(),
                        "player": s.player.as_ref().map(|p| p.to_json(kind))});
                if self.on_vacation(i, now) {
                    seat["player"]["vacation"] = json!(true);
                }
                // A rated bot's fixed rating for this game's kind, shown on its seat card.
                if s.spec.is_bot() {
                    seat["rating"] = s.rating_json(kind).unwrap_or(Value::Null);
                }
                (n.to_string(), seat)
            })
            .collect();
        let (mut game, legal, result) = match &self.core {
            Core::Go(g) => (g.view(history), g.legal(), g.result_json()),
            Core::Wall(w) => (w.view(history), w.legal(), w.result_json()),
        };
        let obj = game.as_object_mut().expect("a room's state is an object");
        obj.insert("id".into(), json!(self.id));
        obj.insert("game".into(), json!(self.game_word()));
        obj.insert("status".into(), json!(self.status()));
        obj.insert("version".into(), json!(self.version()));
        obj.insert("to_move".into(), json!(to_move.map(|s| names[s])));
        obj.insert("seats".into(), Value::Object(seats));
        obj.insert("clocks".into(), clocks);
        if history {
            let actions = self.actions.iter().map(|a| action_json(names, a)).collect();
            obj.insert("actions".into(), Value::Array(actions));
        }
        obj.insert("legal".into(), json!(legal));
        obj.insert("result".into(), result);
        obj.insert("created_at".into(), json!(self.created_at));
        obj.insert("you".into(), json!(you.map(|s| names[s])));
        obj.insert("rated".into(), json!(self.rated));
        obj.insert("aborted".into(), json!(self.rated_aborted()));
        obj.insert("rating_kind".into(), json!(kind));
        obj.insert("rating_changes".into(), self.rating_changes_json());
        obj.insert("now".into(), json!(now));
        obj.insert("deadline".into(), json!(self.deadline()));
        obj.insert(
            "server_end".into(),
            match self.policy_end() {
                Some((at, seat, action)) => {
                    json!({"at": at, "seat": names[seat], "action": action})
                }
                None => Value::Null,
            },
        );
        if let Some(n) = upto {
            self.overlay_replay(obj, n);
        }
        game
    }

    /// Replaces the board part of a state with the position after `n` moves.
    pub(super) fn overlay_replay(&self, obj: &mut serde_json::Map<String, Value>, n: usize) {
        match &self.core {
            Core::Go(g) => {
                let hist = g.game.history();
                let n = n.min(hist.len());
                let mut at = Game::from_position(
                    *g.game.rules(),
                    g.game.start_board().clone(),
                    g.game.start_to_move(),
                );
                for r in &hist[..n] {
                    if at.play_as(r.color, r.mv).is_err() {
                        break;
                    }
                }
                let mut view = (**g).clone();
                view.game = at;
                view.phase = go_room::Phase::Play;
                view.marking = None;
                let s = view.state();
                for k in ["board", "captures", "last_move"] {
                    obj.insert(k.into(), s[k].clone());
                }
                obj.insert("replay_move".into(), json!(n));
                obj.insert("legal".into(), json!([]));
                if self.clocks.is_running_kind() {
                    let c = self.clocks_at_move(n);
                    let names = self.seat_names();
                    let mut m = serde_json::Map::new();
                    for (i, name) in names.iter().enumerate() {
                        m.insert(name.to_string(), c.view(i, false, 0));
                    }
                    obj.insert("clocks".into(), Value::Object(m));
                }
            }
            Core::Wall(w) => {
                let acts = w.game.actions();
                let n = n.min(acts.len());
                let mut view = WallRoom::new(w.game.variant());
                for (i, &a) in acts[..n].iter().enumerate() {
                    let _ = view.game.play(a);
                    view.auto.push(w.auto.get(i).copied().unwrap_or(false));
                }
                let s = view.state();
                for k in ["pieces", "walls", "regions", "score", "last_move"] {
                    obj.insert(k.into(), s[k].clone());
                }
                obj.insert("replay_move".into(), json!(n));
                obj.insert("legal".into(), json!([]));
            }
        }
    }

    /// The clocks as they stood after the last stored action that left `n` moves on the board
    /// (a replay's clocks follow its move).
    pub(super) fn clocks_at_move(&self, n: usize) -> Clocks {
        let Ok(mut room) = Room::new(
            self.id.clone(),
            self.settings.clone(),
            self.seats.clone(),
            self.created_at,
        ) else {
            return self.clocks;
        };
        let mut at = room.clocks;
        for row in &self.actions {
            if room.replay(row).is_err() {
                break;
            }
            if room.move_count() == n {
                at = row.clocks;
            }
        }
        at
    }

    /// Its schedule as the database keeps it: the account to move, when the turn began, when
    /// the clock runs out and when the server must look at it next.
    pub fn schedule(&self) -> crate::store::types::Schedule {
        let running = !self.is_over();
        crate::store::types::Schedule {
            to_move: self
                .to_move()
                .filter(|_| running)
                .and_then(|s| self.seats[s].player.as_ref())
                .map(|p| p.id.clone()),
            turn_since: running.then_some(self.turn_start),
            deadline: self.deadline(),
            // A bot to act must be looked at now (after a restart it starts thinking again).
            wake_at: match crate::game::bots::bot_to_act(self) {
                Some(_) if running => {
                    Some(self.turn_start.min(self.next_end().unwrap_or(i64::MAX)))
                }
                _ => self.next_end(),
            },
        }
    }

    /// One line of the lobby.
    pub fn summary(&self) -> Value {
        let names = self.seat_names();
        let kind = crate::game::ratings::kind_of(&self.settings);
        let seats: serde_json::Map<String, Value> = names
            .iter()
            .zip(&self.seats)
            .map(|(n, s)| {
                let mut seat = json!({"kind": s.spec.kind, "bot": s.spec.bot, "joined": s.joined || s.spec.is_bot(),
                        "player": s.player.as_ref().map(|p| p.to_json(kind))});
                // A bot's options (its level) and fixed rating name it in lists and profiles.
                if s.spec.is_bot() {
                    seat["options"] = json!(s.spec.options);
                    seat["rating"] = s.rating_json(kind).unwrap_or(Value::Null);
                }
                (n.to_string(), seat)
            })
            .collect();
        let (phase, extra, result) = match &self.core {
            Core::Go(g) => {
                let s = g.rules.size;
                (
                    json!(g.phase.word()),
                    json!({"rules": g.rules.name(), "rules_label": go_room::rules_label(&g.rules), "clock": g.rules.time.to_string(), "size": {"cols": s.cols(), "rows": s.rows()}, "komi": g.rules.komi.as_f64(), "handicap": g.handicap}),
                    g.result_json(),
                )
            }
            Core::Wall(w) => (
                json!(w.phase_word()),
                json!({"variant": w.game.variant().to_string()}),
                w.result_json(),
            ),
        };
        let mut v = json!({
            "id": self.id,
            "game": self.game_word(),
            "status": self.status(),
            "phase": phase,
            "to_move": self.to_move().map(|s| names[s]),
            "seats": seats,
            "moves": self.move_count(),
            "result": result.get("text").cloned().unwrap_or(Value::Null),
            "winner": result.get("winner").cloned().unwrap_or(Value::Null),
            "rated": self.rated,
            "aborted": self.rated_aborted(),
            "created_at": self.created_at,
            "updated_at": self.actions.last().map_or(self.created_at, |a| a.at),
        });
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            for (k, x) in e {
                o.insert(k.clone(), x.clone());
            }
        }
        v
    }

    /// The rating changes by seat name (`{"black": {"kind", "before", "after", …}}`), or null.
    pub fn rating_changes_json(&self) -> Value {
        if self.rating_changes.is_empty() {
            return Value::Null;
        }
        let names = self.seat_names();
        let m: serde_json::Map<String, Value> = self
            .rating_changes
            .iter()
            .map(|c| (names[c.seat].to_string(), c.to_json()))
            .collect();
        Value::Object(m)
    }

    /// The seat an account holds in this game, if any (the side to move first when it holds
    /// both).
    pub fn seat_of_account(&self, account_id: &str) -> Option<usize> {
        let mine: Vec<usize> = (0..2)
            .filter(|&i| {
                self.seats[i]
                    .player
                    .as_ref()
                    .is_some_and(|p| p.id == account_id)
            })
            .collect();
        match mine.as_slice() {
            [] => None,
            [one] => Some(*one),
            _ => Some(self.to_move().unwrap_or(0)),
        }
    }

    /// The game record: SGF for Go, the Wall Go record for Wall Go.
    pub fn record(&self) -> String {
        match &self.core {
            Core::Go(g) => {
                let who = |seat: &Seat| match (&seat.player, &seat.spec.bot) {
                    (Some(p), _) => p.name.clone(),
                    (None, Some(b)) => format!("{b} (bot)"),
                    (None, None) => "human".to_string(),
                };
                let info = baduk_go::sgf::SgfInfo {
                    black: Some(who(&self.seats[0])),
                    white: Some(who(&self.seats[1])),
                    // FF[4] RE: a disputed game left undecided is `Void` (no result), its
                    // `C[]` saying why; the text is already the SGF form otherwise.
                    result: g.result.as_ref().map(|r| r.text.clone()),
                    // The day the game began (UTC).
                    date: Some(baduk_go::sgf::date_at(self.created_at)),
                    comment: g.result.as_ref().map(|r| r.detail.clone()),
                };
                let sgf = baduk_go::sgf::write_with(&g.game, &info);
                let esc = |s: &str| s.replace('\\', "\\\\").replace(']', "\\]");
                let mut props = format!("GN[baduk game {}]", esc(&self.id));
                // BR/WR: each side's rank when the game began (`?` while provisional).
                let kind = crate::game::ratings::kind_of(&self.settings);
                for (prop, seat) in ["BR", "WR"].iter().zip(&self.seats) {
                    let rank = seat
                        .rating_json(kind)
                        .and_then(|r| r["rank"].as_str().map(str::to_string));
                    if let Some(rank) = rank {
                        props.push_str(&format!("{prop}[{}]", esc(&rank)));
                    }
                }
                let tc = g.rules.time;
                let main = match tc {
                    TimeControl::None => None,
                    TimeControl::Absolute { main }
                    | TimeControl::ByoYomi { main, .. }
                    | TimeControl::Canadian { main, .. }
                    | TimeControl::Fischer { main, .. }
                    | TimeControl::Ing { main } => Some(main),
                    TimeControl::Correspondence { days, .. } => Some(days * 86_400),
                };
                if let Some(main) = main {
                    props.push_str(&format!("TM[{main}]"));
                }
                let ot = match tc {
                    TimeControl::ByoYomi {
                        periods, period, ..
                    } => format!("{periods}x{period} byo-yomi"),
                    TimeControl::Canadian { stones, period, .. } => {
                        format!("{stones}/{period} Canadian")
                    }
                    TimeControl::Fischer { increment, .. } => format!("{increment} fischer"),
                    TimeControl::Ing { .. } => "Ing: 3x35 minutes, 2 points each".to_string(),
                    TimeControl::Correspondence { days, max_days, .. } => {
                        format!("{days} days a move, at most {max_days}")
                    }
                    _ => String::new(),
                };
                if !ot.is_empty() {
                    props.push_str(&format!("OT[{}]", esc(&ot)));
                }
                match sgf.find("(;") {
                    Some(i) => format!("{}{props}{}", &sgf[..i + 2], &sgf[i + 2..]),
                    None => sgf,
                }
            }
            Core::Wall(w) => w.record(),
        }
    }
}
