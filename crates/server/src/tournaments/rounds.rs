//! The rounds of an event: each paired by the pairing core (Swiss, McMahon, round robin), its
//! games made with the event's settings and the players seated, the results read from the
//! games as they end (a no-show loses after the event's wait), and the standings.
//!
//! Every process sweeps the events now and then; an event is started by the one process whose
//! claim on its status wins (`rows::claim_start`), and a round is paired by the one whose
//! boards are stored first (`rows::insert_boards`: their key is the claim), so a cluster pairs
//! it once. The round counter moves only once the round's games exist. A started event left at
//! round 0 (its starter stopped) is readied and paired by any process's sweep.

use super::rows::{self, Board, Entrant, Tournament};
use crate::game::hub::{new_id, now_ms, NewGame};
use crate::game::room::{seed_of, ActError, SeatSpec, Settings};
use crate::players::accounts::storage;
use crate::players::player_of;
use crate::state::AppState;
use crate::store::GameFlags;
use baduk_pairing::{
    Game, History, McMahon, Outcome, Person, Player, PlayerId, Rank, Round, RoundRobin, Standings,
    Swiss,
};
use serde_json::{json, Value};
use std::collections::HashMap;

/// How long a round's boards may wait for the process that paired them to show them (ms).
const STALE_MS: i64 = 60_000;
/// How long a started event may wait at round 0 for the process that started it (ms): then
/// any process's sweep pairs its round 1.
pub const STUCK_START_MS: i64 = 5_000;

/// The pairing's view of a player.
pub fn pairing_player(en: &Entrant) -> Player {
    Player {
        id: en.seq as PlayerId,
        rating: en.rating as f64,
        rank: Rank::from_value(en.rank).unwrap_or(Rank::MIN),
    }
}

/// A stored result as the pairing core reads it (None: still playing, or the bye).
pub(super) fn outcome(result: Option<&str>) -> Option<Outcome> {
    match result? {
        "black" => Some(Outcome::BlackWins),
        "white" => Some(Outcome::WhiteWins),
        "jigo" => Some(Outcome::Jigo),
        "unplayed" => Some(Outcome::Unplayed),
        _ => None,
    }
}

/// The komi of even games under `settings` (0 in Wall Go).
pub fn komi_of(settings: &Settings) -> f64 {
    match settings {
        Settings::Go { rules, .. } => baduk_go::Rules::parse(rules)
            .map(|r| r.komi.as_f64())
            .unwrap_or(6.5),
        Settings::Wallgo { .. } => 0.0,
    }
}

/// The history of rounds 1 to `upto`: the games with a result, and each round's bye.
pub fn history(boards: &[Board], upto: i64, komi: f64) -> History {
    let mut h = History::default();
    for r in 1..=upto {
        let mut round = Round::default();
        for b in boards.iter().filter(|b| b.round == r) {
            match b.white {
                None => round.bye = Some(b.black as PlayerId),
                Some(w) => {
                    if let Some(o) = outcome(b.result.as_deref()) {
                        round.games.push(Game {
                            black: b.black as PlayerId,
                            white: w as PlayerId,
                            outcome: o,
                            handicap: b.handicap as u8,
                            komi,
                        });
                    }
                }
            }
        }
        h.rounds.push(round);
    }
    h
}

/// The McMahon of event `t`: its bar, floor and handicap rule.
fn mcmahon(t: &Tournament) -> McMahon {
    let rank = |v: Option<i32>, d: Rank| v.and_then(Rank::from_value).unwrap_or(d);
    let mut m = McMahon::new(
        rank(t.options.bar, Rank::MAX),
        rank(t.options.floor, Rank::MIN),
    );
    m.komi = komi_of(&t.settings);
    m.seed = seed_of(&t.id);
    if t.options.handicap {
        m.handicap = Some(baduk_pairing::HandicapRule {
            reduction: 0,
            max: 9,
        });
    }
    m
}

/// The Swiss of event `t`.
fn swiss(t: &Tournament) -> Swiss {
    Swiss {
        bye_points: 1.0,
        komi: komi_of(&t.settings),
        seed: seed_of(&t.id),
    }
}

/// A round robin's order: the players in at the start (and those who played), by number.
fn robin(entrants: &[Entrant], boards: &[Board]) -> RoundRobin {
    let order = entrants
        .iter()
        .filter(|e| e.status == "in" || boards.iter().any(|b| played(b, e.seq)))
        .map(|e| e.seq as PlayerId)
        .collect();
    RoundRobin::new(order)
}

fn played(b: &Board, seq: i64) -> bool {
    b.black == seq || b.white == Some(seq)
}

/// The players who count in the table: those in, and everyone who was paired.
pub(super) fn field<'a>(entrants: &'a [Entrant], boards: &[Board]) -> Vec<&'a Entrant> {
    entrants
        .iter()
        .filter(|e| e.status == "in" || boards.iter().any(|b| played(b, e.seq)))
        .collect()
}

/// The standings of event `t` so far (the results known), and who each player is.
pub fn standings(
    t: &Tournament,
    entrants: &[Entrant],
    boards: &[Board],
) -> (Standings, HashMap<PlayerId, Person>) {
    let players: Vec<Player> = field(entrants, boards)
        .into_iter()
        .map(pairing_player)
        .collect();
    let h = history(boards, t.round, komi_of(&t.settings));
    let s = match t.format.as_str() {
        "mcmahon" => mcmahon(t).standings(&players, &h),
        "round-robin" => robin(entrants, boards).standings(&players, &h),
        _ => swiss(t).standings(&players, &h),
    };
    (s, people_of(entrants))
}

/// Who each player is, for the exported tables.
pub(super) fn people_of(entrants: &[Entrant]) -> HashMap<PlayerId, Person> {
    entrants
        .iter()
        .map(|e| {
            let name = e.name.clone();
            (
                e.seq as PlayerId,
                Person {
                    name,
                    ..Person::default()
                },
            )
        })
        .collect()
}

/// Runs `f` over event `t`'s players and boards on the server's heavy pool: a table, an
/// arena's replay or a round's pairing grows with the event's players and boards, so none runs
/// on the runtime's threads (a full queue: 503 `limit.busy`).
pub async fn off_runtime<T: Send + 'static>(
    t: &Tournament,
    entrants: Vec<Entrant>,
    boards: Vec<Board>,
    f: impl FnOnce(&Tournament, &[Entrant], &[Board]) -> T + Send + 'static,
) -> Result<T, ActError> {
    let t = t.clone();
    crate::game::work::heavy()
        .run(move || f(&t, &entrants, &boards))
        .await
}

/// The standings of any event as the API shows them (an arena's are its own).
pub fn standings_value(t: &Tournament, entrants: &[Entrant], boards: &[Board]) -> Value {
    if t.format == "arena" {
        return super::arena::standings_json(t, entrants, boards);
    }
    let (s, people) = standings(t, entrants, boards);
    standings_json(&s, &people)
}

/// The standings as the API shows them: `[{"place", "name", "rank", "score", "sos", "sosos",
/// "sodos", "crosstable"}]`.
pub fn standings_json(s: &Standings, people: &HashMap<PlayerId, Person>) -> Value {
    let rows: Vec<Value> = s
        .rows
        .iter()
        .map(|r| {
            json!({"place": r.place, "player": r.player.id,
                "name": people.get(&r.player.id).map(|p| p.name.clone()),
                "rank": r.player.rank.to_string(), "score": r.score, "sos": r.sos,
                "sosos": r.sosos, "sodos": r.sodos,
                "crosstable": r.cells.iter().map(|c| s.cell_text(c)).collect::<Vec<_>>()})
        })
        .collect();
    json!(rows)
}

/// How many rounds event `t` has once it starts with `players` players.
pub fn rounds_at_start(t: &Tournament, players: usize) -> i64 {
    if t.format == "arena" {
        1
    } else if t.format == "round-robin" {
        let n = players;
        if n < 2 {
            0
        } else {
            (n + n % 2 - 1) as i64
        }
    } else {
        t.rounds
    }
}

/// How many of event `t`'s players would be paired at its start: those in and, when it asks
/// for check-in, checked in (bots always are).
pub fn present(t: &Tournament, entrants: &[Entrant]) -> usize {
    entrants
        .iter()
        .filter(|e| e.status == "in")
        .filter(|e| t.options.checkin_minutes == 0 || e.checked_in_at.is_some())
        .count()
}

/// Starts event `t` if this process wins the claim (from `upcoming`), then readies and pairs
/// round 1 ([`begin`]). Fewer than two players: the event ends unplayed.
pub async fn start(st: &AppState, t: &Tournament) -> Result<bool, ActError> {
    let store = &st.hub.store;
    let entrants = rows::entrants(store, &t.id).await?;
    let n = present(t, &entrants);
    let fills = t.options.fill_bot.is_some() || t.options.fill_account.is_some();
    if n + usize::from(n % 2 == 1 && fills) < 2 {
        rows::finish(store, &t.id, now_ms()).await?;
        return Ok(false);
    }
    if !rows::claim_start(store, &t.id, now_ms()).await? {
        return Ok(false);
    }
    let t = rows::load(store, &t.id)
        .await?
        .ok_or_else(|| ActError::internal("a started event vanished"))?;
    begin(st, &t).await?;
    Ok(true)
}

/// Round 1 of a started event `t` (round 0): those who did not check in are set absent, an odd
/// field gets its filling bot, the rounds are counted, and round 1 is paired (an arena opens).
/// Every step holds when done twice, so the sweep of any process redoes it for a starter that
/// stopped half-way.
async fn begin(st: &AppState, t: &Tournament) -> Result<(), ActError> {
    let store = &st.hub.store;
    if t.options.checkin_minutes > 0 {
        rows::mark_absent(store, &t.id).await?;
    }
    let entrants = rows::entrants(store, &t.id).await?;
    let n = entrants.iter().filter(|e| e.status == "in").count();
    let mut field = n;
    if n % 2 == 1 {
        if let Some(en) = filling(st, t, &entrants).await? {
            // Only while the field is still odd: a second process adds none.
            if rows::add_entrant(store, &t.id, "running", n as i64 + 1, &en, now_ms()).await? {
                field += 1;
            } else {
                field = rows::entrants(store, &t.id)
                    .await?
                    .iter()
                    .filter(|e| e.status == "in")
                    .count();
            }
        }
    }
    rows::set_rounds(store, &t.id, rounds_at_start(t, field)).await?;
    let t = rows::load(store, &t.id)
        .await?
        .ok_or_else(|| ActError::internal("a started event vanished"))?;
    if t.round > 0 {
        return Ok(());
    }
    if t.format == "arena" {
        rows::advance_round(store, &t.id, 0).await?;
        super::arena::tick(st, &t).await?;
    } else {
        pair_round(st, &t).await?;
    }
    Ok(())
}

/// The entry that fills an odd field of `t`: its bot level, or its bot account unless that
/// account plays in it already.
async fn filling(
    st: &AppState,
    t: &Tournament,
    entrants: &[Entrant],
) -> Result<Option<Entrant>, ActError> {
    if let Some(level) = &t.options.fill_bot {
        return Ok(Some(super::bot_entrant(t, level)));
    }
    let Some(id) = &t.options.fill_account else {
        return Ok(None);
    };
    if entrants
        .iter()
        .any(|e| e.status == "in" && e.account_id.as_deref() == Some(id.as_str()))
    {
        return Ok(None);
    }
    let Some(a) = st.hub.store.account_by_id(id).await.map_err(storage)? else {
        return Ok(None);
    };
    let mut en = super::account_entrant(st, t, &a).await?;
    en.checked_in_at = Some(now_ms());
    Ok(Some(en))
}

/// Pairs the round after `t.round` and makes its games, then shows it; nothing when another
/// process paired it first.
async fn pair_round(st: &AppState, t: &Tournament) -> Result<(), ActError> {
    let round = t.round + 1;
    let store = &st.hub.store;
    let entrants = rows::entrants(store, &t.id).await?;
    let boards = rows::boards(store, &t.id).await?;
    let rp = off_runtime(
        t,
        entrants.clone(),
        boards.clone(),
        move |t, entrants, boards| {
            let players: Vec<Player> = entrants
                .iter()
                .filter(|e| e.status == "in")
                .map(pairing_player)
                .collect();
            let h = history(boards, t.round, komi_of(&t.settings));
            match t.format.as_str() {
                "mcmahon" => mcmahon(t).pair(&players, &h),
                "round-robin" => robin(entrants, boards)
                    .round(round as usize)
                    .unwrap_or_default(),
                _ => swiss(t).pair(&players, &h),
            }
        },
    )
    .await?;
    let by_seq: HashMap<i64, &Entrant> = entrants.iter().map(|e| (e.seq, e)).collect();
    let now = now_ms();
    let (mut paired, seats) = boards_of(round, 1, &rp.pairings, &by_seq, now);
    if let Some(bye) = rp.bye {
        paired.push(Board {
            round,
            board: paired.len() as i64 + 1,
            black: bye as i64,
            white: None,
            handicap: 0,
            game_id: None,
            result: Some("bye".into()),
            set_by: None,
            created_at: now,
            ended_at: None,
        });
    }
    if !rows::insert_boards(store, &t.id, &paired).await? {
        // Paired by another process; one that stopped before showing it is stood in for.
        let now_stored = rows::boards(store, &t.id).await?;
        let theirs: Vec<&Board> = now_stored.iter().filter(|b| b.round == round).collect();
        if !theirs.is_empty() && theirs.iter().all(|b| b.created_at < now - STALE_MS) {
            rows::advance_round(store, &t.id, t.round).await?;
        }
        return Ok(());
    }
    super::arena::count_pairings(st, &paired);
    seat(st, t, &paired, &seats).await?;
    rows::advance_round(store, &t.id, t.round).await?;
    Ok(())
}

/// The boards of `pairings` in round `round`, numbered from `first`, and their players. A
/// player who has withdrawn since (a round robin, an arena) loses without a game.
pub(super) fn boards_of<'a>(
    round: i64,
    first: i64,
    pairings: &[baduk_pairing::Pairing],
    by_seq: &HashMap<i64, &'a Entrant>,
    now: i64,
) -> (Vec<Board>, Vec<[&'a Entrant; 2]>) {
    let mut paired = Vec::new();
    let mut seats = Vec::new();
    for p in pairings {
        let (black, white) = (by_seq.get(&(p.black as i64)), by_seq.get(&(p.white as i64)));
        let (Some(black), Some(white)) = (black, white) else {
            continue;
        };
        let mut board = Board {
            round,
            board: first + paired.len() as i64,
            black: black.seq,
            white: Some(white.seq),
            handicap: p.handicap as i64,
            game_id: None,
            result: None,
            set_by: None,
            created_at: now,
            ended_at: None,
        };
        match (black.status == "in", white.status == "in") {
            (true, true) => board.game_id = Some(new_id()),
            (b, w) => {
                board.result = Some(
                    match (b, w) {
                        (true, _) => "black",
                        (_, true) => "white",
                        _ => "unplayed",
                    }
                    .into(),
                );
                board.set_by = Some("withdrawn".into());
            }
        }
        seats.push([*black, *white]);
        paired.push(board);
    }
    (paired, seats)
}

/// Makes the games of stored boards and seats their players; a game that cannot be made
/// leaves its board unplayed.
pub(super) async fn seat(
    st: &AppState,
    t: &Tournament,
    paired: &[Board],
    seats: &[[&Entrant; 2]],
) -> Result<(), ActError> {
    for (board, players) in paired.iter().zip(seats) {
        let Some(game) = &board.game_id else { continue };
        if let Err(x) = make_game(st, t, board, *players, game).await {
            tracing::warn!(
                "tournament {}: a game of round {} not made: {}",
                t.id,
                board.round,
                x.message
            );
            rows::set_result(
                &st.hub.store,
                &t.id,
                board.round,
                board.board,
                "unplayed",
                Some("server"),
                true,
            )
            .await?;
        }
    }
    Ok(())
}

/// The settings of one board's game: the event's, with the pairing's handicap in Go.
fn board_settings(t: &Tournament, handicap: i64) -> Settings {
    match &t.settings {
        Settings::Go { rules, .. } if handicap > 0 => {
            let mut r = match baduk_go::Rules::parse(rules) {
                Ok(r) => r,
                Err(_) => return t.settings.clone(),
            };
            let _ = r.set("komi", "0.5");
            Settings::Go {
                rules: r.to_string(),
                handicap: if handicap >= 2 { handicap as u32 } else { 0 },
            }
        }
        s => s.clone(),
    }
}

/// Makes a board's game with the id `game`: accounts seated and joined, bot levels in their
/// seats.
async fn make_game(
    st: &AppState,
    t: &Tournament,
    board: &Board,
    players: [&Entrant; 2],
    game: &str,
) -> Result<(), ActError> {
    let store = &st.hub.store;
    let settings = board_settings(t, board.handicap);
    let kind = crate::game::ratings::kind_of(&settings);
    let mut seats: [SeatSpec; 2] = Default::default();
    let mut seated = [None, None];
    for (i, en) in players.iter().enumerate() {
        match (&en.account_id, &en.bot) {
            (Some(id), _) => {
                let a = store
                    .account_by_id(id)
                    .await
                    .map_err(storage)?
                    .ok_or_else(|| ActError::internal("a player's account vanished"))?;
                seated[i] = Some(player_of(store, &a, kind).await?);
                seats[i] = SeatSpec {
                    kind: "human".into(),
                    bot: None,
                    options: None,
                };
            }
            (None, Some(level)) => {
                seats[i] = SeatSpec {
                    kind: "bot".into(),
                    bot: Some(level.bot.clone()),
                    options: (!level.options.is_empty()).then(|| level.options.clone()),
                };
            }
            _ => return Err(ActError::internal("a player is neither account nor bot")),
        }
    }
    st.hub
        .create_joined(NewGame {
            settings,
            seats,
            client: None,
            players: seated,
            flags: GameFlags {
                rated: t.rated,
                listed: true,
            },
            id: Some(game.to_string()),
        })
        .await?;
    Ok(())
}

/// The seat names of event `t`'s games (Black's first).
fn seat_names(t: &Tournament) -> [&'static str; 2] {
    match t.settings {
        Settings::Go { .. } => crate::game::go_room::SEATS,
        Settings::Wallgo { .. } => crate::game::wall_room::SEATS,
    }
}

/// Reads the results of the current round's games that ended, and gives a no-show's game to
/// the other player once the event's wait has passed. True when a result changed.
async fn collect(st: &AppState, t: &Tournament, boards: &[Board]) -> Result<bool, ActError> {
    let store = &st.hub.store;
    let seats = seat_names(t);
    let now = now_ms();
    let mut changed = false;
    for b in boards
        .iter()
        .filter(|b| b.round == t.round && b.result.is_none())
    {
        let found = match &b.game_id {
            Some(g) => rows::game_outcome(store, g).await?,
            None => None,
        };
        let late = now - b.created_at >= t.options.no_show_ms;
        let (result, by) = match found {
            Some((status, _, winner, aborted)) if status == "finished" => {
                let r = match winner.as_deref() {
                    Some(w) if w == seats[0] => "black",
                    Some(w) if w == seats[1] => "white",
                    _ if aborted => "unplayed",
                    _ => "jigo",
                };
                (r, None)
            }
            // Nobody moved (Black is missing) or only Black did (White is).
            Some((_, moves, _, _)) if late && moves < 2 => {
                (if moves == 0 { "white" } else { "black" }, Some("no-show"))
            }
            None if late => ("unplayed", Some("server")),
            _ => continue,
        };
        changed |= rows::set_result(store, &t.id, b.round, b.board, result, by, true).await?;
    }
    Ok(changed)
}

/// Moves event `id` on: starts it when its time came, records the results of its games, and
/// pairs the next round (or ends it) once every board of the round has its result. Returns a
/// fingerprint of what the lobby shows (status, round, results known).
pub async fn tick(st: &AppState, id: &str) -> Result<Option<String>, ActError> {
    let store = &st.hub.store;
    let Some(mut t) = rows::load(store, id).await? else {
        return Ok(None);
    };
    if t.status == "upcoming" && t.starts_at <= now_ms() {
        start(st, &t).await?;
        t = rows::load(store, id).await?.unwrap_or(t);
    }
    // Started, and still at round 0 a while later: its starter stopped before round 1.
    if t.status == "running" && t.round == 0 && now_ms() - t.starts_at >= STUCK_START_MS {
        begin(st, &t).await?;
        t = rows::load(store, id).await?.unwrap_or(t);
    }
    if t.status == "running" && t.format == "arena" && t.round > 0 {
        let boards = rows::boards(store, id).await?;
        collect(st, &t, &boards).await?;
        super::arena::tick(st, &t).await?;
        t = rows::load(store, id).await?.unwrap_or(t);
        let boards = rows::boards(store, id).await?;
        let known = boards.iter().filter(|b| b.result.is_some()).count();
        return Ok(Some(format!(
            "{}/{}/{}/{known}",
            t.status,
            t.round,
            boards.len()
        )));
    }
    // Round 0 of a running event: its starter is pairing round 1 (or the sweep, above, later).
    if t.status == "running" && t.format != "arena" && t.round > 0 {
        let mut boards = rows::boards(store, id).await?;
        if collect(st, &t, &boards).await? {
            boards = rows::boards(store, id).await?;
        }
        let done = boards
            .iter()
            .filter(|b| b.round == t.round)
            .all(|b| b.result.is_some());
        if done {
            let left = rows::entrants(store, id)
                .await?
                .iter()
                .filter(|e| e.status == "in")
                .count();
            if t.round >= t.rounds || (left < 2 && t.format != "round-robin") {
                rows::finish(store, id, now_ms()).await?;
            } else {
                pair_round(st, &t).await?;
            }
            t = rows::load(store, id).await?.unwrap_or(t);
            boards = rows::boards(store, id).await?;
        }
        let known = boards.iter().filter(|b| b.result.is_some()).count();
        return Ok(Some(format!("{}/{}/{known}", t.status, t.round)));
    }
    Ok(Some(format!("{}/{}", t.status, t.round)))
}

/// Sweeps the events every second on every process: starts, results, next rounds; a change
/// goes to the lobby's sockets as `{"type": "tournament", …}` with the standings.
pub fn spawn(st: AppState) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut seen: HashMap<String, String> = HashMap::new();
        loop {
            every.tick().await;
            let _timed = super::arena::SweepTimer::start(&st);
            let ids = match rows::due(&st.hub.store, now_ms()).await {
                Ok(ids) => ids,
                Err(e) => {
                    tracing::warn!("tournaments sweep: {}", e.message);
                    continue;
                }
            };
            for id in &ids {
                match tick(&st, id).await {
                    Ok(Some(mark)) if seen.get(id) != Some(&mark) => {
                        seen.insert(id.clone(), mark);
                        if let Ok(v) = super::lobby_message(&st, id).await {
                            let _ = st.tournament_news.send(v);
                        }
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!("tournament {id}: {}", e.message),
                }
            }
            seen.retain(|k, _| ids.contains(k));
        }
    });
}
