//! What the server does for a bot account's seat (the Bot API): in the dead-stone phase it
//! answers for the bot as for its own bots (the estimate is accepted; a chain marked otherwise is
//! restored; a chain of the bot's the estimate left unsettled and a person marked dead is
//! disputed as the rules say), so a person cannot get a bot's live group counted dead; and a bot's illegal moves
//! on its turn are counted, the [`ILLEGAL_IN_ROW`]th in a row forfeiting the game.

use super::*;
use crate::game::room::ILLEGAL_IN_ROW;

/// Whether a seat is held by a bot account.
fn bot_account(room: &Room, seat: usize) -> bool {
    room.seats[seat].player.as_ref().is_some_and(|p| p.bot)
}

/// A bot account's seat that has to answer the dead-stone phase now, and its answer.
fn marking_answer(room: &Room) -> Option<(usize, &'static str)> {
    let crate::game::room::Core::Go(g) = &room.core else {
        return None;
    };
    if g.phase != crate::game::go_room::Phase::Marking {
        return None;
    }
    let m = g.marking.as_ref()?;
    (0..2)
        .find(|&i| bot_account(room, i) && !m.accepted[i])
        .map(|i| (i, g.bot_account_marking_answer(i)))
}

impl Hub {
    /// After a change: a bot account's seat that must answer the dead-stone phase is answered
    /// for (in a task, as the server's bots act); true when one was.
    pub(super) fn answer_for_bot_account(self: &Arc<Self>, h: &Arc<Handle>, room: &Room) -> bool {
        let Some((seat, answer)) = marking_answer(room) else {
            return false;
        };
        let version = room.version();
        let hub = self.clone();
        let h = h.clone();
        tokio::spawn(async move {
            let mut room = h.room.lock().await;
            if room.version() != version {
                return; // something else came first; its own commit answers again
            }
            let now = now_ms();
            if let Err(e) = hub
                .commit(&h, &mut room, seat, answer, now, Origin::Bot)
                .await
            {
                tracing::warn!(
                    "game {}: the answer `{answer}` for a bot account was refused: {e}",
                    room.id
                );
            }
        });
        true
    }

    /// An action of `seat` was refused with `e`: on a bot account's turn in a Go game, a move the
    /// rules refuse or that does not read (`400`, `422`) counts; the [`ILLEGAL_IN_ROW`]th in a row
    /// forfeits the game (`forfeit`, stored as the server's action). The refusal returned says
    /// how many in a row (`args.illegal_in_row`) and whether the game was forfeited
    /// (`args.forfeited`).
    pub(super) async fn strike(
        self: &Arc<Self>,
        h: &Arc<Handle>,
        room: &mut Room,
        seat: usize,
        mut e: ActError,
        now: i64,
    ) -> ActError {
        let counts = bot_account(room, seat)
            && matches!(e.status, 400 | 422)
            && room.to_move() == Some(seat)
            && matches!(room.core, crate::game::room::Core::Go(_));
        if !counts {
            return e;
        }
        room.illegal_in_row[seat] += 1;
        let n = room.illegal_in_row[seat];
        let forfeited = n >= ILLEGAL_IN_ROW
            && self
                .commit(h, room, seat, "forfeit", now, Origin::Clock)
                .await
                .is_ok();
        if forfeited {
            room.illegal_in_row[seat] = 0;
            e.message = format!(
                "{}; that was {n} illegal moves in a row: the game is forfeited",
                e.message
            );
        }
        if !e.args.is_object() {
            e.args = json!({});
        }
        e.args["illegal_in_row"] = json!(n);
        e.args["forfeited"] = json!(forfeited);
        e
    }
}
