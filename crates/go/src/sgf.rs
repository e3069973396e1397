//! The SGF adapter (FF\[4\], through the `sgf-parse` crate): read a game's main line with its
//! set-up (`AB`/`AW`/`AE`, `PL`), size (`SZ[19]`, `SZ[m:n]`), `HA`, `KM`, `RU`, players and the
//! referee's marks (`TB`/`TW`/`MA`), replay it under a [`Rules`], and write a [`Game`] back.
//!
//! This is the one SGF reader of the project: every command (replay, legal moves, scoring, life
//! and death) reads files through [`SgfGame::parse`] (the scorer through
//! [`crate::scoring::record::Record::from_game`]), so a file gets the same verdict and the same
//! error everywhere. Raw bytes go through [`decode`] first, which honours the file's `CA`
//! charset.
//!
//! Errors name the line of the node and the property at fault. Only set-up before the first
//! move is supported (set-up in the middle of a game is reported as an error).

use crate::board::Board;
use crate::game::{Game, IllegalMove};
use crate::point::{Color, Move, Point, Size};
use crate::rules::{Komi, Life, Rules, RulesError};
use crate::scoring::record::Marks;
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
    /// `PB` and `PW`, as written (decoded from the file's charset).
    pub players: [Option<String>; 2],
    /// The referee's marks (`TB`/`TW` territory, `MA` dead stones) in the last node of the main
    /// line, where a finished game records them.
    pub marks: Marks,
    /// How many games the file's collection holds (this is one of them).
    pub games: usize,
    /// The main line's comments (`C`), each with the number of moves played up to its node.
    pub comments: Vec<(usize, String)>,
}

/// The text of an SGF file given as raw bytes, decoded by its `CA` charset (`UTF-8`, `EUC-KR`,
/// `Shift_JIS`, `GB2312`, `Big5`, `ISO-8859-1`, … — the WHATWG labels of `encoding_rs`). Without
/// `CA`, UTF-8 when the bytes are valid UTF-8, else ISO-8859-1, the FF\[4\] default. A leading
/// UTF-8 byte-order mark is dropped. A file that is not valid in its declared charset is an
/// error naming the charset and the line of the first bad byte.
pub fn decode(bytes: &[u8]) -> Result<String, SgfError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Some((label, ca_line)) = declared_charset(bytes) else {
        return Ok(match std::str::from_utf8(bytes) {
            Ok(t) => t.to_string(),
            // The FF[4] default charset; every byte decodes.
            Err(_) => encoding_rs::WINDOWS_1252
                .decode_without_bom_handling(bytes)
                .0
                .into_owned(),
        });
    };
    let property = Some(format!("CA[{label}]"));
    let enc =
        encoding_rs::Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| SgfError {
            line: ca_line,
            property: property.clone(),
            message: "unknown charset (e.g. UTF-8, EUC-KR, Shift_JIS, GB2312, Big5, ISO-8859-1)"
                .into(),
        })?;
    let mut decoder = enc.new_decoder_without_bom_handling();
    let cap = decoder
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .unwrap_or(bytes.len().saturating_mul(3));
    let mut out = String::with_capacity(cap);
    let (res, read) = decoder.decode_to_string_without_replacement(bytes, &mut out, true);
    match res {
        encoding_rs::DecoderResult::InputEmpty => Ok(out),
        encoding_rs::DecoderResult::Malformed(_, extra) => {
            let at = read.saturating_sub(extra as usize);
            let line = 1 + bytes[..at.min(bytes.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            Err(SgfError {
                line,
                property,
                message: format!(
                    "the file is not valid {} text, the charset its CA declares (byte {at})",
                    enc.name()
                ),
            })
        }
        // Cannot happen: the buffer holds the worst case.
        encoding_rs::DecoderResult::OutputFull => Err(SgfError {
            line: 0,
            property,
            message: format!("could not decode the file as {}", enc.name()),
        }),
    }
}

/// The `CA` value of the first game's root and its line, read from the raw bytes (the value
/// and the property syntax are ASCII in every charset SGF files use).
fn declared_charset(bytes: &[u8]) -> Option<(String, usize)> {
    let mut line = 1;
    let mut ident = Vec::new();
    let mut nodes = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'[' => {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j] != b']' {
                    if bytes[j] == b'\\' {
                        j += 1;
                    }
                    j += 1;
                }
                let end = j.min(bytes.len());
                if ident == b"CA" {
                    return Some((
                        String::from_utf8_lossy(&bytes[start..end]).into_owned(),
                        line,
                    ));
                }
                line += bytes[i..end].iter().filter(|&&c| c == b'\n').count();
                i = end + 1;
                continue;
            }
            b'A'..=b'Z' => {
                // A property identifier; a value list `AB[..][..]` keeps it.
                if i > 0 && !bytes[i - 1].is_ascii_uppercase() {
                    ident.clear();
                }
                ident.push(b);
            }
            b';' => {
                // CA belongs to the root: stop at the second node.
                nodes += 1;
                if nodes > 1 {
                    return None;
                }
                ident.clear();
            }
            b'\n' => line += 1,
            b if b.is_ascii_whitespace() => {}
            _ => ident.clear(),
        }
        i += 1;
    }
    None
}

/// Number of nodes of the tree under `root`, itself included.
fn count_nodes(root: &SgfNode<Prop>) -> usize {
    let mut n = 0;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        n += 1;
        stack.extend(node.children());
    }
    n
}

/// Set-up points (`AB`/`AW`/`AE`, a rectangle counting each of its points) a game may name, per
/// point of its board: set-up costs time linear in the points it names, so this caps a record's
/// cost, however its properties are spread over nodes.
pub const SETUP_PER_POINT: usize = 50;
/// The most set-up points one game tree of a file may name before it is read at all: 50 × the
/// 625 points of the largest board.
pub const MAX_SETUP_POINTS: usize = SETUP_PER_POINT * 625;

/// Points a set-up value names: 1 for `aa`, the rectangle's area for `aa:cc` (0 if unreadable:
/// the reader reports it).
fn setup_value_points(v: &[u8]) -> usize {
    let coord = |c: u8| match c {
        b'a'..=b'z' => Some((c - b'a') as usize),
        b'A'..=b'Z' => Some((c - b'A') as usize + 26),
        _ => None,
    };
    match v {
        [a, b] if coord(*a).is_some() && coord(*b).is_some() => 1,
        [a, b, b':', c, d] => match (coord(*a), coord(*b), coord(*c), coord(*d)) {
            (Some(x1), Some(y1), Some(x2), Some(y2)) => {
                (x1.abs_diff(x2) + 1) * (y1.abs_diff(y2) + 1)
            }
            _ => 0,
        },
        _ => 0,
    }
}

/// Scans the raw text: the 1-based line of every node (`;`) in text order, or the first
/// syntax error found (line and what). A game tree whose set-up names more than
/// [`MAX_SETUP_POINTS`] points is refused here, before any of it is expanded.
fn scan(text: &str) -> Result<Vec<usize>, (usize, String)> {
    let mut lines = Vec::new();
    let mut line = 1;
    let mut depth = 0usize;
    let mut in_value = false;
    let mut value_line = 0;
    let mut escaped = false;
    let mut seen_tree = false;
    // The property identifier being read (its upper-case letters), and whether a value closed
    // since, so the next letter starts a new one.
    let mut ident: [u8; 2] = [0; 2];
    let mut ident_len = 0usize;
    let mut ident_done = false;
    let mut setup_value = false;
    let mut value = [0u8; 5];
    let mut value_len = 0usize;
    let mut setup_points = 0usize;
    for c in text.chars() {
        if in_value {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == ']' {
                in_value = false;
                ident_done = true;
                if setup_value {
                    let n = if value_len <= value.len() {
                        setup_value_points(&value[..value_len])
                    } else {
                        0
                    };
                    setup_points += n;
                    if setup_points > MAX_SETUP_POINTS {
                        return Err((
                            line,
                            format!(
                                "too much set-up: this game's AB/AW/AE name more than \
                                 {MAX_SETUP_POINTS} points ({SETUP_PER_POINT} × the 625 points \
                                 of the largest board)"
                            ),
                        ));
                    }
                }
            } else if setup_value && !c.is_whitespace() {
                if value_len < value.len() && c.is_ascii() {
                    value[value_len] = c as u8;
                }
                value_len += 1;
            }
        } else {
            match c {
                '(' => {
                    depth += 1;
                    seen_tree = true;
                    ident_len = 0;
                }
                ')' => {
                    if depth == 0 {
                        return Err((line, "`)` without a matching `(`".into()));
                    }
                    depth -= 1;
                    ident_len = 0;
                    if depth == 0 {
                        setup_points = 0;
                    }
                }
                ';' => {
                    if depth == 0 {
                        return Err((line, "node `;` outside a game tree `(…)`".into()));
                    }
                    lines.push(line);
                    ident_len = 0;
                }
                '[' => {
                    in_value = true;
                    value_line = line;
                    setup_value = ident_len == 2
                        && ident[0] == b'A'
                        && matches!(ident[1], b'B' | b'W' | b'E');
                    value_len = 0;
                }
                ']' => return Err((line, "`]` without a matching `[`".into())),
                c if c.is_ascii_uppercase() => {
                    if ident_done {
                        ident_len = 0;
                        ident_done = false;
                    }
                    if ident_len < ident.len() {
                        ident[ident_len] = c as u8;
                    }
                    ident_len += 1;
                }
                c if c.is_whitespace() => {}
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

/// `9x9`, `7x5`: the board as error messages name it.
fn board_name(size: Size) -> String {
    format!("{}x{}", size.cols(), size.rows())
}

fn to_point(p: sgo::Point, size: Size) -> Option<Point> {
    let (x, y) = (p.x as u32, p.y as u32);
    size.contains_xy(x, y)
        .then(|| Point::new(x, size.rows() - 1 - y))
}

impl SgfGame {
    /// Reads the first game of an SGF collection ([`SgfGame::games`] says how many it holds).
    pub fn parse(text: &str) -> Result<SgfGame, SgfError> {
        SgfGame::parse_game(text, 0)
    }

    /// Reads game `index` (0-based) of an SGF collection.
    pub fn parse_game(text: &str, index: usize) -> Result<SgfGame, SgfError> {
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
        let root = trees.get(index).ok_or_else(|| SgfError {
            line: 0,
            property: None,
            message: match trees.len() {
                0 => "no game in the file".into(),
                1 => format!("game {} asked for: the file holds 1 game", index + 1),
                n => format!("game {} asked for: the file holds {n} games", index + 1),
            },
        })?;
        // Pre-order index of each main-line node = its index in text order (after the nodes
        // of the collection's earlier games).
        let mut main_idx = Vec::new();
        {
            let mut idx: usize = trees[..index].iter().map(count_nodes).sum();
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
            players: [None, None],
            marks: Marks::default(),
            games: trees.len(),
            comments: Vec::new(),
        };
        let mut pl = None;
        let mut setup_named = 0usize;
        let last = nodes.len().saturating_sub(1);
        for (k, node) in nodes.iter().enumerate() {
            for p in node.properties() {
                match p {
                    Prop::RU(t) => g.rules_name = Some(t.text.clone()),
                    Prop::PB(t) => g.players[0] = Some(t.text.clone()),
                    Prop::PW(t) => g.players[1] = Some(t.text.clone()),
                    Prop::KM(v) => {
                        let komi =
                            Komi::parse(&v.to_string()).map_err(|e| err(k, p, e.to_string()))?;
                        g.komi = Some(komi);
                    }
                    Prop::TB(s) | Prop::TW(s) | Prop::MA(s) if k == last => {
                        for &pt in s {
                            let q = to_point(pt, size).ok_or_else(|| {
                                err(
                                    k,
                                    p,
                                    format!("a marked point is off the {} board", board_name(size)),
                                )
                            })?;
                            match p {
                                Prop::TB(_) => g.marks.territory[0].insert(q),
                                Prop::TW(_) => g.marks.territory[1].insert(q),
                                _ => g.marks.dead.insert(q),
                            }
                        }
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
                        setup_named += s.len();
                        let cap = SETUP_PER_POINT * size.area();
                        if setup_named > cap {
                            return Err(err(
                                k,
                                p,
                                format!(
                                    "too much set-up: this game's AB/AW/AE name more than {cap} \
                                     points ({SETUP_PER_POINT} × the {} points of the {} board)",
                                    size.area(),
                                    board_name(size)
                                ),
                            ));
                        }
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
                                        err(
                                            k,
                                            p,
                                            format!(
                                                "the move is off the {} board",
                                                board_name(size)
                                            ),
                                        )
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
                            "TB" | "TW" | "MA" => "not a list of points",
                            _ => "invalid value",
                        };
                        if matches!(
                            id.as_str(),
                            "B" | "W" | "AB" | "AW" | "AE" | "KM" | "HA" | "SZ" | "PL"
                        ) || (k == last && matches!(id.as_str(), "TB" | "TW" | "MA"))
                        {
                            return Err(err(k, p, what.into()));
                        }
                    }
                    _ => {}
                }
            }
            if let Some(Prop::C(t)) = node.properties().find(|p| matches!(p, Prop::C(_))) {
                g.comments.push((g.moves.len(), t.text.clone()));
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
        let points = sorted
            .into_iter()
            .map(|pt| {
                to_point(pt, self.size).ok_or_else(|| {
                    format!("a set-up point is off the {} board", board_name(self.size))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.setup
            .set_many(&points, stone)
            .map_err(|e| e.to_string())?;
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

/// The date (UTC) of a moment in ms since 1970 as SGF's `DT` writes it: `YYYY-MM-DD`.
pub fn date_at(unix_ms: i64) -> String {
    civil_date(unix_ms.div_euclid(86_400_000))
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
    // `RU` names the rules alone: the clock has `TM`/`OT`, the komi `KM`.
    let untimed = Rules {
        time: base.time,
        ..*rules
    };
    let plain_preset = base
        == Rules {
            komi: base.komi,
            ..untimed
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
                untimed.name()
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

    /// The review bomb of issue 39: 4,000 nodes each filling and clearing a 25×25 board
    /// (5 M set-up points in 76 KB) is refused by the scan, naming the cap and the line.
    #[test]
    fn set_up_rectangles_past_fifty_times_the_largest_board_are_refused_before_expanding() {
        let text = format!("(;SZ[25]{})", "\n;AB[aa:yy]AE[aa:yy]".repeat(4000));
        let e = SgfGame::parse(&text).unwrap_err();
        assert!(e.message.contains("too much set-up"), "{e}");
        assert!(e.message.contains(&MAX_SETUP_POINTS.to_string()), "{e}");
        // 25 nodes name 31,250 points, the cap itself; the 26th node's AB (line 27) passes it.
        assert_eq!(e.line, 27, "{e}");
    }

    #[test]
    fn set_up_past_fifty_times_the_board_is_refused_naming_the_property() {
        // 9×9: 50 × 81 = 4,050 points; 51 full-board rectangles name 4,131.
        let text = format!("(;SZ[9]{})", ";AB[aa:ii]".repeat(51));
        let e = SgfGame::parse(&text).unwrap_err();
        assert!(e.message.contains("4050"), "{e}");
        assert!(e.message.contains("9x9"), "{e}");
        assert!(
            e.property.as_deref().is_some_and(|p| p.starts_with("AB[")),
            "{e}"
        );
        // Under the cap: the board is set up, the last word counts.
        let text = format!("(;SZ[9]{};AE[aa:ii];AW[cc:dd])", ";AB[aa:ii]".repeat(48));
        let g = SgfGame::parse(&text).unwrap();
        assert_eq!(g.setup.stone_count(Color::Black), 0);
        assert_eq!(g.setup.stone_count(Color::White), 4);
        g.setup.check_consistency().unwrap();
    }

    #[test]
    fn set_up_values_count_points_and_rectangles() {
        assert_eq!(setup_value_points(b"aa"), 1);
        assert_eq!(setup_value_points(b"aa:yy"), 625);
        assert_eq!(setup_value_points(b"yy:aa"), 625);
        assert_eq!(setup_value_points(b"ab:ab"), 1);
        assert_eq!(setup_value_points(b"a"), 0);
        assert_eq!(setup_value_points(b"a!:bb"), 0);
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
    fn decode_follows_ca_and_falls_back_to_latin1() {
        let (euc, _, _) = encoding_rs::EUC_KR.encode("(;CA[EUC-KR]PB[이세돌];B[aa])");
        let g = SgfGame::parse(&decode(&euc).unwrap()).unwrap();
        assert_eq!(g.players[0].as_deref(), Some("이세돌"));
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("(;CA[Shift_JIS]PW[本因坊秀策])");
        let g = SgfGame::parse(&decode(&sjis).unwrap()).unwrap();
        assert_eq!(g.players[1].as_deref(), Some("本因坊秀策"));
        // No CA: UTF-8 if it is, else ISO-8859-1 (the FF[4] default).
        assert_eq!(decode("(;PB[柯洁])".as_bytes()).unwrap(), "(;PB[柯洁])");
        assert_eq!(decode(b"(;PB[M\xfcller])").unwrap(), "(;PB[Müller])");
        // A CA inside a comment or after the root does not count.
        assert_eq!(declared_charset(b"(;C[CA[EUC-KR]];CA[x])"), None);
        let e = decode(b"(;CA[UTF-8]\nPB[\xc0\xcc])").unwrap_err();
        assert_eq!((e.line, e.property.as_deref()), (2, Some("CA[UTF-8]")));
        assert!(e.message.contains("not valid UTF-8"), "{e}");
        let e = decode(b"(;CA[EBCDIC])").unwrap_err();
        assert!(e.to_string().contains("unknown charset"), "{e}");
    }

    #[test]
    fn collections_count_games_and_keep_each_games_lines() {
        let text = "(;SZ[9];B[aa])\n(;SZ[9]\n;B[bb]\n;W[zz])";
        let g = SgfGame::parse(text).unwrap();
        assert_eq!(g.games, 2);
        let e = SgfGame::parse_game(text, 1).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(SgfGame::parse_game(text, 2).is_err());
    }

    #[test]
    fn marks_are_read_from_the_last_node_only() {
        let g = SgfGame::parse("(;SZ[5]TB[aa];B[cc];W[]\n;B[]TB[ee]TW[aa]MA[cc])").unwrap();
        assert_eq!(g.marks.territory[0].iter().count(), 1);
        assert!(g.marks.dead.contains(Point::new(2, 2)));
        let e = SgfGame::parse("(;SZ[5];B[cc]MA[zz])").unwrap_err();
        assert!(e.to_string().contains("MA[zz]"), "{e}");
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
        assert_eq!(date_at(20_788 * 86_400_000 + 86_399_999), "2026-12-01");
        assert_eq!(date_at(-1), "1969-12-31");
    }
}
