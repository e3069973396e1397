//! The SGF tokenizer and tree reader: one pass over the text that builds every game and
//! variation as nodes of (identifier, values) and counts its work as it reads — nodes,
//! variations, games, properties, bytes of values, and the points that point lists name (a
//! rectangle `aa:cc` counts its area, read and never expanded here) — across the whole file,
//! escapes included, against the caller's [`SgfLimits`]. The first limit crossed stops the read
//! with an [`SgfError`] naming it, before what it bounds is allocated.

use super::SgfError;

/// The most work one read may do; the first limit crossed stops it with an error naming it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SgfLimits {
    /// Nodes (`;`) of the whole file.
    pub max_nodes: usize,
    /// Variations: every game tree and subtree `(` of the file.
    pub max_variations: usize,
    /// Games (top-level game trees) of the collection.
    pub max_games: usize,
    /// Properties of the whole file (`AB[aa][bb]` is one).
    pub max_properties: usize,
    /// Points named by point lists (`AB AW AE TB TW MA CR SQ TR SL DD VW`), a rectangle counting
    /// its area, in the whole file.
    pub max_points: usize,
    /// Bytes of property values, unescaped, in the whole file.
    pub max_value_bytes: usize,
}

impl Default for SgfLimits {
    /// Generous but bounded, for files a person gives the command line (a collection of many
    /// commented games reads whole).
    fn default() -> SgfLimits {
        SgfLimits {
            max_nodes: 2_000_000,
            max_variations: 200_000,
            max_games: 100_000,
            max_properties: 4_000_000,
            max_points: 4_000_000,
            max_value_bytes: 64 << 20,
        }
    }
}

/// Set-up points (`AB`/`AW`/`AE`, a rectangle counting each of its points) a game may name, per
/// point of its board: set-up costs time linear in the points it names, so this caps a record's
/// cost, however its properties are spread over nodes.
pub const SETUP_PER_POINT: usize = 50;
/// The most set-up points one game tree of a file may name before it is read at all: 50 × the
/// 625 points of the largest board.
pub const MAX_SETUP_POINTS: usize = SETUP_PER_POINT * 625;

/// The most work (nodes made, properties stored, points put on a board or into marks) a read
/// does per byte of its input: the densest text, a point list of 25×25 rectangles
/// (`[aa:yy]`, 7 bytes for 625 points), costs under 90.
pub const WORK_PER_BYTE: usize = 100;

/// What a read did, counted as it read (the limits are checked against these).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SgfWork {
    /// Bytes of text read.
    pub bytes: usize,
    /// Nodes made.
    pub nodes: usize,
    /// Variations (game trees and subtrees).
    pub variations: usize,
    /// Games of the collection.
    pub games: usize,
    /// Properties stored.
    pub properties: usize,
    /// Points the point lists name (rectangles by area; counted, not expanded).
    pub points: usize,
    /// Bytes of values stored.
    pub value_bytes: usize,
    /// Points put on a board or into marks when a game's main line is read.
    pub expanded: usize,
}

impl SgfWork {
    /// The work that costs time and memory: nodes made, properties stored, points expanded.
    pub fn cost(&self) -> usize {
        self.nodes + self.properties + self.expanded
    }
}

/// One property of a node: its identifier and its values, unescaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfProp {
    /// `AB`, `C`, `KM`, … (upper-case letters; lower-case letters of old files are dropped).
    pub ident: String,
    /// The values, escapes and soft line breaks (`\` + newline) removed.
    pub values: Vec<String>,
}

impl SgfProp {
    /// The property as error messages name it: `SZ[30]` (long values cut).
    pub fn shown(&self) -> String {
        let mut out = self.ident.clone();
        for v in self.values.iter().take(4) {
            out.push('[');
            if v.chars().count() > 24 {
                out.extend(v.chars().take(24));
                out.push('…');
            } else {
                out.push_str(v);
            }
            out.push(']');
        }
        if self.values.len() > 4 {
            out.push('…');
        }
        out
    }
}

/// One node: the line of its `;`, its properties and its children (indices into the tree).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfNode {
    /// 1-based line of the node's `;`.
    pub line: usize,
    /// Its properties in text order.
    pub props: Vec<SgfProp>,
    /// Its children: the first continues the main line, the others are variations.
    pub children: Vec<usize>,
}

impl SgfNode {
    /// The first property named `ident`.
    pub fn prop(&self, ident: &str) -> Option<&SgfProp> {
        self.props.iter().find(|p| p.ident == ident)
    }
}

/// A whole SGF collection: every game with every variation, nodes in text order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SgfTree {
    /// Every node of the file, in text order.
    pub nodes: Vec<SgfNode>,
    /// The root node of each game.
    pub roots: Vec<usize>,
    /// What the read did.
    pub work: SgfWork,
}

/// Whether a property's values are point lists (compressible: `aa:cc` names a rectangle).
fn is_point_list(ident: &str) -> bool {
    matches!(
        ident,
        "AB" | "AW" | "AE" | "TB" | "TW" | "MA" | "CR" | "SQ" | "TR" | "SL" | "DD" | "VW"
    )
}

/// An SGF coordinate letter's value (`a`–`z` 0–25, `A`–`Z` 26–51).
pub(crate) fn coord(c: u8) -> Option<u32> {
    match c {
        b'a'..=b'z' => Some(u32::from(c - b'a')),
        b'A'..=b'Z' => Some(u32::from(c - b'A') + 26),
        _ => None,
    }
}

/// A point-list value's corners: `aa` is one point, `aa:cc` the rectangle between two; None
/// when it is neither.
pub(crate) fn corners(v: &str) -> Option<((u32, u32), (u32, u32))> {
    let b = v.trim().as_bytes();
    let pt = |x: u8, y: u8| Some((coord(x)?, coord(y)?));
    match *b {
        [x, y] => {
            let p = pt(x, y)?;
            Some((p, p))
        }
        [x1, y1, b':', x2, y2] => Some((pt(x1, y1)?, pt(x2, y2)?)),
        _ => None,
    }
}

/// Points a point-list value names: 1 for `aa`, the rectangle's area for `aa:cc` (0 if
/// unreadable: the game's reader reports it).
pub(crate) fn value_points(v: &str) -> usize {
    match corners(v) {
        Some(((x1, y1), (x2, y2))) => {
            (x1.abs_diff(x2) as usize + 1) * (y1.abs_diff(y2) as usize + 1)
        }
        None => 0,
    }
}

fn syntax(line: usize, message: impl Into<String>) -> SgfError {
    SgfError {
        line,
        property: None,
        message: message.into(),
        limit: None,
    }
}

impl SgfTree {
    /// Reads a whole SGF text under `limits`: the first syntax error or limit crossed is the
    /// error (its line, and the property when one is at fault).
    pub fn parse(text: &str, limits: &SgfLimits) -> Result<SgfTree, SgfError> {
        SgfTree::parse_counted(text, limits).0
    }

    /// [`SgfTree::parse`], with the work done (up to the error, if one stopped the read).
    pub fn parse_counted(text: &str, limits: &SgfLimits) -> (Result<SgfTree, SgfError>, SgfWork) {
        let mut r = Reader {
            text: text.as_bytes(),
            limits,
            tree: SgfTree::default(),
            line: 1,
            setup_in_game: 0,
        };
        let res = r.read();
        let work = r.tree.work;
        (res.map(|()| r.tree), work)
    }

    /// The main line of game `index`: its root, then each first child.
    pub fn main_line(&self, index: usize) -> Vec<&SgfNode> {
        let mut out = Vec::new();
        let mut at = self.roots.get(index).copied();
        while let Some(k) = at {
            let node = &self.nodes[k];
            out.push(node);
            at = node.children.first().copied();
        }
        out
    }
}

/// The reader's state: where it is and what it has made.
struct Reader<'a> {
    text: &'a [u8],
    limits: &'a SgfLimits,
    tree: SgfTree,
    line: usize,
    /// Set-up points (`AB`/`AW`/`AE`) named in the current game tree.
    setup_in_game: usize,
}

impl Reader<'_> {
    /// The error of a limit crossed: which, its value, where.
    fn over(&self, name: &'static str, max: usize, what: &str, prop: Option<String>) -> SgfError {
        SgfError {
            line: self.line,
            property: prop,
            message: format!(
                "the file holds more than {max} {what} (the reader's limit max_{name} is {max})"
            ),
            limit: Some((name, max)),
        }
    }

    fn read(&mut self) -> Result<(), SgfError> {
        let text = self.text;
        self.tree.work.bytes = text.len();
        // The node each open `(` hangs from (None: a game's root comes next).
        let mut open: Vec<Option<usize>> = Vec::new();
        // The node properties go to; `fresh` while no node has been read in this `(`.
        let mut cur: Option<usize> = None;
        let mut fresh = false;
        let mut after_variation = false;
        let mut seen_tree = false;
        let mut i = 0;
        while i < text.len() {
            let b = text[i];
            match b {
                b'(' => {
                    if fresh {
                        return Err(syntax(
                            self.line,
                            "a game tree `(` must begin with a node `;`",
                        ));
                    }
                    if self.tree.work.variations >= self.limits.max_variations {
                        return Err(self.over(
                            "variations",
                            self.limits.max_variations,
                            "variations (game trees and subtrees)",
                            None,
                        ));
                    }
                    self.tree.work.variations += 1;
                    if open.is_empty() {
                        if self.tree.work.games >= self.limits.max_games {
                            return Err(self.over("games", self.limits.max_games, "games", None));
                        }
                        self.tree.work.games += 1;
                        self.setup_in_game = 0;
                        cur = None;
                    }
                    open.push(cur);
                    fresh = true;
                    after_variation = false;
                    seen_tree = true;
                    i += 1;
                }
                b')' => {
                    if open.is_empty() {
                        return Err(syntax(self.line, "`)` without a matching `(`"));
                    }
                    if fresh {
                        return Err(syntax(
                            self.line,
                            "a game tree `(` must begin with a node `;`",
                        ));
                    }
                    cur = open.pop().flatten();
                    after_variation = true;
                    i += 1;
                }
                b';' => {
                    if open.is_empty() {
                        return Err(syntax(self.line, "node `;` outside a game tree `(…)`"));
                    }
                    if after_variation {
                        return Err(syntax(
                            self.line,
                            "a node after a variation: a sequence's nodes come before its variations",
                        ));
                    }
                    if self.tree.work.nodes >= self.limits.max_nodes {
                        return Err(self.over("nodes", self.limits.max_nodes, "nodes", None));
                    }
                    self.tree.work.nodes += 1;
                    let k = self.tree.nodes.len();
                    self.tree.nodes.push(SgfNode {
                        line: self.line,
                        props: Vec::new(),
                        children: Vec::new(),
                    });
                    match cur {
                        Some(p) => self.tree.nodes[p].children.push(k),
                        None => self.tree.roots.push(k),
                    }
                    cur = Some(k);
                    fresh = false;
                    i += 1;
                }
                b'A'..=b'Z' | b'a'..=b'z' if !open.is_empty() => {
                    if after_variation {
                        return Err(syntax(
                            self.line,
                            "a property after a variation: properties belong to a node `;`",
                        ));
                    }
                    let Some(node) = cur.filter(|_| !fresh) else {
                        return Err(syntax(
                            self.line,
                            "a property before the game tree's first node `;`",
                        ));
                    };
                    i = self.property(i, node)?;
                }
                b'[' if !open.is_empty() => {
                    return Err(syntax(
                        self.line,
                        "a value `[` without a property identifier",
                    ));
                }
                b']' if !open.is_empty() => {
                    return Err(syntax(self.line, "`]` without a matching `[`"));
                }
                b'\n' => {
                    self.line += 1;
                    i += 1;
                }
                b if b.is_ascii_whitespace() || open.is_empty() => i += 1,
                _ => {
                    let c = std::str::from_utf8(&text[i..])
                        .ok()
                        .and_then(|s| s.chars().next())
                        .unwrap_or(char::from(b));
                    return Err(syntax(self.line, format!("unexpected character `{c}`")));
                }
            }
        }
        if !open.is_empty() {
            return Err(syntax(
                self.line,
                "the file ends inside a game tree (missing `)`)",
            ));
        }
        if !seen_tree {
            return Err(syntax(self.line, "no game tree `(;…)` found"));
        }
        Ok(())
    }

    /// Reads the property starting at `i` (its identifier, then every value) into `node`;
    /// where the text goes on.
    fn property(&mut self, mut i: usize, node: usize) -> Result<usize, SgfError> {
        let text = self.text;
        let mut ident = String::new();
        while i < text.len() && text[i].is_ascii_alphabetic() {
            if text[i].is_ascii_uppercase() {
                if ident.len() >= 8 {
                    return Err(syntax(self.line, "a property identifier over 8 letters"));
                }
                ident.push(char::from(text[i]));
            }
            i += 1;
        }
        if ident.is_empty() {
            return Err(syntax(
                self.line,
                "a property identifier without an upper-case letter",
            ));
        }
        if self.tree.work.properties >= self.limits.max_properties {
            return Err(self.over(
                "properties",
                self.limits.max_properties,
                "properties",
                Some(ident),
            ));
        }
        self.tree.work.properties += 1;
        let points = is_point_list(&ident);
        let setup = matches!(ident.as_str(), "AB" | "AW" | "AE");
        let mut prop = SgfProp {
            ident,
            values: Vec::new(),
        };
        loop {
            while i < text.len() && text[i].is_ascii_whitespace() {
                if text[i] == b'\n' {
                    self.line += 1;
                }
                i += 1;
            }
            if i >= text.len() || text[i] != b'[' {
                break;
            }
            let value_line = self.line;
            i += 1;
            let mut value = Vec::new();
            loop {
                let Some(&c) = text.get(i) else {
                    return Err(syntax(value_line, "property value `[` is never closed"));
                };
                i += 1;
                match c {
                    b']' => break,
                    b'\\' => {
                        let Some(&e) = text.get(i) else { continue };
                        i += 1;
                        match e {
                            // A soft line break: `\` and the line break are dropped.
                            b'\n' => {
                                self.line += 1;
                                if text.get(i) == Some(&b'\r') {
                                    i += 1;
                                }
                                continue;
                            }
                            b'\r' => {
                                if text.get(i) == Some(&b'\n') {
                                    self.line += 1;
                                    i += 1;
                                }
                                continue;
                            }
                            e => value.push(e),
                        }
                    }
                    b'\n' => {
                        self.line += 1;
                        value.push(c);
                    }
                    c => value.push(c),
                }
                if self.tree.work.value_bytes + value.len() > self.limits.max_value_bytes {
                    let shown = Some(format!("{}[…]", prop.ident));
                    return Err(self.over(
                        "value_bytes",
                        self.limits.max_value_bytes,
                        "bytes of property values",
                        shown,
                    ));
                }
            }
            self.tree.work.value_bytes += value.len();
            let value = String::from_utf8(value)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            if points {
                let n = value_points(&value);
                if self.tree.work.points + n > self.limits.max_points {
                    let shown = Some(format!("{}[{value}]", prop.ident));
                    return Err(self.over(
                        "points",
                        self.limits.max_points,
                        "points in point lists (a rectangle counting its area)",
                        shown,
                    ));
                }
                self.tree.work.points += n;
                if setup {
                    self.setup_in_game += n;
                    if self.setup_in_game > MAX_SETUP_POINTS {
                        return Err(SgfError {
                            line: value_line,
                            property: Some(format!("{}[{value}]", prop.ident)),
                            message: format!(
                                "too much set-up: this game's AB/AW/AE name more than \
                                 {MAX_SETUP_POINTS} points ({SETUP_PER_POINT} × the 625 points \
                                 of the largest board)"
                            ),
                            limit: None,
                        });
                    }
                }
            }
            prop.values.push(value);
        }
        if prop.values.is_empty() {
            return Err(SgfError {
                line: self.line,
                property: Some(prop.ident.clone()),
                message: format!("property `{}` has no value `[…]`", prop.ident),
                limit: None,
            });
        }
        self.tree.nodes[node].props.push(prop);
        Ok(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> SgfLimits {
        SgfLimits {
            max_nodes: 10,
            max_variations: 3,
            max_games: 2,
            max_properties: 20,
            max_points: 100,
            max_value_bytes: 200,
        }
    }

    #[test]
    fn builds_games_variations_and_main_lines_in_text_order() {
        let t = SgfTree::parse(
            "(;GM[1]C[a\\]b\\\nc];B[aa](;W[bb];B[cc])(;W[dd]))\n(;B[ee])",
            &SgfLimits::default(),
        )
        .unwrap();
        assert_eq!(t.roots, [0, 5]);
        assert_eq!(t.nodes[0].prop("C").unwrap().values, ["a]bc"]);
        assert_eq!(t.nodes[1].children, [2, 4]);
        let main: Vec<usize> = t.main_line(0).iter().map(|n| n.line).collect();
        assert_eq!(main, [1, 2, 2, 2]);
        assert_eq!(t.main_line(1)[0].line, 3);
        let w = t.work;
        assert_eq!((w.nodes, w.variations, w.games, w.properties), (6, 4, 2, 7));
    }

    #[test]
    fn each_limit_stops_the_read_naming_itself() {
        let cases = [
            (format!("(;{})", ";B[]".repeat(10)), "nodes", 10),
            ("(;B[](;W[])(;W[])(;W[]))".to_string(), "variations", 3),
            ("(;B[])(;B[])(;B[])".to_string(), "games", 2),
            (format!("(;{})", "C[x]".repeat(21)), "properties", 20),
            ("(;AB[aa:jj][aa])".to_string(), "points", 100),
            (format!("(;C[{}])", "x".repeat(201)), "value_bytes", 200),
        ];
        for (text, name, max) in cases {
            let e = SgfTree::parse(&text, &tiny()).unwrap_err();
            assert_eq!(e.limit, Some((name, max)), "{text}: {e}");
            assert!(e.message.contains(&format!("max_{name} is {max}")), "{e}");
        }
    }

    #[test]
    fn escapes_count_as_what_they_stand_for() {
        // `\a` is `a`: the rectangle `aa:ZZ` names 2,704 points.
        let e = SgfTree::parse("(;AB[\\aa:ZZ])", &tiny()).unwrap_err();
        assert_eq!(e.limit, Some(("points", 100)), "{e}");
        assert_eq!(e.property.as_deref(), Some("AB[aa:ZZ]"));
    }

    #[test]
    fn set_up_per_game_tree_resets_with_each_game() {
        let game = format!("(;{})", "AB[aa:yy]".repeat(50));
        let two = format!("{game}{game}");
        assert!(SgfTree::parse(&two, &SgfLimits::default()).is_ok());
        let over = format!("(;{}AE[aa])", "AB[aa:yy]".repeat(50));
        let e = SgfTree::parse(&over, &SgfLimits::default()).unwrap_err();
        assert!(e.message.contains("too much set-up"), "{e}");
    }

    #[test]
    fn syntax_errors_name_their_line() {
        for (text, line, says) in [
            ("(;B[aa]\n;W[bb]", 2, "missing `)`"),
            ("(;B[aa]\n)\n)", 3, "without a matching `(`"),
            ("(()", 1, "must begin with a node"),
            ("(;B[aa](;W[bb]);B[cc])", 1, "after a variation"),
            ("(;B\n[aa\n", 2, "never closed"),
            ("(;B[aa]]", 1, "`]` without"),
            ("(;B[aa]W)", 1, "no value"),
            ("(;B[aa]!)", 1, "unexpected character `!`"),
            ("just words", 1, "no game tree"),
        ] {
            let e = SgfTree::parse(text, &SgfLimits::default()).unwrap_err();
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.message.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn values_count_rectangles_by_area() {
        assert_eq!(value_points("aa"), 1);
        assert_eq!(value_points("aa:yy"), 625);
        assert_eq!(value_points("yy:aa"), 625);
        assert_eq!(value_points("ab:ab"), 1);
        assert_eq!(value_points("aa:ZZ"), 2704);
        assert_eq!(value_points("a"), 0);
        assert_eq!(value_points("a!:bb"), 0);
    }

    /// The two bombs of issue 56 stop at a limit after a few thousand units of work.
    #[test]
    fn the_escaped_and_the_collection_bombs_stop_early() {
        use crate::sgf::SgfGame;
        let escaped = format!(
            "(;GM[1]SZ[19];B[pd];W[dp](;B[pp])({}))",
            ";AB[\\aa:ZZ]".repeat(19_990)
        );
        let (g, work) = SgfGame::parse_counted(&escaped, 0, &SgfLimits::default());
        let e = g.unwrap_err();
        assert!(e.message.contains("too much set-up"), "{e}");
        assert!(work.nodes < 20 && work.expanded == 0, "{work:?}");
        let collection = format!("(;GM[1]{})", "AB[aa:ZZ]".repeat(11)).repeat(900);
        let limits = SgfLimits {
            max_points: 100_000,
            ..SgfLimits::default()
        };
        let (g, work) = SgfGame::parse_counted(&collection, 0, &limits);
        assert_eq!(g.unwrap_err().limit, Some(("points", 100_000)));
        assert!(work.games <= 4 && work.expanded == 0, "{work:?}");
    }
}

#[cfg(test)]
mod work_per_byte {
    //! For any input, the reader's work is at most [`WORK_PER_BYTE`] × its bytes.

    use super::*;
    use crate::sgf::SgfGame;
    use proptest::prelude::*;

    /// Pieces of SGF, adversarial ones included: rectangles up to and past the largest board,
    /// escapes, variations, new games, markup in what may be a last node.
    const PIECES: &[&str] = &[
        "(", ")", ";", "(;", ")(;", "AB[", "AW[", "AE[", "TB[", "TW[", "MA[", "CR[", "]", "[",
        "aa", "yy", "ss", "ZZ", ":", "aa:yy]", "[aa:yy]", "[aa:ss]", "\\", "\\a", "\\]", "B[dd]",
        "W[]", "B[tt]", "C[x", "\n", "SZ[25]", "SZ[9]", "SZ[7:5]", "KM[6.5]", "HA[2]", "PL[W]",
        "GM[1]", " ",
    ];

    fn text_of(pieces: &[usize]) -> String {
        pieces.iter().map(|&i| PIECES[i % PIECES.len()]).collect()
    }

    /// A repeated unit in a game, the game repeated: nested variations, rectangles, escapes,
    /// many games.
    fn bomb(unit: usize, reps: usize, games: usize, size: u8) -> String {
        const UNITS: &[&str] = &[
            ";AB[aa:yy]AE[aa:yy]",
            "AB[aa:yy][aa:yy][aa:yy]",
            ";AB[\\aa:ZZ]",
            "(;B[aa]",
            ";TB[aa:yy]TW[aa:yy]MA[aa:yy]",
            "AB[aa:ss]",
            ";",
            "C[\\]\\\\]",
        ];
        let u = UNITS[unit % UNITS.len()];
        let close = if u.starts_with('(') {
            ")".repeat(reps)
        } else {
            String::new()
        };
        let game = format!("(;SZ[{}]{}{close})", 1 + size % 25, u.repeat(reps));
        game.repeat(games)
    }

    fn check(text: &str) -> Result<(), TestCaseError> {
        // The command line's limits, and tight ones that stop most reads midway.
        let tight = SgfLimits {
            max_nodes: 500,
            max_variations: 50,
            max_games: 20,
            max_properties: 2_000,
            max_points: 5_000,
            max_value_bytes: 10_000,
        };
        for limits in [SgfLimits::default(), tight] {
            for index in 0..2 {
                let (_, work) = SgfGame::parse_counted(text, index, &limits);
                prop_assert!(
                    work.cost() <= WORK_PER_BYTE * text.len().max(1),
                    "{work:?} for {} bytes",
                    text.len()
                );
                prop_assert!(work.nodes <= limits.max_nodes);
                prop_assert!(work.points <= limits.max_points);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn random_pieces_cost_at_most_the_stated_work_per_byte(
            pieces in proptest::collection::vec(0usize..1000, 0..400)
        ) {
            check(&text_of(&pieces))?;
        }

        #[test]
        fn repeated_bombs_cost_at_most_the_stated_work_per_byte(
            unit in 0usize..8, reps in 1usize..600, games in 1usize..40, size in any::<u8>()
        ) {
            check(&bomb(unit, reps, games, size))?;
        }

        #[test]
        fn any_bytes_cost_at_most_the_stated_work_per_byte(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            check(&String::from_utf8_lossy(&bytes))?;
        }
    }
}
