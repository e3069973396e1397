//! The GTP engine: game state, the bot, clocks and every command, behind one `handle` call;
//! `run` adds the line loop with streaming `lz-analyze`.

use crate::analysis::{info_line, parse_analyze_args, AnalyzeArgs, Dialect, Restriction};
use crate::protocol::{format_response, parse_line, Command};
use crate::rules::parse_rules;
use crate::vertex::{
    colour_letter, format_vertex, parse_colour, parse_vertex, parse_vertex_checked, Vertex,
    VertexError,
};
use baduk_go::{Board, Color, Game, Komi, Move, Point, Rules, Size};
use baduk_search::go::board::{Colour, Idx, PASS};
use baduk_search::go::mcts::MoveRestriction;
use baduk_search::go::rules::BotRules;
use baduk_search::go::state::GameState;
use baduk_search::go::time::{budget, longest, Clock, TimeLeft};
use baduk_search::go::{Bot, BotConfig, BotMove, SearchRequest};
use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Analysis searches in slices this long, so that the next command stops it at once.
const SLICE: Duration = Duration::from_millis(20);

/// Every command the engine answers, as `list_commands` prints them.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "time_settings",
    "time_left",
    "kgs-time_settings",
    "kgs-genmove_cleanup",
    "kgs-rules",
    "baduk-rules",
    "final_score",
    "final_status_list",
    "loadsgf",
    "printsgf",
    "showboard",
    "lz-analyze",
    "lz-genmove_analyze",
    "kata-analyze",
    "kata-genmove_analyze",
];

/// The engine's state: rules, the game, the bot and the clocks.
pub struct Engine {
    size: usize,
    rules: BotRules,
    lib_rules: Rules,
    lib: Game,
    game: GameState,
    bot: Bot,
    clock: Clock,
    left: [Option<TimeLeft>; 2],
    /// Set once `quit` was answered.
    pub quit: bool,
}

type Reply = Result<String, String>;

fn syntax<T>(what: &str) -> Result<T, String> {
    Err(format!("syntax error: {what}"))
}

impl Engine {
    /// A 19×19 engine under Chinese-like area rules (komi 7.5) with the bot configured by `config`.
    pub fn new(config: BotConfig) -> Engine {
        let lib_rules = Rules::preset(baduk_go::Preset::Chinese);
        let rules = BotRules::from(&lib_rules);
        Engine {
            size: 19,
            rules,
            lib_rules,
            lib: Game::new(lib_rules),
            game: GameState::new(19, rules),
            bot: Bot::new(config),
            clock: Clock::None,
            left: [None, None],
            quit: false,
        }
    }

    /// The bot's mirror of the current game.
    pub fn game(&self) -> &GameState {
        &self.game
    }

    /// The current game, as the rules library keeps it.
    pub fn lib_game(&self) -> &Game {
        &self.lib
    }

    fn point(&self, i: Idx) -> Point {
        let (x, y) = self.game.board().xy(i);
        Point::new(x as u32, (self.size - 1 - y) as u32)
    }

    fn idx_of(&self, p: Point) -> Idx {
        self.game
            .board()
            .idx(p.x() as usize, self.size - 1 - p.y() as usize)
    }

    fn lib_move(&self, i: Idx) -> Move {
        if i == PASS {
            Move::Pass
        } else {
            Move::Play(self.point(i))
        }
    }

    /// Rebuilds the bot's mirror from the library game (start position and history).
    fn sync(&mut self) {
        // The mirror is rebuilt on the library game's own size (loadsgf may change it).
        self.game = baduk_search::go::lib_game::mirror(&self.lib);
        self.game.rules = self.rules;
    }

    /// Replays the library game under the current rules (after komi or rules change).
    fn replay_under_rules(&mut self) {
        let old = std::mem::replace(&mut self.lib, Game::new(self.lib_rules));
        let mut g = Game::from_position(
            self.lib_rules,
            old.start_board().clone(),
            old.start_to_move(),
        );
        g.set_handicap(old.handicap());
        for r in old.history() {
            if g.play_as(r.color, r.mv).is_err() {
                break;
            }
        }
        self.lib = g;
        self.sync();
    }

    /// After an ended game (two passes), GUIs may play on (cleanup): resume the same game, so
    /// that superko still sees every earlier position; other endings continue from the board.
    fn reopen_if_over(&mut self) {
        if !self.lib.is_over() {
            return;
        }
        if !self.lib.resume() {
            let b = self.lib.board().clone();
            let h = self.lib.handicap();
            self.lib = Game::from_position(self.lib_rules, b, self.lib.to_move());
            self.lib.set_handicap(h);
        }
        self.sync();
    }

    fn idx(&self, v: Vertex) -> Idx {
        match v {
            Vertex::Pass => PASS,
            Vertex::At(x, y) => self.game.board().idx(x, y),
        }
    }

    fn vertex(&self, i: Idx) -> String {
        if i == PASS {
            return "pass".into();
        }
        let (x, y) = self.game.board().xy(i);
        format_vertex(Vertex::At(x, y), self.size)
    }

    fn new_game(&mut self) {
        if let Ok(sz) = Size::square(self.size as u32) {
            self.lib_rules = self.lib_rules.with_size(sz);
        }
        self.lib = Game::new(self.lib_rules);
        self.game = GameState::new(self.size, self.rules);
        self.bot.reset();
    }

    /// Answers one command (streaming analysis commands answer with a single snapshot here).
    pub fn handle(&mut self, cmd: &Command) -> Reply {
        let a = &cmd.args;
        match cmd.name.as_str() {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("baduk".into()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "known_command" => match a.first() {
                Some(n) => Ok(COMMANDS
                    .contains(&n.to_ascii_lowercase().as_str())
                    .to_string()),
                None => syntax("known_command needs a command name"),
            },
            "list_commands" => Ok(COMMANDS.join("\n")),
            "quit" => {
                self.quit = true;
                Ok(String::new())
            }
            "boardsize" => {
                let n: usize = match a.first().map(|s| s.parse()) {
                    Some(Ok(n)) => n,
                    _ => return syntax("boardsize needs an integer"),
                };
                if !(2..=25).contains(&n) {
                    return Err("unacceptable size".into());
                }
                self.size = n;
                self.new_game();
                Ok(String::new())
            }
            "clear_board" => {
                self.new_game();
                Ok(String::new())
            }
            "komi" => match a.first().map(|s| Komi::parse(s)) {
                Some(Ok(k)) => {
                    self.lib_rules.komi = k;
                    self.rules.komi = k.as_f64() as f32;
                    self.replay_under_rules();
                    // Trees searched under another komi value positions differently.
                    self.bot.reset();
                    Ok(String::new())
                }
                Some(Err(e)) => syntax(&e.to_string()),
                None => syntax("komi needs a number"),
            },
            "play" => self.cmd_play(a),
            "genmove" => self.cmd_genmove(a, false),
            "kgs-genmove_cleanup" => self.cmd_genmove(a, true),
            "undo" => {
                if self.lib.undo().is_some() {
                    self.sync();
                    Ok(String::new())
                } else {
                    Err("cannot undo".into())
                }
            }
            "fixed_handicap" => self.cmd_fixed_handicap(a),
            "place_free_handicap" => self.cmd_fixed_handicap(a),
            "set_free_handicap" => self.cmd_set_free_handicap(a),
            "time_settings" => {
                let v: Vec<f64> = a.iter().filter_map(|s| s.parse().ok()).collect();
                if v.len() != 3 || a.len() != 3 {
                    return syntax("time_settings main_time byo_yomi_time byo_yomi_stones");
                }
                self.clock = if v[1] > 0.0 && v[2] == 0.0 {
                    Clock::None
                } else if v[1] <= 0.0 {
                    Clock::Absolute { main: v[0] }
                } else {
                    Clock::Canadian {
                        main: v[0],
                        period: v[1],
                        stones: v[2] as u32,
                    }
                };
                self.left = [None, None];
                Ok(String::new())
            }
            "kgs-time_settings" => self.cmd_kgs_time(a),
            "time_left" => {
                let c = a.first().and_then(|s| parse_colour(s));
                let t = a.get(1).and_then(|s| s.parse::<f64>().ok());
                let s = a.get(2).and_then(|s| s.parse::<u32>().ok());
                match (c, t, s) {
                    (Some(c), Some(t), Some(s)) => {
                        self.left[c.index()] = Some(TimeLeft {
                            seconds: t,
                            stones: s,
                        });
                        Ok(String::new())
                    }
                    _ => syntax("time_left colour time stones"),
                }
            }
            "kgs-rules" | "baduk-rules" => {
                let text = a.join(" ");
                if text.is_empty() {
                    return syntax("rules needed");
                }
                let (mut lib, mut r) = parse_rules(&text)?;
                // GUIs send komi separately (`komi`, before or after the rules): keep it unless
                // the rules string sets `komi=` itself.
                let sets_komi = cmd.name == "baduk-rules"
                    && text
                        .split(',')
                        .any(|p| p.split_once('=').is_some_and(|(k, _)| k.trim() == "komi"));
                if !sets_komi {
                    lib.komi = self.lib_rules.komi;
                    r.komi = self.rules.komi;
                }
                if let Ok(sz) = Size::square(self.size as u32) {
                    lib = lib.with_size(sz);
                }
                self.rules = r;
                self.lib_rules = lib;
                self.replay_under_rules();
                self.bot.reset();
                Ok(String::new())
            }
            "final_score" => Ok(self.final_score()),
            "final_status_list" => self.cmd_status_list(a),
            "showboard" => Ok(self.showboard()),
            "printsgf" => Ok(self.to_sgf()),
            "loadsgf" => self.cmd_loadsgf(a),
            "lz-analyze" | "kata-analyze" => {
                let (args, dialect) = self.analysis_args(cmd)?;
                // Outside `run` (no input to wait for) the answer is one snapshot.
                let c = self.analysis_colour(&args);
                let root = self.analysis_root(c, &args.restrictions);
                let limits = self.move_restrictions(&args.restrictions);
                self.analysis_search(c, root, limits, Duration::from_millis(100));
                Ok(self.analysis_line(c, &args, dialect))
            }
            "lz-genmove_analyze" | "kata-genmove_analyze" => {
                let (args, dialect) = self.analysis_args(cmd)?;
                let mut lines = Vec::new();
                let mv = self.genmove_analyze(&args, dialect, &mut |l| lines.push(l))?;
                lines.push(format!("play {mv}"));
                Ok(lines.join("\n"))
            }
            "" => Err("unknown command".into()),
            _ => Err("unknown command".into()),
        }
    }

    fn cmd_play(&mut self, a: &[String]) -> Reply {
        if a.len() < 2 {
            return syntax("play colour vertex");
        }
        let c = parse_colour(&a[0]).ok_or("syntax error: invalid colour")?;
        let v = match parse_vertex_checked(&a[1], self.size) {
            Ok(v) => v,
            // GNU Go's answer, which clients match on.
            Err(VertexError::OffBoard) => return Err("invalid coordinate".into()),
            Err(VertexError::Malformed) => return syntax("invalid vertex"),
        };
        let i = self.idx(v);
        self.reopen_if_over();
        let mv = self.lib_move(i);
        self.lib
            .play_as(lib_colour(c), mv)
            .map_err(|e| format!("illegal move ({})", e.reason))?;
        self.sync();
        Ok(String::new())
    }

    fn think_time(&self, c: Colour) -> Option<Duration> {
        budget(
            self.clock,
            self.left[c.index()],
            self.game.board().empty_count(),
            0.2,
        )
    }

    /// The longest the clock lets a close call think (see `time::longest`).
    fn longest_time(&self, c: Colour) -> Option<Duration> {
        longest(
            self.clock,
            self.left[c.index()],
            self.game.board().empty_count(),
            0.2,
        )
    }

    fn genmove_for(&mut self, c: Colour, cleanup: bool) -> Result<String, String> {
        self.reopen_if_over();
        self.game.set_to_move(c);
        let root = self.root_moves(c);
        let req = SearchRequest {
            root_moves: Some(root),
            time: self.think_time(c),
            max_time: self.longest_time(c),
            cleanup,
            ..SearchRequest::default()
        };
        let r = self.bot.genmove(&self.game, &req);
        self.play_chosen(c, r.mv)
    }

    /// Plays the bot's decision for `c` in the game and answers it as a GTP vertex (or
    /// `resign`).
    fn play_chosen(&mut self, c: Colour, chosen: BotMove) -> Result<String, String> {
        let i = match chosen {
            BotMove::Resign => return Ok("resign".to_string()),
            BotMove::Pass => PASS,
            BotMove::Play(i) => i,
        };
        let mv = self.lib_move(i);
        self.lib
            .play_as(lib_colour(c), mv)
            .map_err(|e| format!("bot chose an illegal move ({e})"))?;
        self.sync();
        Ok(self.vertex(i))
    }

    /// The legal board points for `c` from the rules library (the mirror's when `c` is not the
    /// side to move there).
    fn root_moves(&self, c: Colour) -> Vec<Idx> {
        if lib_colour(c) == self.lib.to_move() && !self.lib.is_over() {
            self.lib
                .legal_moves()
                .into_iter()
                .filter_map(|m| m.point().map(|p| self.idx_of(p)))
                .collect()
        } else {
            let mut g = self.game.clone();
            g.set_to_move(c);
            g.legal_points(c)
        }
    }

    fn cmd_genmove(&mut self, a: &[String], cleanup: bool) -> Reply {
        let c = a
            .first()
            .and_then(|s| parse_colour(s))
            .ok_or("syntax error: genmove needs a colour")?;
        self.genmove_for(c, cleanup)
    }

    fn handicap_points(&self, n: usize) -> Result<Vec<Idx>, String> {
        let s = self.size;
        let max = if s < 7 {
            0
        } else if s == 7 || s.is_multiple_of(2) {
            4
        } else {
            9
        };
        if n < 2 || n > max {
            return Err("invalid number of stones".into());
        }
        let d = if s >= 13 { 3 } else { 2 };
        let (lo, hi, mid) = (d, s - 1 - d, s / 2);
        let b = self.game.board();
        // GTP's order: D4 Q16 D16 Q4, then the sides and the centre.
        let corners = [b.idx(lo, hi), b.idx(hi, lo), b.idx(lo, lo), b.idx(hi, hi)];
        let mut pts: Vec<Idx> = corners[..n.min(4)].to_vec();
        match n {
            5 | 7 | 9 => {
                if n >= 7 {
                    pts.push(b.idx(lo, mid));
                    pts.push(b.idx(hi, mid));
                }
                if n == 9 {
                    pts.push(b.idx(mid, hi));
                    pts.push(b.idx(mid, lo));
                }
                pts.push(b.idx(mid, mid));
            }
            6 | 8 => {
                pts.push(b.idx(lo, mid));
                pts.push(b.idx(hi, mid));
                if n == 8 {
                    pts.push(b.idx(mid, hi));
                    pts.push(b.idx(mid, lo));
                }
            }
            _ => {}
        }
        Ok(pts)
    }

    fn board_is_empty(&self) -> bool {
        let b = self.game.board();
        b.empty_count() == b.width() * b.height() && self.game.moves().is_empty()
    }

    fn cmd_fixed_handicap(&mut self, a: &[String]) -> Reply {
        let n: usize = match a.first().map(|s| s.parse()) {
            Some(Ok(n)) => n,
            _ => return syntax("handicap needs a number of stones"),
        };
        if !self.board_is_empty() {
            return Err("board not empty".into());
        }
        let pts = self.handicap_points(n)?;
        self.place_handicap(&pts)?;
        Ok(pts
            .iter()
            .map(|&p| self.vertex(p))
            .collect::<Vec<_>>()
            .join(" "))
    }

    fn cmd_set_free_handicap(&mut self, a: &[String]) -> Reply {
        if !self.board_is_empty() {
            return Err("board not empty".into());
        }
        let mut pts: Vec<Idx> = Vec::new();
        for s in a {
            match parse_vertex(s, self.size) {
                Some(Vertex::At(x, y)) => {
                    let i = self.game.board().idx(x, y);
                    if pts.contains(&i) {
                        return Err(format!("bad vertex list: {s} repeated"));
                    }
                    pts.push(i);
                }
                _ => return syntax("set_free_handicap needs vertices"),
            }
        }
        let cells = self.size * self.size;
        if pts.len() < 2 || pts.len() >= cells {
            return Err("bad vertex list".into());
        }
        self.place_handicap(&pts)?;
        Ok(String::new())
    }

    fn place_handicap(&mut self, pts: &[Idx]) -> Result<(), String> {
        let mut b = Board::new(self.lib_rules.size);
        for &i in pts {
            b.set(self.point(i), Some(Color::Black))
                .map_err(|e| format!("bad vertex list: {e}"))?;
        }
        self.lib = Game::from_position(self.lib_rules, b, Color::White);
        self.lib.set_handicap(pts.len() as u32);
        self.sync();
        self.bot.reset();
        Ok(())
    }

    fn cmd_kgs_time(&mut self, a: &[String]) -> Reply {
        let kind = a
            .first()
            .map(|s| s.to_ascii_lowercase())
            .unwrap_or_default();
        let nums: Vec<f64> = a[1.min(a.len())..]
            .iter()
            .filter_map(|s| s.parse().ok())
            .collect();
        if nums.len() + 1 != a.len().max(1) {
            return syntax("kgs-time_settings numbers");
        }
        self.clock = match (kind.as_str(), nums.as_slice()) {
            ("none", []) => Clock::None,
            ("absolute", [m]) => Clock::Absolute { main: *m },
            ("byoyomi", [m, p, n]) => Clock::ByoYomi { main: *m, period: *p, periods: *n as u32 },
            ("canadian", [m, p, s]) => Clock::Canadian { main: *m, period: *p, stones: *s as u32 },
            ("fischer", [m, inc]) => Clock::Fischer { main: *m, increment: *inc },
            _ => {
                return syntax(
                    "kgs-time_settings none | absolute M | byoyomi M P N | canadian M P S | fischer M I",
                )
            }
        };
        self.left = [None, None];
        Ok(String::new())
    }

    /// The rules library's life-and-death estimate of the current position.
    fn estimate(&self) -> baduk_go::life::Estimate {
        let b = self.lib.board();
        // About 60k playout moves' worth: 740 playouts on 9×9, 166 on 19×19.
        let n = (60_000 / b.size().area()).clamp(150, 1000) as u32;
        baduk_go::life::estimate(
            b,
            &baduk_go::life::EstimateConfig {
                playouts: n,
                seed: 0x0DEAD,
            },
        )
    }

    /// What the game recorded that scoring needs: prisoners, passes, last mover, handicap.
    fn facts(&self) -> baduk_go::scoring::GameFacts {
        let mut passes = [0u32; 2];
        for r in self.lib.history() {
            if r.mv == Move::Pass {
                passes[r.color.index()] += 1;
            }
        }
        baduk_go::scoring::GameFacts {
            captures: [
                self.lib.captures(Color::Black),
                self.lib.captures(Color::White),
            ],
            passes,
            last_mover: self.lib.last_mover(),
            handicap: self.lib.handicap(),
            ..Default::default()
        }
    }

    /// The score by the rules library (its dead-stone estimate, then the rules' own counting,
    /// komi and seki treatment), in GTP form (`B+3.5`, `W+0.5`, `0`).
    pub fn final_score(&mut self) -> String {
        let est = self.estimate();
        let sc = baduk_go::scoring::score(
            self.lib.board(),
            &self.facts(),
            &est.settled,
            &self.lib_rules,
        );
        match sc.outcome {
            baduk_go::scoring::Outcome::Void => "0".into(),
            _ => score_text(sc.margin()),
        }
    }

    fn cmd_status_list(&mut self, a: &[String]) -> Reply {
        let which = a
            .first()
            .map(|s| s.to_ascii_lowercase())
            .unwrap_or_default();
        let est = self.estimate();
        let b = self.lib.board();
        let dead = &est.settled.dead;
        let seki = &est.seki.stones;
        let pts: Vec<Point> = match which.as_str() {
            "dead" => est.dead_stones(),
            "alive" => b
                .points()
                .filter(|&p| b.get(p).is_some() && !dead.contains(p) && !seki.contains(p))
                .collect(),
            "seki" => seki.iter().collect(),
            _ => return syntax("final_status_list alive|dead|seki"),
        };
        Ok(pts.iter().map(|p| p.to_gtp()).collect::<Vec<_>>().join(" "))
    }

    /// The board as text with GTP coordinates.
    pub fn showboard(&self) -> String {
        let b = self.game.board();
        let letters: Vec<char> = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
            .chars()
            .take(self.size)
            .collect();
        let header: String = letters.iter().map(|c| format!(" {c}")).collect();
        let mut s = format!("\n   {header}\n");
        for y in 0..self.size {
            let row = self.size - y;
            s.push_str(&format!("{row:2} "));
            for x in 0..self.size {
                let i = b.idx(x, y);
                let ch = match b.stone(i) {
                    Some(Colour::Black) => 'X',
                    Some(Colour::White) => 'O',
                    None => '.',
                };
                s.push(' ');
                s.push(ch);
            }
            s.push_str(&format!(" {row:2}\n"));
        }
        s.push_str(&format!("   {header}\n"));
        s.push_str(&format!(
            "captured by Black: {}  captured by White: {}  to move: {}",
            b.captures(Colour::Black),
            b.captures(Colour::White),
            colour_letter(b.to_move())
        ));
        s
    }

    /// The game as an SGF record (the rules library's writer).
    pub fn to_sgf(&self) -> String {
        baduk_go::sgf::write(&self.lib)
    }

    fn cmd_loadsgf(&mut self, a: &[String]) -> Reply {
        let path = a
            .first()
            .ok_or("syntax error: loadsgf file [move_number]")?;
        let upto: Option<usize> = match a.get(1) {
            Some(n) => Some(
                n.parse()
                    .map_err(|_| "syntax error: move number".to_string())?,
            ),
            None => None,
        };
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot load file: {e}"))?;
        let sg = baduk_go::SgfGame::parse(&text).map_err(|e| format!("cannot load file: {e}"))?;
        if sg.size.cols() != sg.size.rows() {
            return Err("cannot load file: GTP boards are square".into());
        }
        let mut rules = sg
            .rules(Some(self.lib_rules))
            .map_err(|e| format!("cannot load file: {e}"))?;
        if let Some(k) = sg.komi {
            rules.komi = k;
        }
        // GTP: the position before move `move_number` is played.
        let n = upto.map(|n| n.saturating_sub(1));
        let g = sg
            .replay(rules, n)
            .map_err(|e| format!("cannot load file: {e}"))?;
        self.size = sg.size.cols() as usize;
        self.lib_rules = rules;
        self.rules = BotRules::from(&rules);
        self.lib = g;
        self.sync();
        self.bot.reset();
        Ok(self.lib.to_move().to_string())
    }

    /// The side to move in the game (the colour analysis is for when none is named).
    fn side_to_move(&self) -> Colour {
        match self.lib.to_move() {
            Color::Black => Colour::Black,
            Color::White => Colour::White,
        }
    }

    /// Parses an analysis command's arguments in its engine's dialect.
    fn analysis_args(&self, cmd: &Command) -> Result<(AnalyzeArgs, Dialect), String> {
        let dialect = if cmd.name.starts_with("kata-") {
            Dialect::Kata
        } else {
            Dialect::Leela
        };
        Ok((parse_analyze_args(&cmd.args, self.size, dialect)?, dialect))
    }

    fn analysis_colour(&self, args: &AnalyzeArgs) -> Colour {
        args.colour.unwrap_or_else(|| self.side_to_move())
    }

    /// The root moves analysis searches for `c`: the legal ones, less those `avoid`ed, and only
    /// those `allow`ed when any are (restrictions apply to `c`'s moves at the root).
    fn analysis_root(&self, c: Colour, restrictions: &[Restriction]) -> Vec<Idx> {
        let mut root = self.root_moves(c);
        let points = |r: &Restriction| -> Vec<Idx> {
            r.vertices
                .iter()
                .filter(|v| **v != Vertex::Pass)
                .map(|&v| self.idx(v))
                .collect()
        };
        let mine: Vec<&Restriction> = restrictions.iter().filter(|r| r.colour == c).collect();
        if mine.iter().any(|r| r.allow) {
            let allowed: Vec<Idx> = mine
                .iter()
                .filter(|r| r.allow)
                .flat_map(|r| points(r))
                .collect();
            root.retain(|i| allowed.contains(i));
        }
        for r in mine.iter().filter(|r| !r.allow) {
            let avoided = points(r);
            root.retain(|i| !avoided.contains(i));
        }
        root
    }

    /// The search's form of `avoid`/`allow`: points, and the plies (from the root) they hold for.
    fn move_restrictions(&self, restrictions: &[Restriction]) -> Vec<MoveRestriction> {
        restrictions
            .iter()
            .map(|r| MoveRestriction {
                colour: r.colour,
                allow: r.allow,
                points: r
                    .vertices
                    .iter()
                    .filter(|v| **v != Vertex::Pass)
                    .map(|&v| self.idx(v))
                    .collect(),
                until_depth: r.until,
            })
            .collect()
    }

    /// Searches `slice` more for `c` at the current position (going on with the same tree).
    fn analysis_search(
        &mut self,
        c: Colour,
        root: Vec<Idx>,
        restrictions: Vec<MoveRestriction>,
        slice: Duration,
    ) {
        let mut g = self.game.clone();
        g.set_to_move(c);
        let req = SearchRequest {
            root_moves: Some(root),
            time: Some(slice),
            resume: true,
            restrictions,
            ..SearchRequest::default()
        };
        self.bot.search(&g, &req);
    }

    /// One analysis line for `c` from the bot's current trees.
    fn analysis_line(&self, c: Colour, args: &AnalyzeArgs, dialect: Dialect) -> String {
        let stats = self.bot.merged_stats();
        let own: Option<Vec<f32>> = args.ownership.then(|| {
            let b = self.game.board();
            let sign = if c == Colour::Black { 1.0 } else { -1.0 };
            (0..self.size)
                .flat_map(|y| (0..self.size).map(move |x| (x, y)))
                .map(|(x, y)| sign * self.bot.ownership(b.idx(x, y)))
                .collect()
        });
        info_line(&stats, args, dialect, &|m| self.vertex(m), own.as_deref())
    }

    /// `lz-genmove_analyze` / `kata-genmove_analyze`: thinks as `genmove` does (same clock and
    /// budget), handing an analysis line to `emit` every interval, then plays and answers the
    /// move.
    fn genmove_analyze(
        &mut self,
        args: &AnalyzeArgs,
        dialect: Dialect,
        emit: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        let c = self.analysis_colour(args);
        self.reopen_if_over();
        self.game.set_to_move(c);
        let root = self.analysis_root(c, &args.restrictions);
        let limits = self.move_restrictions(&args.restrictions);
        let time = self
            .think_time(c)
            .or(if self.bot.config.playouts.is_none() {
                self.bot.config.move_time
            } else {
                None
            });
        let mut playouts_left =
            self.bot
                .config
                .playouts
                .or(if time.is_none() { Some(1000) } else { None });
        let start = Instant::now();
        let mut last = start;
        loop {
            let slice = match time {
                Some(t) if start.elapsed() >= t => break,
                Some(t) => SLICE.min(t - start.elapsed()),
                None => Duration::from_secs(3600),
            };
            let chunk = match playouts_left {
                Some(0) => break,
                Some(n) => Some(n.min(256)),
                None => None,
            };
            let req = SearchRequest {
                root_moves: Some(root.clone()),
                time: Some(slice),
                playouts: chunk,
                resume: true,
                restrictions: limits.clone(),
                ..SearchRequest::default()
            };
            let before = self.bot.playouts();
            self.bot.search(&self.game, &req);
            if let Some(n) = playouts_left.as_mut() {
                *n = n.saturating_sub((self.bot.playouts() - before).max(1));
            }
            if last.elapsed() >= args.interval {
                emit(self.analysis_line(c, args, dialect));
                last = Instant::now();
            }
        }
        emit(self.analysis_line(c, args, dialect));
        // The decision from the tree searched above (no further playouts).
        let req = SearchRequest {
            root_moves: Some(root),
            playouts: Some(0),
            resume: true,
            restrictions: limits,
            ..SearchRequest::default()
        };
        let r = self.bot.genmove(&self.game, &req);
        self.play_chosen(c, r.mv)
    }

    /// Streams analysis lines (`=id`, lines every interval, then the blank line) until a line
    /// arrives on `rx`, which is returned (None at the end of input). The search runs in short
    /// slices, so the next command stops it within about [`SLICE`].
    fn stream_analysis<W: Write>(
        &mut self,
        cmd: &Command,
        rx: &mpsc::Receiver<String>,
        output: &mut W,
    ) -> std::io::Result<Option<String>> {
        let (args, dialect) = match self.analysis_args(cmd) {
            Ok(x) => x,
            Err(e) => {
                write!(output, "{}", format_response(cmd.id, &Err(e)))?;
                output.flush()?;
                return Ok(rx.recv().ok());
            }
        };
        let id = cmd.id.map(|i| i.to_string()).unwrap_or_default();
        writeln!(output, "={id}")?;
        output.flush()?;
        let c = self.analysis_colour(&args);
        let root = self.analysis_root(c, &args.restrictions);
        let limits = self.move_restrictions(&args.restrictions);
        let mut last = Instant::now();
        let mut printed = false;
        let next = loop {
            self.analysis_search(c, root.clone(), limits.clone(), SLICE);
            if last.elapsed() >= args.interval {
                writeln!(output, "{}", self.analysis_line(c, &args, dialect))?;
                output.flush()?;
                last = Instant::now();
                printed = true;
            }
            match rx.try_recv() {
                Ok(l) => break Some(l),
                Err(mpsc::TryRecvError::Empty) => {}
                Err(mpsc::TryRecvError::Disconnected) => break None,
            }
        };
        if !printed {
            // Stopped before the first interval: one line of what was searched.
            writeln!(output, "{}", self.analysis_line(c, &args, dialect))?;
        }
        writeln!(output)?;
        output.flush()?;
        Ok(next)
    }

    /// Runs the GTP loop over `input` and `output` until `quit` or end of input; analysis
    /// commands stream `info` lines until the next command arrives.
    pub fn run<R: BufRead + Send + 'static, W: Write>(
        &mut self,
        input: R,
        mut output: W,
    ) -> std::io::Result<()> {
        let (tx, rx) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in input.lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        let mut pending: Option<String> = None;
        loop {
            let line = match pending.take() {
                Some(l) => l,
                None => match rx.recv() {
                    Ok(l) => l,
                    Err(_) => break,
                },
            };
            let Some(cmd) = parse_line(&line) else {
                continue;
            };
            match cmd.name.as_str() {
                "lz-analyze" | "kata-analyze" => {
                    match self.stream_analysis(&cmd, &rx, &mut output)? {
                        Some(l) => pending = Some(l),
                        None => break,
                    }
                }
                "lz-genmove_analyze" | "kata-genmove_analyze" => {
                    let id = cmd.id.map(|i| i.to_string()).unwrap_or_default();
                    match self.analysis_args(&cmd) {
                        Ok((args, dialect)) => {
                            writeln!(output, "={id}")?;
                            output.flush()?;
                            let mut failed = None;
                            let r = self.genmove_analyze(&args, dialect, &mut |l| {
                                if failed.is_none() {
                                    failed =
                                        writeln!(output, "{l}").and_then(|_| output.flush()).err();
                                }
                            });
                            if let Some(e) = failed {
                                return Err(e);
                            }
                            match r {
                                Ok(mv) => writeln!(output, "play {mv}\n")?,
                                // The `=` is out: the failure ends the response as a line.
                                Err(e) => writeln!(output, "{e}\n")?,
                            }
                        }
                        Err(e) => write!(output, "{}", format_response(cmd.id, &Err(e)))?,
                    }
                    output.flush()?;
                }
                _ => {
                    let r = self.handle(&cmd);
                    write!(output, "{}", format_response(cmd.id, &r))?;
                    output.flush()?;
                    if self.quit {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `B+x`, `W+x` or `0` for a Black-minus-White score after komi, exact as a decimal (`W+0.25`
/// with a komi of 3.75); a share that has no decimal form (Ing's seki thirds) to 1/1000.
pub fn score_text(s: baduk_go::scoring::Frac) -> String {
    let a = s.abs().to_string();
    let a = if a.contains('/') {
        format!("{:.3}", s.abs().as_f64())
    } else {
        a
    };
    match s.signum() {
        1 => format!("B+{a}"),
        -1 => format!("W+{a}"),
        _ => "0".into(),
    }
}

/// Builds an engine from a bot option string (`threads=2,playouts=500`).
pub fn engine_with_options(opts: &str) -> Result<Engine, String> {
    let mut cfg = BotConfig::default();
    cfg.apply_options(opts)?;
    Ok(Engine::new(cfg))
}

/// The library's colour for a bot colour.
fn lib_colour(c: Colour) -> Color {
    match c {
        Colour::Black => Color::Black,
        Colour::White => Color::White,
    }
}
