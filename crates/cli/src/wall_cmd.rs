//! `baduk wall play|replay|legal|perft` and `baduk bench wall`.

use crate::error::read_file;
use crate::CliError;
use baduk_rng::Rng;
use baduk_wallgo::{
    play_random, record_line, Action, ActionList, EndReason, Game, Phase, Player, Position,
    RecordError, Variant,
};
use clap::Args;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

/// Picks the action of the bot `name` in `pos` (not over), deterministic for the state of `rng`.
/// The one place bot names resolve; new bots plug in here.
pub fn bot_action(name: &str, pos: &Position, rng: &mut Rng) -> Result<Action, CliError> {
    baduk_search::wall::choose_action(name, pos, rng.next_u64())
        .map_err(CliError::input)?
        .ok_or_else(|| CliError::illegal("no legal action: the game is over"))
}

/// Writes `s` to stdout; a closed pipe (as with `| head`) ends the output quietly.
fn emit(s: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::input(format!("stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// Reads the variant options into a [`Variant`].
fn variant_of(placement: &str, stay: &str, tiebreak: &str) -> Result<Variant, CliError> {
    format!("placement={placement} stay={stay} tiebreak={tiebreak}")
        .parse()
        .map_err(CliError::input)
}

/// Maps a record error to its exit code: 1 if a line breaks a rule, 2 if it does not read.
fn record_error(path: &std::path::Path, e: RecordError) -> CliError {
    let msg = format!("{}: {e}", path.display());
    if e.is_illegal() {
        CliError::illegal(msg)
    } else {
        CliError::input(msg)
    }
}

fn load(path: &std::path::Path) -> Result<Game, CliError> {
    let text = read_file(path)?;
    Game::from_record(&text).map_err(|e| record_error(path, e))
}

/// One line on where the game stands.
fn status(p: &Position) -> String {
    match p.phase() {
        Phase::Placement => format!(
            "placement {} of 4: {} to place",
            p.placements_made() + 1,
            p.to_move()
        ),
        Phase::Turns => format!("turn {}: {} to move", p.turns_played() + 1, p.to_move()),
        Phase::Over(r) => {
            let why = match r {
                EndReason::Separated => "no mixed region remains",
                EndReason::TwoPasses => "two passes in a row",
            };
            let result = p.result().map(|o| o.to_string()).unwrap_or_default();
            format!("game over ({why}): {result}")
        }
    }
}

/// Arguments of `wall play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Player A: `human` or a bot (`random`, `easy`, `medium`, `expert`, `sedol`; options as `expert:nodes=20000`).
    #[arg(long, default_value = "human")]
    pub a: String,
    /// Player B: `human` or a bot, as for `--a`.
    #[arg(long, default_value = "random")]
    pub b: String,
    /// Seed of the bots' random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Placement order: ABAB (B moves first) or ABBA (A moves first).
    #[arg(long, default_value = "ABAB")]
    pub placement: String,
    /// Stay rule: out-and-back, free or stuck-only.
    #[arg(long, default_value = "out-and-back")]
    pub stay: String,
    /// Tie-break: none or largest-region.
    #[arg(long, default_value = "none")]
    pub tiebreak: String,
    /// Write the game record here at the end.
    #[arg(long)]
    pub save: Option<PathBuf>,
}

/// Who plays one side.
enum Seat {
    Human,
    Bot(String),
}

fn seat(name: &str) -> Result<Seat, CliError> {
    if name == "human" {
        Ok(Seat::Human)
    } else {
        // Build the bot once so a bad name or option fails before the game starts.
        baduk_search::wall::make_player(name, 0)
            .map(|_| Seat::Bot(name.to_string()))
            .map_err(|e| CliError::input(format!("player '{name}': {e} (or human)")))
    }
}

/// Writes the record of `game` (finished or not) to `path`, if one was asked for.
fn save(game: &Game, path: Option<&std::path::Path>) -> Result<(), CliError> {
    match path {
        Some(path) => std::fs::write(path, game.to_record())
            .map_err(|e| CliError::input(format!("{}: {e}", path.display()))),
        None => Ok(()),
    }
}

/// `tokens` after `first`, wrapped before `width` columns without breaking a token; continuation
/// lines start with `indent`.
fn wrap(first: &str, tokens: &[String], indent: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut fresh = true;
    for t in tokens {
        let extra = if fresh { t.len() } else { t.len() + 1 };
        if !fresh && line.chars().count() + extra > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.to_string();
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        line.push_str(t);
        fresh = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// What `?` prints: the legal actions, placements in one list, turns grouped by the piece
/// that moves, wrapped between actions.
fn legal_text(pos: &Position) -> String {
    let mut l = ActionList::new();
    pos.legal_actions(&mut l);
    let n = l.len();
    if pos.phase() == Phase::Placement {
        let cells: Vec<String> = l.iter().map(|a| a.to_string()).collect();
        return wrap(&format!("{n} legal: "), &cells, "    ", 78);
    }
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for a in l.iter() {
        let piece = match *a {
            Action::Turn { from, .. } | Action::Pass(from) => from.to_string(),
            Action::Place(c) => c.to_string(),
        };
        match groups.iter_mut().find(|(p, _)| *p == piece) {
            Some((_, v)) => v.push(a.to_string()),
            None => groups.push((piece, vec![a.to_string()])),
        }
    }
    let mut out = format!("{n} legal, by piece:\n");
    for (piece, acts) in &groups {
        out.push_str(&wrap(&format!("  {piece}: "), acts, "      ", 78));
    }
    out
}

/// Reads a human's action: record notation, optionally with its `place A` / `turn B` prefix.
fn parse_human(line: &str, to_move: Player) -> Result<Action, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let body = match words.as_slice() {
        [kind, who, rest @ ..] if (*kind == "place" || *kind == "turn") && !rest.is_empty() => {
            let p: Player = who.parse().map_err(|e| format!("{e}"))?;
            if p != to_move {
                return Err(format!("it is {to_move}'s turn, not {p}'s"));
            }
            rest.join(" ")
        }
        _ => line.to_string(),
    };
    let body = body.trim();
    body.parse::<Action>().map_err(|e| {
        // `B2-C3` without its wall: say how a turn ends.
        let b = body.as_bytes();
        if b.len() == 5 && b[2] == b'-' && !body.contains('/') {
            format!("a turn ends with a wall: {body}/N, /E, /S or /W")
        } else {
            e.to_string()
        }
    })
}

/// Runs `wall play`: a terminal game between humans and bots, reading stdin line by line.
pub fn play(a: PlayArgs) -> Result<(), CliError> {
    let variant = variant_of(&a.placement, &a.stay, &a.tiebreak)?;
    let seats = [seat(&a.a)?, seat(&a.b)?];
    let any_human = seats.iter().any(|s| matches!(s, Seat::Human));
    let mut rng = Rng::new(a.seed);
    let mut game = Game::new(variant);
    let stdin = std::io::stdin();
    let mut input = stdin.lock().lines();
    let mut out = std::io::stdout().lock();
    let w = |out: &mut std::io::StdoutLock, s: &str| -> Result<(), CliError> {
        out.write_all(s.as_bytes())
            .and_then(|_| out.flush())
            .map_err(|e| CliError::input(format!("stdout: {e}")))
    };
    w(
        &mut out,
        &format!(
            "Wall Go, {variant}. A: {}, B: {}.\nActions in record notation: D4 (place), \
             B2-C3/E (move, wall side of the destination), B2 pass; '?' lists the legal ones.\n\
             To stop: quit, q or Ctrl-D (the record so far is saved with --save).\n",
            a.a, a.b
        ),
    )?;
    if any_human {
        w(&mut out, &game.position().diagram(false))?;
    }
    while !game.position().is_over() {
        let pos = *game.position();
        let who = pos.to_move();
        let action = match &seats[who.index()] {
            Seat::Bot(name) => bot_action(name, &pos, &mut rng)?,
            Seat::Human => loop {
                w(
                    &mut out,
                    &format!("{} (? actions, q quits)> ", status(&pos)),
                )?;
                let line = match input.next() {
                    Some(Ok(l)) => l,
                    Some(Err(e)) => return Err(CliError::input(format!("stdin: {e}"))),
                    None => String::from("quit"),
                };
                let line = line.trim();
                match line {
                    "" => continue,
                    "?" | "legal" => {
                        w(&mut out, &legal_text(&pos))?;
                        continue;
                    }
                    "board" => {
                        w(&mut out, &pos.diagram(false))?;
                        continue;
                    }
                    "quit" | "q" | "exit" => {
                        w(&mut out, "\n")?;
                        save(&game, a.save.as_deref())?;
                        let saved = a.save.as_ref().map_or(String::new(), |p| {
                            format!("; record so far saved to {}", p.display())
                        });
                        return Err(CliError::input(format!(
                            "game stopped before its end at {} (no result){saved}",
                            status(&pos)
                        )));
                    }
                    _ => {}
                }
                match parse_human(line, who) {
                    Err(e) => w(&mut out, &format!("cannot read '{line}': {e}\n"))?,
                    Ok(act) => match pos.check(act) {
                        Ok(()) => break act,
                        Err(rule) => w(&mut out, &format!("illegal: {act}: {rule}\n"))?,
                    },
                }
            },
        };
        game.play(action).map_err(CliError::illegal)?;
        w(&mut out, &format!("{}\n", record_line(who, action)))?;
        if any_human && !game.position().is_over() {
            w(&mut out, &game.position().diagram(false))?;
        }
    }
    let p = game.position();
    w(&mut out, &p.diagram(true))?;
    w(&mut out, &format!("{}\n{}\n", status(p), p.score()))?;
    save(&game, a.save.as_deref())
}

/// Arguments of `wall replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The record file.
    pub file: PathBuf,
}

/// Runs `wall replay`: validates the record, prints the final board and `A <n> B <n> neutral <n>`.
pub fn replay(a: ReplayArgs) -> Result<(), CliError> {
    let g = load(&a.file)?;
    let p = g.position();
    emit(&format!(
        "{}{}\n{}\n",
        p.diagram(p.is_over()),
        status(p),
        p.score()
    ))
}

/// Arguments of `wall legal`.
#[derive(Args, Debug)]
pub struct LegalArgs {
    /// The record file.
    pub file: PathBuf,
}

/// Runs `wall legal`: the number of legal actions after the last line, then one a line; on a
/// finished game, one line saying it is over, why, and the result.
pub fn legal(a: LegalArgs) -> Result<(), CliError> {
    let g = load(&a.file)?;
    let p = g.position();
    if p.is_over() {
        return emit(&format!("no legal actions: {}\n", status(p)));
    }
    let mut l = ActionList::new();
    p.legal_actions(&mut l);
    let mut s = format!("{}\n", l.len());
    for &act in l.iter() {
        s.push_str(&record_line(p.to_move(), act));
        s.push('\n');
    }
    emit(&s)
}

/// Arguments of `wall perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The record file.
    pub file: PathBuf,
    /// Length of the action sequences to count.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Also print the count below each legal action.
    #[arg(long)]
    pub divide: bool,
}

/// Runs `wall perft`: the number of action sequences of length `--depth` from the position.
pub fn perft(a: PerftArgs) -> Result<(), CliError> {
    let g = load(&a.file)?;
    let p = *g.position();
    if a.divide && a.depth > 0 {
        let mut l = ActionList::new();
        p.legal_actions(&mut l);
        let mut total = 0;
        let mut s = String::new();
        for &act in l.iter() {
            let mut q = p;
            q.apply_unchecked(act);
            let n = baduk_wallgo::perft(&q, a.depth - 1);
            total += n;
            s.push_str(&format!("{} {n}\n", record_line(p.to_move(), act)));
        }
        emit(&format!("{s}{total}\n"))
    } else {
        emit(&format!("{}\n", baduk_wallgo::perft(&p, a.depth)))
    }
}

/// Arguments of `bench wall`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Number of random games.
    #[arg(long, default_value_t = 20_000)]
    pub games: u64,
    /// Seed of the random games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Perft that lists the actions of every node, leaves included: returns the actions generated.
fn perft_generate(p: &Position, depth: u32, lists: &mut [ActionList]) -> u64 {
    let (l, rest) = match lists.split_first_mut() {
        Some(x) => x,
        None => return 0,
    };
    p.legal_actions(l);
    let n = l.len() as u64;
    if depth <= 1 {
        return n;
    }
    let mut sum = 0;
    for i in 0..l.len() {
        let mut q = *p;
        q.apply_unchecked(l[i]);
        sum += perft_generate(&q, depth - 1, rest);
    }
    sum
}

/// Runs `bench wall`: random games per second and legal actions generated per second, with a
/// deterministic signature line.
pub fn bench(a: BenchArgs) -> Result<(), CliError> {
    if a.games == 0 {
        return Err(CliError::input("--games must be at least 1"));
    }
    let mut l = ActionList::new();
    let root = Rng::new(a.seed);
    // Snapshots for the generation pass (up to 64): each sampled game's position after 12 turns.
    let mut snapshots = Vec::new();
    let (mut game_actions, mut turns) = (0u64, 0u64);
    let start = Instant::now();
    for g in 0..a.games {
        let mut rng = root.fork(g);
        let mut p = Position::new(Variant::default());
        if g % (a.games / 64).max(1) == 0 && snapshots.len() < 64 {
            while !p.is_over() && p.turns_played() < 12 {
                p.legal_actions(&mut l);
                game_actions += l.len() as u64;
                p.apply_unchecked(l[rng.below(l.len())]);
            }
            snapshots.push(p);
        }
        game_actions += play_random(&mut p, &mut rng, &mut l);
        turns += p.turns_played() as u64;
    }
    let t_games = start.elapsed().as_secs_f64();
    let mut lists = vec![ActionList::new(); 3];
    let start = Instant::now();
    let mut generated = 0u64;
    for p in &snapshots {
        generated += perft_generate(p, 3, &mut lists);
    }
    let t_gen = start.elapsed().as_secs_f64();
    emit(&format!(
        "signature: games {} turns {turns} actions {game_actions} perft3 {generated}\n\
         random games per second: {:.0} ({:.3} s)\n\
         actions generated per second: {:.1} million (perft 3 over {} positions, {generated} \
         actions, {:.3} s)\n",
        a.games,
        a.games as f64 / t_games.max(1e-9),
        t_games,
        generated as f64 / t_gen.max(1e-9) / 1e6,
        snapshots.len(),
        t_gen
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_input_reads_record_notation_with_or_without_prefix() {
        assert_eq!(
            parse_human("turn B F2-F4/W", Player::B),
            Ok("F2-F4/W".parse().unwrap())
        );
        assert_eq!(parse_human("D4", Player::A), Ok("D4".parse().unwrap()));
        assert!(parse_human("turn A F2-F4/W", Player::B).is_err());
        assert!(parse_human("hello", Player::B).is_err());
        assert_eq!(
            parse_human("B2-C3", Player::A),
            Err("a turn ends with a wall: B2-C3/N, /E, /S or /W".to_string())
        );
    }

    #[test]
    fn legal_actions_are_grouped_by_piece_and_never_broken() {
        let mut g = Game::new(Variant::default());
        for c in ["D4", "C3", "E5", "D2"] {
            g.play(c.parse().unwrap()).unwrap();
        }
        let t = legal_text(g.position());
        let mut l = ActionList::new();
        g.position().legal_actions(&mut l);
        let mut seen = 0;
        for line in t.lines().skip(1) {
            assert!(line.chars().count() <= 78, "{line}");
            for tok in line.split_whitespace().filter(|w| !w.ends_with(':')) {
                assert!(
                    tok.parse::<Action>().is_ok() || tok == "pass",
                    "{tok} in {line}"
                );
                seen += usize::from(tok != "pass");
            }
        }
        assert_eq!(seen, l.len(), "{t}");
        // Each piece's actions start its own line: `  D2: D2-C1/E …`.
        let groups = t
            .lines()
            .filter(|l| l.as_bytes().get(4) == Some(&b':'))
            .count();
        assert_eq!(groups, 4, "one group per piece of the side to move: {t}");
    }

    #[test]
    fn unknown_bot_is_an_input_error() {
        assert!(seat("grandmaster").is_err());
        assert!(seat("random").is_ok());
        let p = Position::new(Variant::default());
        assert_eq!(
            bot_action("nobody", &p, &mut Rng::new(1)).unwrap_err().code,
            2
        );
    }
}
