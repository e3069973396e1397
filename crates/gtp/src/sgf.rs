//! Reading an SGF game record for `loadsgf`: size, komi, setup stones and the main line.

use baduk_search::go::board::Colour;
use sgf_parse::go::{parse, Move, Prop};

/// What `loadsgf` needs from a record.
#[derive(Clone, Debug, Default)]
pub struct Record {
    /// Board size (square).
    pub size: usize,
    /// Komi, when given.
    pub komi: Option<f32>,
    /// Setup stones: colour, column, row (from the top).
    pub setup: Vec<(Colour, usize, usize)>,
    /// Main-line moves: colour and point (None for a pass).
    pub moves: Vec<(Colour, Option<(usize, usize)>)>,
}

/// Parses the first game of an SGF text.
pub fn read(text: &str) -> Result<Record, String> {
    let trees = parse(text).map_err(|e| e.to_string())?;
    let root = trees.first().ok_or("no game in the file")?;
    let mut rec = Record {
        size: 19,
        ..Record::default()
    };
    if let Some(Prop::SZ((w, h))) = root.get_property("SZ") {
        if w != h {
            return Err(format!("SZ[{w}:{h}]: only square boards over GTP"));
        }
        rec.size = *w as usize;
    }
    if let Some(Prop::KM(k)) = root.get_property("KM") {
        rec.komi = Some(*k as f32);
    }
    let size = rec.size;
    let pass_like = |x: u8, y: u8| x as usize >= size || y as usize >= size;
    for node in root.main_variation() {
        for p in node.properties() {
            match p {
                Prop::AB(pts) | Prop::AW(pts) => {
                    let c = if matches!(p, Prop::AB(_)) {
                        Colour::Black
                    } else {
                        Colour::White
                    };
                    let mut v: Vec<_> = pts.iter().collect();
                    v.sort_by_key(|p| (p.y, p.x));
                    for pt in v {
                        if !pass_like(pt.x, pt.y) {
                            rec.setup.push((c, pt.x as usize, pt.y as usize));
                        }
                    }
                }
                Prop::B(m) | Prop::W(m) => {
                    let c = if matches!(p, Prop::B(_)) {
                        Colour::Black
                    } else {
                        Colour::White
                    };
                    let at = match m {
                        Move::Pass => None,
                        Move::Move(pt) if pass_like(pt.x, pt.y) => None,
                        Move::Move(pt) => Some((pt.x as usize, pt.y as usize)),
                    };
                    rec.moves.push((c, at));
                }
                _ => {}
            }
        }
    }
    Ok(rec)
}
