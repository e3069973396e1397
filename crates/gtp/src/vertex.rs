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

/// Why a word is not a vertex on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexError {
    /// Not a vertex at all (`zz`, `I5`, `A`): a syntax error.
    Malformed,
    /// A well-formed vertex beyond the board's edge (`K1` on 9×9, `A0`, `Z99`): GNU Go answers
    /// `invalid coordinate`.
    OffBoard,
}

/// Parses a vertex on a `size`×`size` board, saying whether a refused word is malformed or off
/// the board.
pub fn parse_vertex_checked(s: &str, size: usize) -> Result<Vertex, VertexError> {
    let t = s.to_ascii_uppercase();
    if t == "PASS" {
        return Ok(Vertex::Pass);
    }
    let letter = *t.as_bytes().first().ok_or(VertexError::Malformed)?;
    if !letter.is_ascii_uppercase() || letter == b'I' {
        return Err(VertexError::Malformed);
    }
    let digits = &t[1..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(VertexError::Malformed);
    }
    let x = LETTERS.iter().position(|&l| l == letter);
    let row: Option<usize> = digits.parse().ok();
    match (x, row) {
        (Some(x), Some(row)) if x < size && row >= 1 && row <= size => {
            Ok(Vertex::At(x, size - row))
        }
        _ => Err(VertexError::OffBoard),
    }
}

/// Parses a vertex on a `size`×`size` board; `None` when it is malformed or off the board.
pub fn parse_vertex(s: &str, size: usize) -> Option<Vertex> {
    parse_vertex_checked(s, size).ok()
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
        assert_eq!(parse_vertex_checked("K1", 9), Err(VertexError::OffBoard));
        assert_eq!(parse_vertex_checked("A0", 9), Err(VertexError::OffBoard));
        assert_eq!(
            parse_vertex_checked("Z99999999999999999999", 9),
            Err(VertexError::OffBoard)
        );
        assert_eq!(parse_vertex_checked("zz", 9), Err(VertexError::Malformed));
        assert_eq!(parse_vertex_checked("I5", 9), Err(VertexError::Malformed));
        assert_eq!(parse_vertex_checked("ä1", 9), Err(VertexError::Malformed));
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
