//! Bots in seats, under the server's budget: a seat's options are read into an allow-list with
//! numeric ranges (a client never names a file: models are the operator's, chosen at start),
//! every search is capped in time and nodes, at most `threads` search threads run at once
//! server-wide (queued oldest first), and a search is cancelled when its game moves on or ends.

use crate::game::room::{seed_of, ActError, Core, Room, SeatSpec};
use baduk_go::Point;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Most nodes a Wall Go search may be given on the server.
pub const MAX_WALL_NODES: u64 = 200_000;
/// Most playouts a Go search may be given on the server.
pub const MAX_GO_PLAYOUTS: u64 = 200_000;
/// Deepest `medium` search (full width, so no deeper).
pub const MAX_MEDIUM_DEPTH: u64 = 3;
/// Most threads one Go search may use on the server.
pub const MAX_GO_THREADS: u64 = 4;
/// Largest transposition table of a Wall Go search (log2 of its entries: 2^20 is 24 MiB).
pub const MAX_WALL_TT: u64 = 20;

/// The operator's bot budget and models.
#[derive(Clone, Debug)]
pub struct BotLimits {
    /// Longest a bot may think about one move.
    pub max_time: Duration,
    /// Search threads all bots together may use at once.
    pub threads: usize,
    /// Whether a game may have a bot in both seats.
    pub allow_bot_games: bool,
}

impl Default for BotLimits {
    fn default() -> BotLimits {
        BotLimits {
            max_time: Duration::from_secs(3),
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            allow_bot_games: false,
        }
    }
}

/// The models the operator chose (`--go-model`, `--go-net`, `--wall-model`); None: the
/// built-in ones.
#[derive(Clone, Debug, Default)]
pub struct Models {
    /// The Go bot's move priors.
    pub go: Option<Arc<baduk_search::go::patterns::Model>>,
    /// The Go policy network (seats with `priors=net`, and 19×19 reviews).
    pub go_net: Option<Arc<baduk_search::go::policy_net::PolicyNet>>,
    /// `sedol`'s evaluation.
    pub wall: Option<Arc<baduk_search::wall::model::Model>>,
}

impl Models {
    /// Loads the operator's model files; the error names the file and line (or, for the
    /// network, what in it is wrong).
    pub fn load(
        go: Option<&str>,
        go_net: Option<&str>,
        wall: Option<&str>,
    ) -> Result<Models, String> {
        let go_net = match go_net {
            None => None,
            Some(p) => Some(Arc::new(
                baduk_search::go::policy_net::PolicyNet::load(p)
                    .map_err(|e| format!("--go-net {e}"))?,
            )),
        };
        let go = match go {
            None => None,
            Some(p) => Some(Arc::new(
                baduk_search::go::patterns::Model::load(p)
                    .map_err(|e| format!("--go-model {e}"))?,
            )),
        };
        let wall = match wall {
            None => None,
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| format!("--wall-model {p}: cannot read the model file: {e}"))?;
                Some(Arc::new(
                    baduk_search::wall::model::Model::parse(&text)
                        .map_err(|e| format!("--wall-model {p}: {e}"))?,
                ))
            }
        };
        Ok(Models { go, go_net, wall })
    }
}

/// A bot seat's options as the server accepts them, in a normal form (stored with the seat).
///
/// Go (`baduk`): `level` 1–10, `time` seconds up to the operator's maximum, `playouts` up to
/// [`MAX_GO_PLAYOUTS`], `threads` up to [`MAX_GO_THREADS`] and the server's bot threads,
/// `priors` `builtin`, `net` (the built-in policy network near the root, 19×19) or `none`,
/// `resign` 0–1. Wall Go: `random` and `easy` take none, `medium`
/// `depth` 1–3, `expert` and `sedol` `nodes` up to [`MAX_WALL_NODES`], `ms` up to the maximum
/// time, `depth` 1–60, `tt` 10–20, `prune` and `lmr` 0 or 1.
pub fn normalise_options(
    game: &str,
    bot: &str,
    options: &str,
    limits: &BotLimits,
) -> Result<String, ActError> {
    let bad = |m: String| ActError::bad_request(format!("bot options: {m}"));
    if options.len() > 200 {
        return Err(bad("too long (200 bytes at most)".into()));
    }
    let max_ms = limits.max_time.as_millis() as u64;
    let max_threads = MAX_GO_THREADS.min(limits.threads.max(1) as u64);
    // (key, lowest, highest) of the numbers each bot takes; words are checked below.
    let keys: &[(&str, f64, f64)] = match (game, bot) {
        ("go", "baduk") => &[
            ("level", 1.0, 10.0),
            ("time", 0.05, f64::INFINITY),
            ("playouts", 1.0, MAX_GO_PLAYOUTS as f64),
            ("threads", 1.0, f64::INFINITY),
            ("resign", 0.0, 1.0),
            ("priors", 0.0, 0.0),
        ],
        ("go", b) => {
            return Err(ActError::bad_request(format!(
                "unknown Go bot `{b}` (the Go bot is `baduk`)"
            )))
        }
        (_, "random" | "easy") => &[],
        (_, "medium") => &[("depth", 1.0, MAX_MEDIUM_DEPTH as f64)],
        (_, "expert" | "sedol") => &[
            ("nodes", 1.0, MAX_WALL_NODES as f64),
            ("ms", 1.0, f64::INFINITY),
            ("depth", 1.0, 60.0),
            ("tt", 10.0, MAX_WALL_TT as f64),
            ("prune", 0.0, 1.0),
            ("lmr", 0.0, 1.0),
        ],
        (_, b) => {
            return Err(ActError::bad_request(format!(
                "unknown bot `{b}` (known: {})",
                baduk_search::wall::BOT_NAMES.join(", ")
            )))
        }
    };
    let names: Vec<&str> = keys.iter().map(|k| k.0).collect();
    let mut out: Vec<(String, String)> = Vec::new();
    for item in options.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| bad(format!("`{item}` is not key=value")))?;
        let Some(&(_, lo, hi)) = keys.iter().find(|x| x.0 == k) else {
            if k == "model" {
                return Err(bad(
                    "model is chosen by the server's operator (baduk serve --wall-model), not by a game"
                        .into(),
                ));
            }
            let known = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            return Err(bad(format!(
                "`{k}` is not a server option of {bot} (its options: {known})"
            )));
        };
        let value = if k == "priors" {
            if !matches!(v, "builtin" | "none" | "net") {
                return Err(bad(
                    "priors is `builtin`, `net` or `none` on the server (the operator chooses the model)"
                        .into(),
                ));
            }
            v.to_string()
        } else {
            // `time` may carry its unit (`2s`); nothing else does.
            let num = if k == "time" {
                v.strip_suffix('s').unwrap_or(v)
            } else {
                v
            };
            let x: f64 = num
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| bad(format!("{k}={v} is not a number")))?;
            let whole = !matches!(k, "time" | "resign");
            if whole && x.fract() != 0.0 {
                return Err(bad(format!("{k}={v} is not a whole number")));
            }
            let hi = match k {
                "time" => limits.max_time.as_secs_f64(),
                "ms" => max_ms as f64,
                "threads" => max_threads as f64,
                _ => hi,
            };
            if x < lo {
                return Err(bad(format!("{k} at least {lo}")));
            }
            if x > hi {
                return Err(bad(match k {
                    "time" => {
                        format!("time at most {hi} seconds a move (the server's --bot-max-time)")
                    }
                    "ms" => format!("ms at most {max_ms} (the server's --bot-max-time)"),
                    "threads" => format!("threads at most {max_threads}"),
                    _ => format!("{k} at most {hi}"),
                }));
            }
            if whole {
                format!("{}", x as u64)
            } else {
                format!("{x}")
            }
        };
        out.retain(|(key, _)| key != k);
        out.push((k.to_string(), value));
    }
    Ok(out
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(","))
}

/// One bot move to think about: a copy of the game, the seat, and how long its clock allows.
pub struct Job {
    /// The game as it stood.
    pub room: Room,
    /// The seat that acts.
    pub seat: usize,
    /// Who sits there.
    pub spec: SeatSpec,
    /// Milliseconds until the seat's clock runs out, if one runs.
    pub clock_ms: Option<i64>,
}

/// Every bot of this process: the budget, the models and the queue of searches.
pub struct Bots {
    /// The operator's budget.
    pub limits: BotLimits,
    models: Models,
    pool: Arc<Semaphore>,
    waiting: AtomicUsize,
    running: AtomicUsize,
    test_bots: bool,
}

impl Bots {
    /// The bots under `limits` with `models`; `test_bots` accepts the test bot `panic`.
    pub fn new(limits: BotLimits, models: Models, test_bots: bool) -> Bots {
        let threads = limits.threads.max(1);
        Bots {
            limits,
            models,
            pool: Arc::new(Semaphore::new(threads)),
            waiting: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            test_bots,
        }
    }

    /// Checks a bot seat of a new game; returns its options in normal form.
    pub fn check_seat(&self, game: &str, spec: &SeatSpec) -> Result<String, ActError> {
        let name = spec
            .bot
            .as_deref()
            .ok_or_else(|| ActError::bad_request("a bot seat needs \"bot\": its name"))?;
        let opts = spec.options.as_deref().unwrap_or("");
        if name == "panic" && self.test_bots {
            return Ok(String::new());
        }
        normalise_options(game, name, opts, &self.limits)
    }

    /// Searches waiting for a thread now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Searches running now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::Relaxed)
    }

    /// Threads of the pool held now (bot searches and review positions).
    pub fn busy(&self) -> usize {
        (self.limits.threads.max(1)).saturating_sub(self.pool.available_permits())
    }

    /// Thinks about `job` once a thread is free (oldest first); None when `cancel` was set
    /// before it ran. A search in progress stops early when `cancel` is set.
    pub async fn think(
        self: &Arc<Self>,
        job: Job,
        cancel: Arc<AtomicBool>,
    ) -> Result<Option<String>, String> {
        let threads = self.threads_of(&job);
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let permit = self.pool.clone().acquire_many_owned(threads).await;
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        let _permit = permit.map_err(|e| format!("bot pool closed: {e}"))?;
        if cancel.load(Ordering::Relaxed) {
            return Ok(None);
        }
        self.running.fetch_add(1, Ordering::Relaxed);
        let me = self.clone();
        let stop = cancel.clone();
        let result = tokio::task::spawn_blocking(move || me.action(&job, stop)).await;
        self.running.fetch_sub(1, Ordering::Relaxed);
        match result {
            Ok(r) => r.map(Some),
            Err(e) => Err(format!("a bot panicked; its game waits: {e}")),
        }
    }

    /// Threads the search of `job` takes from the pool.
    fn threads_of(&self, job: &Job) -> u32 {
        if !matches!(job.room.core, Core::Go(_)) {
            return 1;
        }
        let opts = job.spec.options.as_deref().unwrap_or("");
        let n = opts
            .split(',')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| k.trim() == "threads")
            .and_then(|(_, v)| v.trim().parse::<u32>().ok())
            .unwrap_or(1);
        n.clamp(1, self.limits.threads.max(1) as u32)
    }

    /// The seat's options, re-read under today's limits (a stored seat from an older, looser
    /// server falls back to the bot's defaults rather than escaping the budget).
    fn options(&self, game: &str, name: &str, stored: &str) -> String {
        normalise_options(game, name, stored, &self.limits).unwrap_or_else(|e| {
            tracing::warn!("stored bot options `{stored}` refused now ({e}); using the defaults");
            String::new()
        })
    }

    /// What the bot does now (on the blocking pool).
    fn action(&self, job: &Job, stop: Arc<AtomicBool>) -> Result<String, String> {
        let room = &job.room;
        let seat = job.seat;
        let name = job.spec.bot.as_deref().unwrap_or("");
        if name == "panic" && self.test_bots {
            panic!("the test bot `panic` panics, as asked");
        }
        let seed = seed_of(&room.id) ^ (room.version() as u64).wrapping_mul(0x9E37_79B9);
        let max = self.limits.max_time;
        match &room.core {
            Core::Go(g) => {
                if let Some(asker) = g.undo_request {
                    if asker != seat {
                        return Ok("undo-accept".into());
                    }
                }
                match g.phase {
                    crate::game::go_room::Phase::Marking => {
                        return Ok(g.bot_marking_answer().into())
                    }
                    crate::game::go_room::Phase::Handicap(_) => {
                        let size = g.rules.size;
                        let stars = crate::game::go_room::fixed_handicap_points(
                            size.cols(),
                            size.rows(),
                            9,
                        )
                        .unwrap_or_default();
                        let legal = g.legal();
                        let pick = stars
                            .iter()
                            .map(Point::to_string)
                            .find(|p| legal.contains(p))
                            .or_else(|| legal.first().cloned())
                            .ok_or("no point for a handicap stone")?;
                        return Ok(pick);
                    }
                    _ => {}
                }
                // A seat's bot resigns a lost game (`SEAT_DEFAULTS`) unless its options say
                // otherwise (`resign=0`); they come after the defaults and win.
                let opts = format!(
                    "{},{}",
                    baduk_search::go::SEAT_DEFAULTS,
                    self.options("go", name, job.spec.options.as_deref().unwrap_or(""))
                );
                let mut cfg = baduk_search::go::BotConfig {
                    seed,
                    ..Default::default()
                };
                cfg.apply_options(&opts)?;
                // Learned priors (below the network's reach with `priors=net`, the default, and
                // everywhere with `priors=builtin`) are the operator's patterns when it gave some.
                if cfg.model.is_some() {
                    if let Some(m) = &self.models.go {
                        cfg.model = Some(m.clone());
                    }
                }
                // And the network (`priors=net`, the default) is the operator's when it gave one.
                if cfg.net.is_some() {
                    if let Some(n) = &self.models.go_net {
                        cfg.net = Some(n.clone());
                    }
                }
                // Thinking time: the seat's own, capped by the operator's maximum and by a
                // twentieth of what the game's clock leaves.
                let mut time = cfg.move_time.unwrap_or(Duration::from_secs(1)).min(max);
                if let Some(b) = job.clock_ms {
                    time = time.min(Duration::from_millis((b / 20).max(20) as u64));
                }
                let playouts = cfg.playouts.map(|p| p.min(MAX_GO_PLAYOUTS));
                let mut bot = baduk_search::go::Bot::new(cfg);
                let req = baduk_search::go::SearchRequest {
                    time: Some(time),
                    playouts,
                    stop: Some(stop),
                    // Two passes lead to the dead-stone phase (the bot's marks are the
                    // estimate's): dead stones need not be captured first.
                    dead_agreed: g.rules.life != baduk_go::Life::AsIs,
                    ..Default::default()
                };
                let (mv, _) = baduk_search::go::lib_game::genmove(&mut bot, &g.game, req);
                Ok(match mv {
                    None => "resign".into(),
                    Some(baduk_go::Move::Pass) => "pass".into(),
                    Some(baduk_go::Move::Play(p)) => p.to_string(),
                })
            }
            Core::Wall(w) => {
                let mut opts =
                    self.options("wallgo", name, job.spec.options.as_deref().unwrap_or(""));
                if matches!(name, "expert" | "sedol") {
                    // Always a time cap beside any node budget: the operator's maximum, a
                    // quarter of the turn clock, and the seat's own `ms` if smaller.
                    let mut ms = max.as_millis() as i64;
                    if let Some(b) = job.clock_ms {
                        ms = ms.min((b / 4).max(20));
                    }
                    let own = opts
                        .split(',')
                        .filter_map(|kv| kv.split_once('='))
                        .find(|(k, _)| *k == "ms")
                        .and_then(|(_, v)| v.parse::<i64>().ok());
                    let has_nodes = opts.split(',').any(|kv| kv.starts_with("nodes="));
                    let ms = match own {
                        Some(o) => o.min(ms),
                        // Neither budget given: about a second, as before.
                        None if !has_nodes => ms.min(1000),
                        None => ms,
                    };
                    opts = opts
                        .split(',')
                        .filter(|kv| !kv.is_empty() && !kv.starts_with("ms="))
                        .map(str::to_string)
                        .chain(std::iter::once(format!("ms={}", ms.max(1))))
                        .collect::<Vec<_>>()
                        .join(",");
                }
                let spec = if opts.is_empty() {
                    name.to_string()
                } else {
                    format!("{name}:{opts}")
                };
                let options = baduk_search::wall::PlayerOptions {
                    model: self.models.wall.clone(),
                    stop: Some(stop),
                };
                let pos = *w.game.position();
                let a = baduk_search::wall::make_player_with(&spec, seed, &options)
                    .map_err(|e| e.0)?
                    .choose(&pos)
                    .ok_or("no legal action")?;
                Ok(w.notation(a))
            }
        }
    }
}

/// A bot seat that should act now, with its spec.
pub fn bot_to_act(room: &Room) -> Option<(usize, SeatSpec)> {
    let bot = |i: usize| {
        room.seats[i]
            .spec
            .is_bot()
            .then(|| room.seats[i].spec.clone())
    };
    if let Core::Go(g) = &room.core {
        // A bot answers an undo request first; in the dead-stone phase it accepts or disputes.
        if let Some(asker) = g.undo_request {
            return bot(1 - asker).map(|s| (1 - asker, s));
        }
        if let Some(m) = &g.marking {
            if g.phase == crate::game::go_room::Phase::Marking {
                return (0..2)
                    .find_map(|i| (!m.accepted[i]).then(|| bot(i).map(|s| (i, s))).flatten());
            }
        }
    }
    let seat = room.to_move()?;
    bot(seat).map(|s| (seat, s))
}

/// What reviews take from the bots (crate::review::engine).
impl Bots {
    /// One search thread of the pool for a review's position: it waits its turn with the
    /// seats' searches, oldest first.
    pub async fn review_thread(&self) -> Result<tokio::sync::OwnedSemaphorePermit, String> {
        self.pool
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| format!("bot pool closed: {e}"))
    }

    /// The operator's Go move-prior model, if one was given.
    pub fn go_model(&self) -> Option<Arc<baduk_search::go::patterns::Model>> {
        self.models.go.clone()
    }

    /// The Go policy network: the operator's (`--go-net`), else the built-in one.
    pub fn go_net(&self) -> Arc<baduk_search::go::policy_net::PolicyNet> {
        self.models
            .go_net
            .clone()
            .unwrap_or_else(baduk_search::go::policy_net::PolicyNet::builtin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lim() -> BotLimits {
        BotLimits {
            max_time: Duration::from_secs(3),
            threads: 2,
            allow_bot_games: false,
        }
    }

    #[test]
    fn the_operators_network_replaces_the_built_in_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/go-policy.bin");
        let builtin = baduk_search::go::policy_net::PolicyNet::builtin();
        let plain = Bots::new(lim(), Models::default(), false);
        assert!(Arc::ptr_eq(&plain.go_net(), &builtin));
        let models = Models::load(None, Some(path), None).unwrap();
        let theirs = Bots::new(lim(), models, false);
        assert!(
            !Arc::ptr_eq(&theirs.go_net(), &builtin),
            "the file read, not the built-in"
        );
        let e = Models::load(None, Some("/nonexistent/net.bin"), None).unwrap_err();
        assert!(e.starts_with("--go-net /nonexistent/net.bin: "), "{e}");
    }

    #[test]
    fn options_are_an_allow_list_with_ranges_and_come_out_normalised() {
        let l = lim();
        let ok = |g: &str, b: &str, o: &str| normalise_options(g, b, o, &l).unwrap();
        let err = |g: &str, b: &str, o: &str| normalise_options(g, b, o, &l).unwrap_err().message;
        assert_eq!(ok("go", "baduk", " level=3 , time=2s"), "level=3,time=2");
        assert_eq!(ok("go", "baduk", "threads=1,threads=2"), "threads=2");
        assert_eq!(ok("wallgo", "expert", "nodes=20000"), "nodes=20000");
        assert_eq!(ok("wallgo", "easy", ""), "");
        assert!(err("wallgo", "sedol", "model=/etc/passwd").contains("operator"));
        assert!(err("wallgo", "sedol", "model=x").contains("--wall-model"));
        assert_eq!(
            err("wallgo", "expert", "nodes=200001"),
            "bot options: nodes at most 200000"
        );
        assert!(err("wallgo", "expert", "ms=100000").contains("ms at most 3000"));
        assert!(err("wallgo", "expert", "tt=26").contains("tt at most 20"));
        assert!(err("wallgo", "medium", "depth=8").contains("depth at most 3"));
        assert!(err("wallgo", "easy", "nodes=5").contains("its options: none"));
        assert!(err("go", "baduk", "time=10").contains("time at most 3 seconds"));
        assert!(err("go", "baduk", "threads=64").contains("threads at most 2"));
        assert!(err("go", "baduk", "playouts=1e12").contains("playouts at most 200000"));
        assert!(err("go", "baduk", "priors=/etc/passwd").contains("`builtin`, `net` or `none`"));
        // The built-in policy network may be asked for; a file or a depth may not.
        assert_eq!(
            normalise_options("go", "baduk", "priors=net", &lim()).expect("accepted"),
            "priors=net"
        );
        assert!(err("go", "baduk", "net=/etc/passwd").contains("not a server option"));
        assert!(err("go", "baduk", "net-depth=20").contains("not a server option"));
        assert!(err("go", "baduk", "explore=1").contains("not a server option"));
        assert!(err("go", "baduk", "time=inf").contains("not a number"));
        assert!(err("go", "baduk", "time=NaN").contains("not a number"));
        assert!(err("go", "baduk", "level=2.5").contains("whole number"));
        assert!(err("go", "baduk", "level").contains("key=value"));
        assert!(err("go", "gnugo", "").contains("unknown Go bot"));
        assert!(err("wallgo", "grandmaster", "").contains("unknown bot"));
        assert!(err("go", "baduk", &"a".repeat(300)).contains("too long"));
    }
}
