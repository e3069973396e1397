//! GTP vertices and colours: `D4`, `pass`, `b`/`white`, case-insensitive; columns skip `I`.

use baduk_search::go::board::Colour;

/// A GTP vertex: a pass or a board point (column `x` from the left, row `y` from the top).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vertex {
    /// The pass move.
    Pass,
    /// A point: column from the left and row from the top, both 0-based.
    At(usize, usize),
}

const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// Parses a vertex on a `size`×`size` board; `None` when it is malformed or off the board.
pub fn parse_vertex(s: &str, size: usize) -> Option<Vertex> {
    let t = s.to_ascii_uppercase();
    if t == "PASS" {
        return Some(Vertex::Pass);
    }
    let mut chars = t.bytes();
    let letter = chars.next()?;
    let x = LETTERS.iter().position(|&l| l == letter)?;
    let digits: String = t[1..].to_string();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 2 {
        return None;
    }
    let row: usize = digits.parse().ok()?;
    if x >= size || row == 0 || row > size {
        return None;
    }
    Some(Vertex::At(x, size - row))
}

/// Formats a vertex on a `size`×`size` board (`pass`, or e.g. `D4`).
pub fn format_vertex(v: Vertex, size: usize) -> String {
    match v {
        Vertex::Pass => "pass".to_string(),
        Vertex::At(x, y) => format!("{}{}", LETTERS[x] as char, size - y),
    }
}

/// Parses a GTP colour (`b`, `black`, `w`, `white`, any case).
pub fn parse_colour(s: &str) -> Option<Colour> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Colour::Black),
        "w" | "white" => Some(Colour::White),
        _ => None,
    }
}

/// The GTP name of a colour (`B`/`W` as GUIs print them in `final_score`).
pub fn colour_letter(c: Colour) -> char {
    match c {
        Colour::Black => 'B',
        Colour::White => 'W',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_vertices_skip_the_letter_i_and_count_rows_from_the_bottom() {
        assert_eq!(parse_vertex("A1", 9), Some(Vertex::At(0, 8)));
        assert_eq!(parse_vertex("j9", 9), Some(Vertex::At(8, 0)));
        assert_eq!(parse_vertex("I5", 9), None);
        assert_eq!(parse_vertex("K1", 9), None);
        assert_eq!(parse_vertex("A0", 9), None);
        assert_eq!(parse_vertex("A10", 9), None);
        assert_eq!(parse_vertex("", 9), None);
        assert_eq!(parse_vertex("Pass", 9), Some(Vertex::Pass));
        assert_eq!(format_vertex(Vertex::At(8, 0), 9), "J9");
        assert_eq!(format_vertex(Vertex::At(18, 18), 19), "T1");
        for x in 0..25 {
            for y in 0..25 {
                let v = Vertex::At(x, y);
                assert_eq!(parse_vertex(&format_vertex(v, 25), 25), Some(v));
            }
        }
    }

    #[test]
    fn gtp_colours_accept_short_and_long_forms() {
        assert_eq!(parse_colour("B"), Some(Colour::Black));
        assert_eq!(parse_colour("white"), Some(Colour::White));
        assert_eq!(parse_colour("red"), None);
    }
}
