//! `baduk go score` (one finished game under several rule sets, side by side) and `baduk go
//! life` (GNU Go's unconditional status of every point: Benson plus unconditionally dead stones).

use crate::CliError;
use baduk_go::life::{self, EstimateConfig};
use baduk_go::scoring::record::Record;
use baduk_go::scoring::table::{self, apply_komi, KomiChoice};
use baduk_go::{Color, Komi, Point, Preset, Rules, SgfGame};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `go score`.
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// The SGF file of the game.
    pub file: PathBuf,
    /// Rule sets: `all`, or comma-separated presets; a `key=value` item modifies the preset (or
    /// the `all` group) just before it, e.g. `chinese,komi=6.5,japanese`.
    #[arg(long, default_value = "all")]
    pub rules: String,
    /// Print a JSON array instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Score an unfinished game as if it ended now.
    #[arg(long)]
    pub now: bool,
    /// Seed of the dead-stone estimator's playouts.
    #[arg(long, default_value_t = EstimateConfig::default().seed)]
    pub seed: u64,
    /// Number of estimator playouts.
    #[arg(long, default_value_t = EstimateConfig::default().playouts)]
    pub playouts: u32,
    /// Ing time extensions used by Black and White, `B,W` (2 points each, a fourth loses).
    #[arg(long, value_name = "B,W")]
    pub ing_extensions: Option<String>,
    /// Komi of every row: `game` (the komi the game was played with: the file's `KM`, else each
    /// rule set's own), `preset` (each rule set's own komi, as the book's tables compare), or a
    /// number such as 6.5. A `komi=` in `--rules` wins over all three.
    #[arg(long, default_value = "game", value_name = "game|preset|N")]
    pub komi: String,
    /// Which game of a collection (1-based; default the first).
    #[arg(long)]
    pub game: Option<usize>,
}

fn parse_komi_choice(s: &str) -> Result<KomiChoice, CliError> {
    match s.trim() {
        "game" => Ok(KomiChoice::Game),
        "preset" => Ok(KomiChoice::Preset),
        n => Komi::parse(n)
            .map(KomiChoice::Fixed)
            .map_err(|e| CliError::input(format!("--komi: `game`, `preset` or a number: {e}"))),
    }
}

/// Parses `B,W` extension counts.
fn parse_extensions(s: &str) -> Result<[u32; 2], CliError> {
    let bad = || CliError::input(format!("--ing-extensions `{s}`: expected B,W such as 1,0"));
    let (b, w) = s.split_once(',').ok_or_else(bad)?;
    Ok([
        b.trim().parse().map_err(|_| bad())?,
        w.trim().parse().map_err(|_| bad())?,
    ])
}

/// Parses `all|PRESET[,key=value…][,PRESET…]`: each `key=value` item modifies the preceding
/// preset, or every preset of a preceding `all`. Each rule set comes with whether the string
/// set its komi.
pub fn parse_rules_list(s: &str) -> Result<Vec<(Rules, bool)>, CliError> {
    let mut out: Vec<(Rules, bool)> = Vec::new();
    let mut group_start = 0;
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        if let Some((k, v)) = item.split_once('=') {
            if out.is_empty() {
                return Err(CliError::input(format!(
                    "--rules: `{item}` must follow a preset it modifies (e.g. chinese,{item})"
                )));
            }
            for (r, komi_set) in &mut out[group_start..] {
                r.set(k.trim(), v.trim())
                    .map_err(|e| CliError::input(format!("--rules: {e}")))?;
                *komi_set |= k.trim() == "komi";
            }
        } else if item.eq_ignore_ascii_case("all") {
            group_start = out.len();
            out.extend(Rules::presets().map(|r| (r, false)));
        } else {
            let p = Preset::parse(&item.to_ascii_lowercase())
                .map_err(|e| CliError::input(format!("--rules: {e} (or `all`)")))?;
            group_start = out.len();
            out.push((Rules::preset(p), false));
        }
    }
    if out.is_empty() {
        return Err(CliError::input("--rules: no rule set given"));
    }
    Ok(out)
}

/// The game (read by the one SGF reader) and the scorer's view of it after `upto` moves. A
/// move onto a stone is an illegal move (exit 1), as `go replay` reports it.
fn read_record(
    path: &std::path::Path,
    upto: Option<usize>,
    game: Option<usize>,
) -> Result<(SgfGame, Record), CliError> {
    let g = crate::error::read_sgf(path, game)?;
    let rec = Record::from_game(&g, upto)
        .map_err(|e| CliError::illegal(format!("{}: {e}", path.display())))?;
    Ok((g, rec))
}

/// The rules string without the board size (the header gives it) and komi (its own column).
fn rules_name(r: &Rules) -> String {
    r.to_string()
        .split(',')
        .filter(|part| !part.starts_with("size=") && !part.starts_with("komi="))
        .collect::<Vec<_>>()
        .join(",")
}

fn point_list(ps: &[Point]) -> String {
    ps.iter()
        .map(Point::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `go score`.
pub fn score(a: ScoreArgs) -> Result<(), CliError> {
    let choice = parse_komi_choice(&a.komi)?;
    let mut list = parse_rules_list(&a.rules)?;
    let (game, mut rec) = read_record(&a.file, None, a.game)?;
    if let Some(e) = &a.ing_extensions {
        rec.facts.time_extensions = parse_extensions(e)?;
    }
    let size = rec.board.size();
    let komi_line = apply_komi(&mut list, choice, rec.komi);
    let list = table::with_ends(&game, &rec, list);
    let jk_finished = table::jk_finished(&list);
    if !rec.finished && !a.now && !jk_finished {
        return Err(CliError::input(format!(
            "{}: the game is not finished (its last two moves are not passes; {} moves); \
             use --now to score it as if it ended now",
            a.file.display(),
            rec.moves
        )));
    }
    let cfg = EstimateConfig {
        playouts: a.playouts,
        seed: a.seed,
    };
    let est = life::from_marks(&rec.board, &rec.marks)
        .unwrap_or_else(|| life::estimate(&rec.board, &cfg));
    let rows = table::rows(&rec, &est, list, jk_finished);
    if a.json {
        let arr: Vec<_> = rows
            .iter()
            .map(|row| row.to_json(choice, rec.komi))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&arr).map_err(|e| CliError::input(e.to_string()))?
        );
        return Ok(());
    }
    println!(
        "{}: {}x{}, {} moves{}{}{}{}",
        a.file.display(),
        size.cols(),
        size.rows(),
        rec.moves,
        if rec.finished {
            ", finished (two passes)"
        } else if jk_finished {
            ", finished by a JK art. 4.3 sequence"
        } else {
            ", NOT finished: scored as if it ended now (--now)"
        },
        rec.rules_name.as_ref().map_or(String::new(), |r| {
            // As the SGF reader takes it: an SGF rules name, or a rules string (ours).
            if Rules::from_sgf(r, size).is_ok() || Rules::parse(&r.to_ascii_lowercase()).is_ok() {
                format!(", RU[{r}]")
            } else {
                format!(", RU[{r}] (not a rule set this program knows; scored under --rules)")
            }
        }),
        rec.komi.map_or(String::new(), |k| format!(", KM[{k}]")),
        rec.result
            .as_ref()
            .map_or(String::new(), |r| format!(", RE[{r}]")),
    );
    if game.players.iter().any(Option::is_some) {
        let name = |c: Color| {
            game.players[c.index()]
                .clone()
                .unwrap_or_else(|| "?".into())
        };
        println!(
            "Black {} – White {}",
            name(Color::Black),
            name(Color::White)
        );
    }
    if rec.facts.handicap >= 2 {
        println!(
            "handicap {} (HA): the set-up stones stay as recorded; each rule set's handicap \
             compensation is in the notes",
            rec.facts.handicap
        );
    }
    println!("{komi_line}");
    println!(
        "captures: B {} W {}; passes: B {} W {}; last move by {}",
        rec.facts.captures[0],
        rec.facts.captures[1],
        rec.facts.passes[0],
        rec.facts.passes[1],
        rec.facts
            .last_mover
            .map_or("nobody".to_string(), |c| c.to_string())
    );
    let dead = est.dead_stones();
    if est.from_marks {
        println!(
            "dead stones from the file's marks (TB/TW/MA): {}",
            if dead.is_empty() {
                "none".into()
            } else {
                point_list(&dead)
            }
        );
    } else {
        println!(
            "no dead-stone marks in the file: the estimator decided (Benson + {} playouts, seed {}); dead: {}",
            cfg.playouts,
            cfg.seed,
            if dead.is_empty() {
                "none".into()
            } else {
                point_list(&dead)
            }
        );
    }
    let jk_rows: Vec<String> = rows
        .iter()
        .filter(|r| r.dead_from == "jk_ending")
        .map(|r| rules_name(&r.rules))
        .collect();
    if !dead.is_empty() && !jk_rows.is_empty() {
        println!(
            "  (not under {}: a game ended by a JK art. 4.3 sequence has no dead stones)",
            jk_rows.join(", ")
        );
    }
    let seki: Vec<Point> = est.seki.points.iter().collect();
    if !seki.is_empty() {
        println!("seki points: {}", point_list(&seki));
    }
    println!();
    let header = ["rules", "komi", "black", "white", "result", "notes"];
    let body: Vec<[String; 6]> = rows
        .iter()
        .map(|row| {
            let s = &row.score;
            let mut notes = s.notes.clone();
            notes.extend(row.notes.iter().cloned());
            [
                rules_name(&row.rules),
                row.rules.komi.to_string(),
                s.black.to_string(),
                s.white.to_string(),
                s.outcome.text(),
                notes.join("; "),
            ]
        })
        .collect();
    let mut w = [0usize; 6];
    for (i, h) in header.iter().enumerate() {
        w[i] = h.chars().count();
    }
    for r in &body {
        for i in 0..6 {
            w[i] = w[i].max(r[i].chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut s = String::new();
        for i in 0..6 {
            let pad = w[i] - cells[i].chars().count();
            if i == 5 {
                s.push_str(cells[i]);
            } else if (1..=3).contains(&i) {
                s.push_str(&" ".repeat(pad));
                s.push_str(cells[i]);
                s.push_str("  ");
            } else {
                s.push_str(cells[i]);
                s.push_str(&" ".repeat(pad + 2));
            }
        }
        println!("{}", s.trim_end());
    };
    line(header);
    for r in &body {
        line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]);
    }
    Ok(())
}

/// Arguments of `go life`.
#[derive(Args, Debug)]
pub struct LifeArgs {
    /// The SGF file.
    pub file: PathBuf,
    /// Use the position after this many moves (default: the end of the main line).
    #[arg(long = "move")]
    pub move_number: Option<usize>,
    /// Print only `<point> <status>` per point, top row first (GNU Go's words), for scripts.
    #[arg(long)]
    pub points: bool,
    /// Which game of a collection (1-based; default the first).
    #[arg(long)]
    pub game: Option<usize>,
}

/// The diagram letter of a point's unconditional status.
fn life_mark(u: life::Unconditional, stone: Option<Color>) -> char {
    use life::Unconditional as U;
    match (u, stone) {
        (U::Alive, Some(Color::Black)) => 'X',
        (U::Alive, Some(Color::White)) => 'O',
        (U::Dead, Some(Color::Black)) => 'x',
        (U::Dead, Some(Color::White)) => 'o',
        (_, Some(Color::Black)) => 'B',
        (_, Some(Color::White)) => 'W',
        (U::BlackTerritory, None) => '+',
        (U::WhiteTerritory, None) => '-',
        (_, None) => '.',
    }
}

/// Runs `go life`: the board marked by GNU Go's unconditional status (Benson's life plus
/// unconditionally dead stones) and a one-line summary; `--points` prints the per-point lines.
pub fn life(a: LifeArgs) -> Result<(), CliError> {
    let (_, rec) = read_record(&a.file, a.move_number, a.game)?;
    if let Some(n) = a.move_number {
        if n > rec.total_moves {
            return Err(CliError::input(format!(
                "--move {n}: the game has only {} moves",
                rec.total_moves
            )));
        }
    }
    let b = &rec.board;
    let verdict = life::unconditional(b);
    let size = b.size();
    if a.points {
        let mut out = String::with_capacity(size.area() * 16);
        for y in (0..size.rows()).rev() {
            for x in 0..size.cols() {
                let p = Point::new(x, y);
                out.push_str(&format!("{p} {}\n", verdict.status(b, p)));
            }
        }
        print!("{out}");
        return Ok(());
    }
    use life::Unconditional as U;
    let mut alive = [0usize; 2];
    let mut dead = [0usize; 2];
    let mut territory = [0usize; 2];
    let mut undecided = 0;
    let cols: Vec<char> = (0..size.cols())
        .map(|x| {
            Point::new(x, 0)
                .to_gtp()
                .chars()
                .next()
                .expect("a GTP vertex starts with its column")
        })
        .collect();
    let head: String = cols.iter().map(|c| format!(" {c}")).collect();
    let mut out = format!("   {}\n", head.trim_start());
    for y in (0..size.rows()).rev() {
        out.push_str(&format!("{:>2}", y + 1));
        for x in 0..size.cols() {
            let p = Point::new(x, y);
            let stone = b.get(p);
            let u = verdict.status(b, p);
            match (u, stone) {
                (U::Alive, Some(c)) => alive[c.index()] += 1,
                (U::Dead, Some(c)) => dead[c.index()] += 1,
                (U::BlackTerritory, None) => territory[0] += 1,
                (U::WhiteTerritory, None) => territory[1] += 1,
                _ => undecided += 1,
            }
            out.push(' ');
            out.push(life_mark(u, stone));
        }
        out.push('\n');
    }
    print!("{out}");
    println!(
        "X O alive, x o dead, B W undecided stones, + black territory, - white territory, \
         . undecided"
    );
    println!(
        "alive B: {} stones, W: {}; dead B: {}, W: {}; territory B: {}, W: {}; undecided {} points",
        alive[0], alive[1], dead[0], dead[1], territory[0], territory[1], undecided
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_list_items_with_equals_modify_the_preceding_preset() {
        let l = parse_rules_list("chinese,komi=6.5,japanese").unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].0.to_string(), "chinese,komi=6.5");
        assert_eq!(l[1].0.to_string(), "japanese");
        assert_eq!((l[0].1, l[1].1), (true, false));
        let all = parse_rules_list("all,komi=0").unwrap();
        assert_eq!(all.len(), 9);
        assert!(all.iter().all(|(r, set)| r.komi.halves() == 0 && *set));
        assert!(parse_rules_list("komi=6.5").is_err());
        assert!(parse_rules_list("chinese,colour=red").is_err());
        assert!(parse_rules_list("martian").is_err());
        assert_eq!(parse_extensions("1, 0").unwrap(), [1, 0]);
        assert!(parse_extensions("1").is_err());
    }

    #[test]
    fn komi_follows_the_record_unless_told_otherwise() {
        let km = Some(Komi::parse("7").unwrap());
        let mut l = parse_rules_list("chinese,japanese,aga,komi=0.5").unwrap();
        let line = apply_komi(&mut l, KomiChoice::Game, km);
        assert_eq!(
            line.split(';').next(),
            Some("komi 7 from the record (KM[7])")
        );
        let k: Vec<String> = l.iter().map(|(r, _)| r.komi.to_string()).collect();
        // A komi= in the rules string wins.
        assert_eq!(k, ["7", "7", "0.5"]);
        let mut l = parse_rules_list("chinese,japanese").unwrap();
        apply_komi(&mut l, KomiChoice::Preset, km);
        let k: Vec<String> = l.iter().map(|(r, _)| r.komi.to_string()).collect();
        assert_eq!(k, ["7.5", "6.5"]);
        let mut l = parse_rules_list("chinese").unwrap();
        apply_komi(&mut l, KomiChoice::Game, None);
        assert_eq!(l[0].0.komi.to_string(), "7.5");
        assert_eq!(
            parse_komi_choice("6.5").unwrap(),
            KomiChoice::Fixed(Komi::parse("6.5").unwrap())
        );
        assert!(parse_komi_choice("lots").is_err());
    }
}
