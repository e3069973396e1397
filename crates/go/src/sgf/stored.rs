//! A game read from SGF in a compact serde form: what a store keeps instead of the text, so a
//! later use rebuilds the [`SgfGame`] in time linear in its moves and stones, never reading the
//! SGF again. Points are SGF coordinates (`dd`; a pass is empty).

use super::SgfGame;
use crate::board::Board;
use crate::point::{Color, Move, Point, Size};
use crate::rules::Komi;
use crate::scoring::record::Marks;
use crate::scoring::PointSet;
use serde::{Deserialize, Serialize};

/// The serde form of an [`SgfGame`] (`serde_json::to_string(&game)` writes it).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredGame {
    /// The board.
    pub size: Size,
    /// The set-up's black and white stones.
    pub setup: [Vec<String>; 2],
    /// Who moves first.
    pub to_move: Color,
    /// `RU`.
    pub rules_name: Option<String>,
    /// `KM`.
    pub komi: Option<Komi>,
    /// `HA`.
    pub handicap: u32,
    /// `RE`.
    pub result: Option<String>,
    /// The main line: colour, point (empty: a pass), line in the file.
    pub moves: Vec<(Color, String, usize)>,
    /// `PB`, `PW`.
    pub players: [Option<String>; 2],
    /// The last node's `TB`, `TW` and `MA` points.
    pub marks: [Vec<String>; 3],
    /// Games in the file's collection.
    pub games: usize,
    /// Comments with the number of moves before them.
    pub comments: Vec<(usize, String)>,
}

impl From<SgfGame> for StoredGame {
    fn from(g: SgfGame) -> StoredGame {
        let size = g.size;
        let pts = |ps: &mut dyn Iterator<Item = Point>| -> Vec<String> {
            ps.map(|p| p.to_sgf(size)).collect()
        };
        let stones = |c: Color| pts(&mut g.setup.points().filter(|&p| g.setup.get(p) == Some(c)));
        StoredGame {
            size,
            setup: [stones(Color::Black), stones(Color::White)],
            to_move: g.to_move,
            rules_name: g.rules_name,
            komi: g.komi,
            handicap: g.handicap,
            result: g.result,
            moves: g
                .moves
                .iter()
                .map(|m| {
                    let at = match m.mv {
                        Move::Pass => String::new(),
                        Move::Play(p) => p.to_sgf(size),
                    };
                    (m.color, at, m.line)
                })
                .collect(),
            players: g.players,
            marks: [
                pts(&mut g.marks.territory[0].iter()),
                pts(&mut g.marks.territory[1].iter()),
                pts(&mut g.marks.dead.iter()),
            ],
            games: g.games,
            comments: g.comments,
        }
    }
}

impl TryFrom<StoredGame> for SgfGame {
    type Error = String;

    fn try_from(s: StoredGame) -> Result<SgfGame, String> {
        let size: Size = s.size;
        let point = |v: &str| Point::from_sgf(v, size).map_err(|e| e.to_string());
        let set = |vs: &[String]| -> Result<PointSet, String> {
            let mut out = PointSet::new();
            for v in vs {
                out.insert(point(v)?);
            }
            Ok(out)
        };
        let mut setup = Board::new(size);
        for (stones, c) in s.setup.iter().zip([Color::Black, Color::White]) {
            let pts = stones
                .iter()
                .map(|v| point(v))
                .collect::<Result<Vec<_>, _>>()?;
            setup.set_many(&pts, Some(c)).map_err(|e| e.to_string())?;
        }
        let moves = s
            .moves
            .into_iter()
            .map(|(color, at, line)| {
                let mv = if at.is_empty() {
                    Move::Pass
                } else {
                    Move::Play(point(&at)?)
                };
                Ok(super::SgfMove { color, mv, line })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(SgfGame {
            size,
            setup,
            to_move: s.to_move,
            rules_name: s.rules_name,
            komi: s.komi,
            handicap: s.handicap,
            result: s.result,
            moves,
            players: s.players,
            marks: Marks {
                territory: [set(&s.marks[0])?, set(&s.marks[1])?],
                dead: set(&s.marks[2])?,
            },
            games: s.games,
            comments: s.comments,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_round_trips_through_its_stored_form() {
        let text = "(;SZ[9]KM[6.5]RU[Chinese]HA[2]AB[cc][gg]AW[ee:ef]PB[a]PW[b]RE[W+R]C[start]\n\
                    ;W[dd]C[one];B[];W[tt]\n;B[aa]TB[ii]TW[hh]MA[cc])";
        let g = SgfGame::parse(text).unwrap();
        let json = serde_json::to_string(&g).unwrap();
        let back: SgfGame = serde_json::from_str(&json).unwrap();
        assert_eq!(back.setup, g.setup);
        assert_eq!(back.moves, g.moves);
        assert_eq!(back.comments, g.comments);
        assert_eq!(
            back.marks.dead.iter().collect::<Vec<_>>(),
            [Point::new(2, 6)]
        );
        assert_eq!(
            (back.komi, back.handicap, back.to_move, &back.players),
            (g.komi, g.handicap, g.to_move, &g.players)
        );
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        // A stored form that names a point off its board is refused, not trusted.
        let bad = json.replace("\"cc\"", "\"zz\"");
        assert!(serde_json::from_str::<SgfGame>(&bad).is_err());
    }
}
