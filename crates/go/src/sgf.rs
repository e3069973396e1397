//! The SGF adapter (FF\[4\], through the `sgf-parse` crate): read a game's main line with its
//! set-up (`AB`/`AW`/`AE`, `PL`), size (`SZ[19]`, `SZ[m:n]`), `HA`, `KM` and `RU`, replay it
//! under a [`Rules`], and write a [`Game`] back.
//!
//! Errors name the line of the node and the property at fault. Only set-up before the first
//! move is supported (set-up in the middle of a game is reported as an error).

use crate::board::Board;
use crate::game::{Game, IllegalMove};
use crate::point::{Color, Move, Point, Size};
use crate::rules::{Komi, Life, Rules, RulesError};
use sgf_parse::go::{self as sgo, Prop};
use sgf_parse::SgfNode;
use std::collections::HashSet;
use std::fmt;

/// An SGF text that could not be read: where (line, property) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError {
    /// 1-based line of the node (or the syntax error); 0 when unknown.
    pub line: usize,
    /// The property at fault, with its value(s), e.g. `SZ[30]`.
    pub property: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "SGF line {}", self.line)?;
        } else {
            f.write_str("SGF")?;
        }
        if let Some(p) = &self.property {
            write!(f, ", property {p}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SgfError {}

/// One move of the main line, with the line it is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SgfMove {
    /// Who moved.
    pub color: Color,
    /// What was played.
    pub mv: Move,
    /// The 1-based line of its node.
    pub line: usize,
}

/// The main line of an SGF game: set-up, game information and moves.
#[derive(Clone, Debug)]
pub struct SgfGame {
    /// Board size (`SZ`, default 19).
    pub size: Size,
    /// The position after the set-up (`AB`/`AW`/`AE` before the first move).
    pub setup: Board,
    /// Who moves first: `PL`, else the first move's colour, else Black.
    pub to_move: Color,
    /// `RU`, as written.
    pub rules_name: Option<String>,
    /// `KM`.
    pub komi: Option<Komi>,
    /// `HA` (0 when absent).
    pub handicap: u32,
    /// `RE`, as written.
    pub result: Option<String>,
    /// The moves of the main line.
    pub moves: Vec<SgfMove>,
}

/// Scans the raw text: the 1-based line of every node (`;`) in text order, or the first
/// syntax error found (line and what).
fn scan(text: &str) -> Result<Vec<usize>, (usize, String)> {
    let mut lines = Vec::new();
    let mut line = 1;
    let mut depth = 0usize;
    let mut in_value = false;
    let mut value_line = 0;
    let mut escaped = false;
    let mut seen_tree = false;
    for c in text.chars() {
        if in_value {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == ']' {
                in_value = false;
            }
        } else {
            match c {
                '(' => {
                    depth += 1;
                    seen_tree = true;
                }
                ')' => {
                    if depth == 0 {
                        return Err((line, "`)` without a matching `(`".into()));
                    }
                    depth -= 1;
                }
                ';' => {
                    if depth == 0 {
                        return Err((line, "node `;` outside a game tree `(…)`".into()));
                    }
                    lines.push(line);
                }
                '[' => {
                    in_value = true;
                    value_line = line;
                }
                ']' => return Err((line, "`]` without a matching `[`".into())),
                c if c.is_ascii_uppercase() || c.is_whitespace() => {}
                c if c.is_ascii_lowercase() => {}
                c => {
                    if depth > 0 {
                        return Err((line, format!("unexpected character `{c}`")));
                    }
                }
            }
        }
        if c == '\n' {
            line += 1;
        }
    }
    if in_value {
        return Err((value_line, "property value `[` is never closed".into()));
    }
    if depth > 0 {
        return Err((
            line,
            "the file ends inside a game tree (missing `)`)".into(),
        ));
    }
    if !seen_tree {
        return Err((line, "no game tree `(;…)` found".into()));
    }
    Ok(lines)
}

/// The property as written back, for error messages (`SZ[30]`).
fn prop_text(p: &Prop) -> String {
    match p {
        Prop::Invalid(id, vals) | Prop::Unknown(id, vals) => {
            let v: String = vals.iter().map(|v| format!("[{v}]")).collect();
            format!("{id}{v}")
        }
        other => other.to_string(),
    }
}

fn to_point(p: sgo::Point, size: Size) -> Option<Point> {
    let (x, y) = (p.x as u32, p.y as u32);
    size.contains_xy(x, y)
        .then(|| Point::new(x, size.rows() - 1 - y))
}

impl SgfGame {
    /// Reads the first game of an SGF collection.
    pub fn parse(text: &str) -> Result<SgfGame, SgfError> {
        let node_lines = scan(text).map_err(|(line, message)| SgfError {
            line,
            property: None,
            message,
        })?;
        let trees = sgo::parse(text).map_err(|e| SgfError {
            line: 0,
            property: None,
            message: format!("not a readable FF[4] Go game: {e}"),
        })?;
        let root = trees.first().ok_or_else(|| SgfError {
            line: 0,
            property: None,
            message: "no game in the file".into(),
        })?;
        // Pre-order index of each main-line node = its index in text order.
        let mut main_idx = Vec::new();
        {
            let mut idx = 0usize;
            let mut node = root;
            loop {
                main_idx.push(idx);
                match node.children().next() {
                    Some(child) => {
                        idx += 1;
                        node = child;
                    }
                    None => break,
                }
            }
        }
        let line_of = |k: usize| node_lines.get(main_idx[k]).copied().unwrap_or(0);
        let nodes: Vec<&SgfNode<Prop>> = root.main_variation().collect();

        let err = |k: usize, p: &Prop, message: String| SgfError {
            line: line_of(k),
            property: Some(prop_text(p)),
            message,
        };

        // Root information first: the size decides how points read.
        let mut size = Size::nineteen();
        for p in root.properties() {
            match p {
                Prop::SZ((c, r)) => {
                    size = Size::new(*c as u32, *r as u32).map_err(|e| err(0, p, e.to_string()))?
                }
                Prop::Invalid(id, _) if id == "SZ" => {
                    return Err(err(0, p, "SZ is `N` or `cols:rows`".into()))
                }
                _ => {}
            }
        }
        let mut g = SgfGame {
            size,
            setup: Board::new(size),
            to_move: Color::Black,
            rules_name: None,
            komi: None,
            handicap: 0,
            result: None,
            moves: Vec::new(),
        };
        let mut pl = None;
        for (k, node) in nodes.iter().enumerate() {
            for p in node.properties() {
                match p {
                    Prop::RU(t) => g.rules_name = Some(t.text.clone()),
                    Prop::KM(v) => {
                        let komi =
                            Komi::parse(&v.to_string()).map_err(|e| err(k, p, e.to_string()))?;
                        g.komi = Some(komi);
                    }
                    Prop::HA(n) => {
                        g.handicap =
                            u32::try_from(*n).map_err(|_| err(k, p, "bad handicap".into()))?
                    }
                    Prop::RE(t) => g.result = Some(t.text.clone()),
                    Prop::PL(c) if g.moves.is_empty() => {
                        pl = Some(match c {
                            sgf_parse::Color::Black => Color::Black,
                            sgf_parse::Color::White => Color::White,
                        });
                    }
                    Prop::AB(s) | Prop::AW(s) | Prop::AE(s) => {
                        if !g.moves.is_empty() {
                            return Err(err(
                                k,
                                p,
                                "set-up after the first move is not supported".into(),
                            ));
                        }
                        let stone = match p {
                            Prop::AB(_) => Some(Color::Black),
                            Prop::AW(_) => Some(Color::White),
                            _ => None,
                        };
                        g.apply_setup(s, stone).map_err(|why| err(k, p, why))?;
                    }
                    Prop::B(m) | Prop::W(m) => {
                        let color = if matches!(p, Prop::B(_)) {
                            Color::Black
                        } else {
                            Color::White
                        };
                        let mv = match *m {
                            sgo::Move::Pass => Move::Pass,
                            sgo::Move::Move(pt) => {
                                if pt.x == 19
                                    && pt.y == 19
                                    && size.cols() <= 19
                                    && size.rows() <= 19
                                {
                                    Move::Pass
                                } else {
                                    Move::Play(to_point(pt, size).ok_or_else(|| {
                                        err(k, p, format!("the move is off the {size} board"))
                                    })?)
                                }
                            }
                        };
                        g.moves.push(SgfMove {
                            color,
                            mv,
                            line: line_of(k),
                        });
                    }
                    // sgf-parse rejects HA[0] and HA[1], which real files carry: no handicap.
                    Prop::Invalid(id, vals)
                        if id == "HA"
                            && matches!(vals.first().map(|v| v.trim()), Some("0") | Some("1")) => {}
                    Prop::Invalid(id, _) => {
                        let what = match id.as_str() {
                            "B" | "W" => "not a move (two letters a–z/A–Z, or empty for a pass)",
                            "AB" | "AW" | "AE" => "not a list of points",
                            "KM" => "not a number",
                            "HA" => "not a handicap of 2 or more",
                            "SZ" => "SZ is `N` or `cols:rows`",
                            _ => "invalid value",
                        };
                        if matches!(
                            id.as_str(),
                            "B" | "W" | "AB" | "AW" | "AE" | "KM" | "HA" | "SZ" | "PL"
                        ) {
                            return Err(err(k, p, what.into()));
                        }
                    }
                    _ => {}
                }
            }
            if let Some(bad) = node
                .properties()
                .find(|p| matches!(p, Prop::B(_)))
                .and(node.properties().find(|p| matches!(p, Prop::W(_))))
            {
                return Err(err(k, bad, "a node holds both a B and a W move".into()));
            }
        }
        g.to_move = pl
            .or_else(|| g.moves.first().map(|m| m.color))
            .unwrap_or(Color::Black);
        Ok(g)
    }

    fn apply_setup(
        &mut self,
        pts: &HashSet<sgo::Point>,
        stone: Option<Color>,
    ) -> Result<(), String> {
        let mut sorted: Vec<_> = pts.iter().copied().collect();
        sorted.sort_by_key(|p| (p.x, p.y));
        for pt in sorted {
            let p = to_point(pt, self.size)
                .ok_or_else(|| format!("a set-up point is off the {} board", self.size))?;
            self.setup.set(p, stone).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The rules to replay under: `given` if any (on the file's size), else `RU` (a preset name
    /// or a rules string; an unknown name is an error listing the accepted ones; none means
    /// `japanese`) with `KM`.
    pub fn rules(&self, given: Option<Rules>) -> Result<Rules, RulesError> {
        if let Some(r) = given {
            return Ok(r.with_size(self.size));
        }
        let mut r = match &self.rules_name {
            Some(name) => match Rules::from_sgf(name, self.size) {
                Ok(r) => r,
                // Our own writer stores non-preset rules as a rules string.
                Err(e) => Rules::parse(&name.to_ascii_lowercase())
                    .map(|r| r.with_size(self.size))
                    .map_err(|_| e)?,
            },
            None => Rules::default().with_size(self.size),
        };
        if let Some(k) = self.komi {
            r.komi = k;
        }
        Ok(r)
    }

    /// Replays the first `upto` moves (all if `None`) under `rules`; the first illegal move
    /// is returned as an error. Moves after a two-pass ending resume play (a dispute played
    /// out), except under `life=as-is`, where the passes are final.
    pub fn replay(&self, rules: Rules, upto: Option<usize>) -> Result<Game, IllegalMove> {
        let mut game = Game::from_position(rules, self.setup.clone(), self.to_move);
        game.set_handicap(self.handicap);
        let n = upto.unwrap_or(self.moves.len()).min(self.moves.len());
        for m in &self.moves[..n] {
            if game.rules().life != Life::AsIs {
                game.resume();
            }
            game.play_as(m.color, m.mv)?;
        }
        Ok(game)
    }
}

/// Game information written into a record's root besides what the game itself holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SgfInfo {
    /// `PB`: Black's name.
    pub black: Option<String>,
    /// `PW`: White's name.
    pub white: Option<String>,
    /// `RE`: the result (`B+3.5`, `W+R`, `0`).
    pub result: Option<String>,
    /// `DT`: the date (`2026-01-31`); `write` puts today's (UTC).
    pub date: Option<String>,
    /// `C`: a comment on the root.
    pub comment: Option<String>,
}

/// Today's date (UTC) as SGF's `DT` writes it: `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date((secs / 86_400) as i64)
}

/// The proleptic Gregorian date `days` days after 1970-01-01, as `YYYY-MM-DD`.
fn civil_date(days: i64) -> String {
    // Days since 0000-03-01, in 400-year eras of 146,097 days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Writes `game` as an FF\[4\] SGF (with today's date): see [`write_with`].
pub fn write(game: &Game) -> String {
    write_with(
        game,
        &SgfInfo {
            date: Some(today()),
            ..SgfInfo::default()
        },
    )
}

/// Writes `game` as an FF\[4\] SGF that strict readers (sgfmill, Sabaki) accept: a root with
/// `FF[4]GM[1]CA[UTF-8]AP[baduk:version]`, `SZ[19]` (`SZ[m:n]` only for rectangles), `RU`,
/// `KM`, `HA`, the `info` given, set-up and `PL`, then every move of its history (moves after
/// two passes included, so that the moves lead to the position that was scored).
pub fn write_with(game: &Game, info: &SgfInfo) -> String {
    let size = game.board().size();
    let rules = game.rules();
    let to_sgo = |p: Point| sgo::Point {
        x: p.x() as u8,
        y: (size.rows() - 1 - p.y()) as u8,
    };
    let base = Rules::preset(rules.preset).with_size(size);
    let plain_preset = base
        == Rules {
            komi: base.komi,
            ..*rules
        };
    let text = |t: &str| sgf_parse::SimpleText {
        text: t.to_string(),
    };
    let mut root = vec![
        Prop::FF(4),
        Prop::GM(1),
        Prop::CA(text("UTF-8")),
        Prop::AP((text("baduk"), text(env!("CARGO_PKG_VERSION")))),
        // FF[4]: `SZ[m:n]` is for rectangles only; a square board is `SZ[n]`.
        if size.cols() == size.rows() {
            Prop::Unknown("SZ".into(), vec![size.cols().to_string()])
        } else {
            Prop::SZ((size.cols() as u8, size.rows() as u8))
        },
        Prop::RU(sgf_parse::SimpleText {
            // A plain preset (any komi) goes by its SGF name; anything else as a rules string.
            text: if plain_preset {
                rules.sgf_name().to_string()
            } else {
                rules.name()
            },
        }),
        Prop::KM(rules.komi.as_f64()),
    ];
    if game.handicap() >= 2 {
        root.push(Prop::HA(game.handicap() as i64));
    }
    for (value, prop) in [
        (&info.black, Prop::PB as fn(sgf_parse::SimpleText) -> Prop),
        (&info.white, Prop::PW),
        (&info.result, Prop::RE),
        (&info.date, Prop::DT),
    ] {
        if let Some(v) = value {
            root.push(prop(text(v)));
        }
    }
    if let Some(c) = &info.comment {
        root.push(Prop::C(sgf_parse::Text { text: c.clone() }));
    }
    let start = game.start_board();
    for (c, mk) in [
        (Color::Black, Prop::AB as fn(HashSet<sgo::Point>) -> Prop),
        (Color::White, Prop::AW),
    ] {
        let set: HashSet<sgo::Point> = start
            .points()
            .filter(|&p| start.get(p) == Some(c))
            .map(to_sgo)
            .collect();
        if !set.is_empty() {
            root.push(mk(set));
        }
    }
    if game.start_to_move() == Color::White {
        root.push(Prop::PL(sgf_parse::Color::White));
    }
    let mut nodes: Vec<Vec<Prop>> = vec![root];
    for r in game.history() {
        let m = match r.mv {
            Move::Pass => sgo::Move::Pass,
            Move::Play(p) => sgo::Move::Move(to_sgo(p)),
        };
        nodes.push(vec![match r.color {
            Color::Black => Prop::B(m),
            Color::White => Prop::W(m),
        }]);
    }
    let mut child: Option<SgfNode<Prop>> = None;
    for (i, props) in nodes.into_iter().enumerate().rev() {
        child = Some(SgfNode::new(props, child.into_iter().collect(), i == 0));
    }
    child.map(|c| c.serialize()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Preset;

    #[test]
    fn reads_size_setup_komi_rules_and_passes() {
        let text = "(;FF[4]GM[1]SZ[9]KM[6.5]RU[Chinese]HA[2]AB[cc][gg]PL[W]\n;W[ee]\n;B[]\n;W[tt])";
        let g = SgfGame::parse(text).unwrap();
        assert_eq!(g.size, Size::square(9).unwrap());
        assert_eq!(g.komi, Some(Komi::from_halves(13)));
        assert_eq!(g.handicap, 2);
        assert_eq!(g.to_move, Color::White);
        assert_eq!(g.setup.stone_count(Color::Black), 2);
        assert_eq!(
            g.setup.get(Point::from_gtp("C7", g.size).unwrap()),
            Some(Color::Black)
        );
        assert_eq!(g.moves.len(), 3);
        assert_eq!(g.moves[1].mv, Move::Pass);
        assert_eq!(g.moves[2].mv, Move::Pass);
        assert_eq!(g.moves[2].line, 4);
        let r = g.rules(None).unwrap();
        assert_eq!((r.preset, r.komi), (Preset::Chinese, Komi::from_halves(13)));
        let game = g.replay(r, None).unwrap();
        assert_eq!(game.move_count(), 3);
    }

    #[test]
    fn moves_after_two_passes_resume_play_unless_life_is_as_is() {
        let g = SgfGame::parse("(;SZ[5];B[cc];W[];B[];W[dd])").unwrap();
        let game = g.replay(Rules::preset(Preset::Japanese), None).unwrap();
        assert_eq!(game.move_count(), 4);
        let e = g
            .replay(Rules::preset(Preset::TrompTaylor), None)
            .unwrap_err();
        assert!(
            e.to_string().starts_with("move 4 W D2: the game is over"),
            "{e}"
        );
    }

    #[test]
    fn reads_rectangular_sizes() {
        let g = SgfGame::parse("(;SZ[7:5]HA[0];B[ae])").unwrap();
        assert_eq!(g.size, Size::new(7, 5).unwrap());
        assert_eq!(
            g.moves[0].mv,
            Move::Play(Point::from_gtp("A1", g.size).unwrap())
        );
    }

    #[test]
    fn tt_is_a_move_on_boards_above_19() {
        let g = SgfGame::parse("(;SZ[21];B[tt])").unwrap();
        assert_eq!(g.moves[0].mv, Move::Play(Point::new(19, 1)));
    }

    #[test]
    fn errors_name_line_and_property() {
        let e = SgfGame::parse("(;SZ[30]\n;B[aa])").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.to_string().contains("SZ"), "{e}");
        let e = SgfGame::parse("(;SZ[9]\n;B[aa]\n;W[zz])").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(e.to_string().contains("W[zz]"), "{e}");
        let e = SgfGame::parse("(;SZ[9]\n;B[aa\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = SgfGame::parse("(;SZ[9];B[aa]").unwrap_err();
        assert!(e.to_string().contains("missing `)`"), "{e}");
        let e = SgfGame::parse("(;SZ[9]KM[nan])").unwrap_err();
        assert!(e.to_string().contains("KM"), "{e}");
        assert!(SgfGame::parse("").is_err());
        assert!(SgfGame::parse("hello").is_err());
    }

    #[test]
    fn unknown_ru_lists_the_accepted_names() {
        let g = SgfGame::parse("(;RU[Martian])").unwrap();
        let e = g.rules(None).unwrap_err().to_string();
        assert!(e.contains("Japanese") && e.contains("New Zealand"), "{e}");
        assert!(g.rules(Some(Rules::preset(Preset::Aga))).is_ok());
    }

    #[test]
    fn write_then_read_round_trips() {
        let text = "(;SZ[9]RU[AGA]KM[7.5]AB[cc]AW[gg];B[ee];W[];B[dd])";
        let g = SgfGame::parse(text).unwrap();
        let game = g.replay(g.rules(None).unwrap(), None).unwrap();
        let out = write(&game);
        let back = SgfGame::parse(&out).unwrap();
        assert_eq!(back.setup, g.setup);
        assert_eq!(
            back.moves
                .iter()
                .map(|m| (m.color, m.mv))
                .collect::<Vec<_>>(),
            g.moves.iter().map(|m| (m.color, m.mv)).collect::<Vec<_>>()
        );
        assert_eq!(back.rules(None).unwrap(), game.rules().clone());
    }
}

#[cfg(test)]
mod strict_tests {
    //! Our SGF read by the rules a strict FF[4] reader (sgfmill, @sabaki/sgf) applies.

    use super::*;
    use crate::rules::Preset;

    /// The root node's properties as (identifier, raw values), refusing what a strict reader
    /// refuses: lower-case identifiers, a repeated property, an unescaped `]`.
    fn strict_root(sgf: &str) -> Vec<(String, Vec<String>)> {
        let body = sgf.trim();
        assert!(body.starts_with("(;"), "{body}");
        let mut props: Vec<(String, Vec<String>)> = Vec::new();
        let mut chars = body[2..].chars().peekable();
        loop {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            let mut id = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_ascii_uppercase() {
                    id.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            if id.is_empty() {
                let next = chars.next();
                assert!(
                    matches!(next, Some(';') | Some(')')),
                    "junk {next:?} in {sgf}"
                );
                break;
            }
            let mut values = Vec::new();
            while chars.peek() == Some(&'[') {
                chars.next();
                let mut v = String::new();
                loop {
                    match chars.next().expect("a value is closed") {
                        '\\' => {
                            v.push('\\');
                            v.push(chars.next().unwrap());
                        }
                        ']' => break,
                        c => v.push(c),
                    }
                }
                values.push(v);
            }
            assert!(!values.is_empty(), "{id} without a value");
            assert!(props.iter().all(|(p, _)| *p != id), "{id} repeated");
            props.push((id, values));
        }
        props
    }

    fn value<'a>(props: &'a [(String, Vec<String>)], id: &str) -> Option<&'a str> {
        props
            .iter()
            .find(|(p, _)| p == id)
            .map(|(_, v)| v[0].as_str())
    }

    #[test]
    fn square_boards_are_written_sz_n_and_the_root_has_ff4_fields() {
        for n in [9u32, 13, 19, 25, 2] {
            let rules = Rules::preset(Preset::Chinese).with_size(Size::square(n).unwrap());
            let mut g = Game::new(rules);
            g.play(Move::Play(Point::new(0, 0))).unwrap();
            let out = write(&g);
            let root = strict_root(&out);
            assert_eq!(value(&root, "SZ"), Some(n.to_string().as_str()), "{out}");
            assert!(!out.contains(&format!("SZ[{n}:{n}]")), "{out}");
            assert_eq!(value(&root, "FF"), Some("4"));
            assert_eq!(value(&root, "GM"), Some("1"));
            assert_eq!(value(&root, "CA"), Some("UTF-8"));
            let ap = value(&root, "AP").unwrap();
            assert_eq!(ap, format!("baduk:{}", env!("CARGO_PKG_VERSION")));
            let dt = value(&root, "DT").unwrap();
            assert!(
                dt.len() == 10 && dt.as_bytes()[4] == b'-' && dt.as_bytes()[7] == b'-',
                "{dt}"
            );
            let back = SgfGame::parse(&out).unwrap();
            assert_eq!(back.size, rules.size);
            assert_eq!(back.moves.len(), 1);
        }
        let rect = Rules::preset(Preset::Japanese).with_size(Size::new(7, 5).unwrap());
        let out = write(&Game::new(rect));
        assert_eq!(value(&strict_root(&out), "SZ"), Some("7:5"), "{out}");
        assert_eq!(SgfGame::parse(&out).unwrap().size, rect.size);
    }

    #[test]
    fn game_information_and_any_komi_round_trip() {
        let rules = Rules::parse("chinese,size=9,komi=3.75").unwrap();
        let mut g = Game::new(rules);
        for m in ["E5", "pass", "pass", "C3"] {
            g.resume();
            g.play(Move::from_gtp(m, g.board().size()).unwrap())
                .unwrap();
        }
        let info = SgfInfo {
            black: Some("GNU Go 3.8 level 10".into()),
            white: Some("baduk 0.1.0".into()),
            result: Some("W+0.25".into()),
            date: Some("2026-12-01".into()),
            comment: Some("Black: gtp:/usr/games/gnugo --mode gtp [x]".into()),
        };
        let out = write_with(&g, &info);
        let root = strict_root(&out);
        assert_eq!(value(&root, "PB"), Some("GNU Go 3.8 level 10"));
        assert_eq!(value(&root, "KM"), Some("3.75"), "{out}");
        assert_eq!(value(&root, "DT"), Some("2026-12-01"));
        let unescaped = value(&root, "C").map(|c| c.replace("\\:", ":").replace("\\]", "]"));
        assert_eq!(unescaped, info.comment);
        let back = SgfGame::parse(&out).unwrap();
        assert_eq!(back.komi, Some(rules.komi));
        assert_eq!(back.result.as_deref(), Some("W+0.25"));
        // The moves after the two passes are in the main line and replay to the same board.
        let replayed = back.replay(back.rules(None).unwrap(), None).unwrap();
        assert_eq!(replayed.board(), g.board());
        assert_eq!(replayed.move_count(), 4);
    }

    #[test]
    fn dates_are_proleptic_gregorian() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(20_788), "2026-12-01");
        assert_eq!(civil_date(-1), "1969-12-31");
    }
}
