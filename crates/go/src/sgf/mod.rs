//! The SGF reader and writer (FF\[4\], our own): read a game's main line with its set-up
//! (`AB`/`AW`/`AE`, `PL`), size (`SZ[19]`, `SZ[m:n]`), `HA`, `KM`, `RU`, players and the
//! referee's marks (`TB`/`TW`/`MA`), replay it under a [`Rules`], and write a [`Game`] back.
//!
//! This is the one SGF reader of the project: every command (replay, legal moves, scoring, life
//! and death) reads files through [`SgfGame::parse`] (the scorer through
//! [`crate::scoring::record::Record::from_game`]), so a file gets the same verdict and the same
//! error everywhere. Raw bytes go through [`decode`] first, which honours the file's `CA`
//! charset.
//!
//! The text is read once, by one tokenizer ([`tree`]), into a tree of every game and variation,
//! counting its work as it reads against the caller's [`SgfLimits`] ([`SgfGame::parse_with`];
//! the CLI's generous defaults otherwise): a file costs at most [`WORK_PER_BYTE`] units of work
//! a byte, and the first limit crossed stops the read naming it.
//!
//! Errors name the line of the node and the property at fault. Only set-up before the first
//! move is supported (set-up in the middle of a game is reported as an error).

use crate::board::Board;
use crate::game::{Game, IllegalMove};
use crate::point::{Color, Move, Point, Size};
use crate::rules::{Komi, Life, Rules, RulesError};
use crate::scoring::record::Marks;
use std::fmt;

pub mod doc;
pub mod stored;
pub mod tree;
mod write;

pub use tree::{
    SgfLimits, SgfNode, SgfProp, SgfTree, SgfWork, MAX_SETUP_POINTS, SETUP_PER_POINT, WORK_PER_BYTE,
};
#[cfg(test)]
use write::civil_date;
pub use write::{date_at, today, write, write_with, SgfInfo};

/// An SGF text that could not be read: where (line, property) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError {
    /// 1-based line of the node (or the syntax error); 0 when unknown.
    pub line: usize,
    /// The property at fault, with its value(s), e.g. `SZ[30]`.
    pub property: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The reader's limit crossed, if that is what is wrong: its name (`nodes`, `variations`,
    /// `games`, `properties`, `points`, `value_bytes`: the [`SgfLimits`] field without `max_`)
    /// and its value.
    pub limit: Option<(&'static str, usize)>,
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

/// The main line of an SGF game: set-up, game information and moves (stored as
/// [`stored::StoredGame`]'s JSON by serde).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(into = "stored::StoredGame", try_from = "stored::StoredGame")]
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
            limit: None,
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
                limit: None,
            })
        }
        // Cannot happen: the buffer holds the worst case.
        encoding_rs::DecoderResult::OutputFull => Err(SgfError {
            line: 0,
            property,
            message: format!("could not decode the file as {}", enc.name()),
            limit: None,
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

/// `9x9`, `7x5`: the board as error messages name it.
fn board_name(size: Size) -> String {
    format!("{}x{}", size.cols(), size.rows())
}

/// An SGF coordinate pair (x from the left, y from the top) on `size`, if it is on the board.
fn to_point((x, y): (u32, u32), size: Size) -> Option<Point> {
    size.contains_xy(x, y)
        .then(|| Point::new(x, size.rows() - 1 - y))
}

/// The points of a point-list property's values on `size`; `off` names what is off the board.
/// Each rectangle's corners are checked before it is expanded, so a value off the board costs
/// nothing; `work.expanded` counts the points made.
fn point_list(
    values: &[String],
    size: Size,
    off: &str,
    work: &mut SgfWork,
) -> Result<Vec<Point>, String> {
    let mut out = Vec::new();
    for v in values {
        if v.trim().is_empty() {
            continue;
        }
        let ((x1, y1), (x2, y2)) = tree::corners(v).ok_or("not a list of points")?;
        let on = |x, y| to_point((x, y), size).is_some();
        if !on(x1, y1) || !on(x2, y2) {
            return Err(format!("{off} is off the {} board", board_name(size)));
        }
        for x in x1.min(x2)..=x1.max(x2) {
            for y in y1.min(y2)..=y1.max(y2) {
                out.extend(to_point((x, y), size));
            }
        }
        work.expanded += (x1.abs_diff(x2) as usize + 1) * (y1.abs_diff(y2) as usize + 1);
    }
    Ok(out)
}

/// A move's value: empty (or `tt` on boards up to 19×19) is a pass.
fn move_of(value: &str, size: Size) -> Result<Move, String> {
    let v = value.trim();
    if v.is_empty() || (v == "tt" && size.cols() <= 19 && size.rows() <= 19) {
        return Ok(Move::Pass);
    }
    let b = v.as_bytes();
    let bad = || "not a move (two letters a–z/A–Z, or empty for a pass)".to_string();
    if b.len() != 2 {
        return Err(bad());
    }
    let (x, y) = (
        tree::coord(b[0]).ok_or_else(bad)?,
        tree::coord(b[1]).ok_or_else(bad)?,
    );
    to_point((x, y), size)
        .map(Move::Play)
        .ok_or_else(|| format!("the move is off the {} board", board_name(size)))
}

/// The board size a game's root names (`SZ[N]` or `SZ[cols:rows]`; 19×19 without one).
pub(crate) fn root_size(root: &SgfNode) -> Result<Size, SgfError> {
    let Some(p) = root.prop("SZ") else {
        return Ok(Size::nineteen());
    };
    let err = |message: String| SgfError {
        line: root.line,
        property: Some(p.shown()),
        message,
        limit: None,
    };
    let v = p.values[0].trim();
    let dims: Option<(u32, u32)> = match v.split_once(':') {
        Some((c, r)) => c.trim().parse().ok().zip(r.trim().parse().ok()),
        None => v.parse().ok().map(|n| (n, n)),
    };
    let (c, r) = dims.ok_or_else(|| err("SZ is `N` or `cols:rows`".into()))?;
    Size::new(c, r).map_err(|e| err(e.to_string()))
}

impl SgfGame {
    /// Reads the first game of an SGF collection ([`SgfGame::games`] says how many it holds)
    /// under [`SgfLimits::default`].
    pub fn parse(text: &str) -> Result<SgfGame, SgfError> {
        SgfGame::parse_game(text, 0)
    }

    /// Reads game `index` (0-based) of an SGF collection under [`SgfLimits::default`].
    pub fn parse_game(text: &str, index: usize) -> Result<SgfGame, SgfError> {
        SgfGame::parse_with(text, index, &SgfLimits::default())
    }

    /// Reads game `index` (0-based) of an SGF collection under `limits` (which bound the
    /// whole file's read, every game and variation).
    pub fn parse_with(text: &str, index: usize, limits: &SgfLimits) -> Result<SgfGame, SgfError> {
        SgfGame::parse_counted(text, index, limits).0
    }

    /// [`SgfGame::parse_with`], with the work the read did (up to its error, if any).
    pub fn parse_counted(
        text: &str,
        index: usize,
        limits: &SgfLimits,
    ) -> (Result<SgfGame, SgfError>, SgfWork) {
        let (tree, mut work) = SgfTree::parse_counted(text, limits);
        let g = tree.and_then(|t| SgfGame::from_tree(&t, index, &mut work));
        (g, work)
    }

    /// Reads game `index` of a collection already read; `work.expanded` counts the points
    /// its set-up and marks put on the board.
    pub fn from_tree(
        tree: &SgfTree,
        index: usize,
        work: &mut SgfWork,
    ) -> Result<SgfGame, SgfError> {
        let games = tree.roots.len();
        if index >= games {
            return Err(SgfError {
                line: 0,
                property: None,
                message: match games {
                    0 => "no game in the file".into(),
                    1 => format!("game {} asked for: the file holds 1 game", index + 1),
                    n => format!("game {} asked for: the file holds {n} games", index + 1),
                },
                limit: None,
            });
        }
        let nodes = tree.main_line(index);
        let err = |node: &SgfNode, p: &SgfProp, message: String| SgfError {
            line: node.line,
            property: Some(p.shown()),
            message,
            limit: None,
        };
        let first = |p: &SgfProp| p.values[0].trim().to_string();
        // Root information first: the game and the size decide how points read.
        let root = nodes[0];
        if let Some(p) = root.prop("GM") {
            if first(p) != "1" {
                return Err(err(
                    root,
                    p,
                    "not a Go record: this game type is not GM[1] (Go)".into(),
                ));
            }
        }
        let size = root_size(root)?;
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
            games,
            comments: Vec::new(),
        };
        let mut pl = None;
        let mut setup_named = 0usize;
        let last = nodes.len() - 1;
        for (k, &node) in nodes.iter().enumerate() {
            let mut played = None;
            for p in &node.props {
                let v = first(p);
                match p.ident.as_str() {
                    "RU" => g.rules_name = Some(p.values[0].clone()),
                    "PB" => g.players[0] = Some(p.values[0].clone()),
                    "PW" => g.players[1] = Some(p.values[0].clone()),
                    "RE" => g.result = Some(p.values[0].clone()),
                    "KM" => {
                        let f: f64 = v.parse().map_err(|_| err(node, p, "not a number".into()))?;
                        let komi =
                            Komi::parse(&f.to_string()).map_err(|e| err(node, p, e.to_string()))?;
                        g.komi = Some(komi);
                    }
                    "HA" => {
                        let n: i64 = v
                            .parse()
                            .map_err(|_| err(node, p, "not a handicap of 2 or more".into()))?;
                        match n {
                            // Real files carry HA[0] and HA[1]: no handicap.
                            0 | 1 => {}
                            n if n >= 2 => {
                                g.handicap = u32::try_from(n)
                                    .map_err(|_| err(node, p, "bad handicap".into()))?
                            }
                            _ => return Err(err(node, p, "not a handicap of 2 or more".into())),
                        }
                    }
                    "PL" if g.moves.is_empty() => {
                        pl = Some(match v.as_str() {
                            "B" | "b" => Color::Black,
                            "W" | "w" => Color::White,
                            _ => return Err(err(node, p, "invalid value".into())),
                        });
                    }
                    "TB" | "TW" | "MA" if k == last => {
                        let pts = point_list(&p.values, size, "a marked point", work)
                            .map_err(|why| err(node, p, why))?;
                        let set = match p.ident.as_str() {
                            "TB" => &mut g.marks.territory[0],
                            "TW" => &mut g.marks.territory[1],
                            _ => &mut g.marks.dead,
                        };
                        for q in pts {
                            set.insert(q);
                        }
                    }
                    "AB" | "AW" | "AE" => {
                        if !g.moves.is_empty() {
                            return Err(err(
                                node,
                                p,
                                "set-up after the first move is not supported".into(),
                            ));
                        }
                        let stone = match p.ident.as_str() {
                            "AB" => Some(Color::Black),
                            "AW" => Some(Color::White),
                            _ => None,
                        };
                        setup_named += p
                            .values
                            .iter()
                            .map(|v| tree::value_points(v))
                            .sum::<usize>();
                        let cap = SETUP_PER_POINT * size.area();
                        if setup_named > cap {
                            return Err(err(
                                node,
                                p,
                                format!(
                                    "too much set-up: this game's AB/AW/AE name more than {cap} \
                                     points ({SETUP_PER_POINT} × the {} points of the {} board)",
                                    size.area(),
                                    board_name(size)
                                ),
                            ));
                        }
                        let mut pts = point_list(&p.values, size, "a set-up point", work)
                            .map_err(|why| err(node, p, why))?;
                        pts.sort_by_key(|q| (q.x(), q.y()));
                        pts.dedup();
                        g.setup
                            .set_many(&pts, stone)
                            .map_err(|e| err(node, p, e.to_string()))?;
                    }
                    "B" | "W" => {
                        if played.is_some() {
                            return Err(err(node, p, "a node holds both a B and a W move".into()));
                        }
                        let color = if p.ident == "B" {
                            Color::Black
                        } else {
                            Color::White
                        };
                        let mv = move_of(&p.values[0], size).map_err(|why| err(node, p, why))?;
                        played = Some(SgfMove {
                            color,
                            mv,
                            line: node.line,
                        });
                    }
                    _ => {}
                }
            }
            g.moves.extend(played);
            if let Some(c) = node.prop("C") {
                g.comments.push((g.moves.len(), c.values[0].clone()));
            }
        }
        g.to_move = pl
            .or_else(|| g.moves.first().map(|m| m.color))
            .unwrap_or(Color::Black);
        Ok(g)
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
