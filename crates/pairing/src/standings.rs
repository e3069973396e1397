//! Standings: the ordered table with score and tie-breaks, the crosstable, and its export as CSV
//! and as an EGF results file.
//!
//! Tie-breaks as the EGF Tournament System Rules define them (R. Jasiek's text of the EGF's
//! rules, <http://home.snafu.de/jasiek/egftsr.html>, "Definition of Other Tiebreakers" and "The
//! Effect of Unplayed Games"), with the score meaning the McMahon score in a McMahon and the
//! points in a Swiss:
//! - **SOS**: the sum of the final scores of the player's opponents, one per round. A round
//!   without a played game (a bye, a round sat out, an unplayed game) adds the player's own
//!   *start* McMahon score in a McMahon and 0 in a Swiss (a Swiss's start score is 0, so one
//!   rule covers both).
//! - **SOSOS**: the sum of the opponents' SOS; a round without a played game adds 0.
//! - **SODOS**: the sum of the final scores of the opponents the player beat, plus half the
//!   score of each opponent of a jigo (chess's Sonneborn–Berger); a round without a played game
//!   adds 0.
//!
//! The EGF results file is the tournament table the EGD's rating program reads (A. Čiepły's
//! "Comments on submitting tournament results", <http://gemma.ujf.cas.cz/~cieply/GO/format.html>):
//! one line a player, everything after `;` a comment, each round's entry
//! `<opponent's place><+|-|=>/<b|w>[<handicap>]`, and a round without a game `0+` (a free
//! win), `0-` (a free round) or `0=` (a free round worth ½), preceded by the header comments
//! `; CL[…]`, `; EV[…]`, `; PC[…]`, `; DT[…]`, `; HA[…]`, `; KM[…]`, `; TM[…]` that pairing
//! programs write for it.

use crate::swiss::points;
use crate::{fmt_points, History, Outcome, Player, PlayerId};
use std::collections::HashMap;

/// A column the table is ordered by, first to last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieBreak {
    /// The score (McMahon score in a McMahon).
    Score,
    /// Sum of opponents' scores.
    Sos,
    /// Sum of opponents' SOS.
    Sosos,
    /// Sum of defeated opponents' scores.
    Sodos,
}

impl TieBreak {
    fn label(self, score: &str) -> String {
        match self {
            TieBreak::Score => score.to_string(),
            TieBreak::Sos => "SOS".into(),
            TieBreak::Sosos => "SOSOS".into(),
            TieBreak::Sodos => "SODOS".into(),
        }
    }
}

/// One round of one player in the crosstable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell {
    /// A played game: the opponent, this player's points (1, ½ or 0), whether this player had
    /// black, and the handicap.
    Game {
        /// The opponent.
        opponent: PlayerId,
        /// 1 a win, 0.5 a jigo, 0 a loss.
        points: f64,
        /// Whether this player had black.
        black: bool,
        /// The game's handicap.
        handicap: u8,
    },
    /// A game paired but not played (no point, no opponent in the tie-breaks).
    Unplayed {
        /// The opponent it was paired with.
        opponent: PlayerId,
    },
    /// The bye, worth these points.
    Bye {
        /// The bye's points.
        points: f64,
    },
    /// Not in the round.
    Absent,
}

/// One player's line of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The place, from 1.
    pub place: usize,
    /// The player.
    pub player: Player,
    /// The score (McMahon score in a McMahon).
    pub score: f64,
    /// Sum of opponents' scores.
    pub sos: f64,
    /// Sum of opponents' SOS.
    pub sosos: f64,
    /// Sum of defeated opponents' scores (half for a jigo).
    pub sodos: f64,
    /// The rounds, first first.
    pub cells: Vec<Cell>,
}

impl Row {
    fn value(&self, t: TieBreak) -> f64 {
        match t {
            TieBreak::Score => self.score,
            TieBreak::Sos => self.sos,
            TieBreak::Sosos => self.sosos,
            TieBreak::Sodos => self.sodos,
        }
    }
}

/// The ordered table of an event.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// The rows, first place first.
    pub rows: Vec<Row>,
    /// The columns the table is ordered by.
    pub order: Vec<TieBreak>,
    /// The score column's name ("MMS" or "Score").
    pub score_label: String,
}

/// Who a player is, for the exported tables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Person {
    /// The name; for the EGF file surname then first name, as the EGD spells them.
    pub name: String,
    /// Two-letter country code (EGF file).
    pub country: String,
    /// Club, at most four letters in the EGF file.
    pub club: String,
}

/// The EGF results file's header fields, written as given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EgfHeader {
    /// Tournament class, "A" to "D".
    pub class: String,
    /// The event's name.
    pub event: String,
    /// Where: "CC, City".
    pub place: String,
    /// Dates: "YYYY-MM-DD,YYYY-MM-DD".
    pub dates: String,
    /// The handicap field as the organiser states it, e.g. "h9" or "h0".
    pub handicap: String,
    /// The komi.
    pub komi: String,
    /// Adjusted time in minutes.
    pub time: String,
}

impl Standings {
    /// The table of `players` (every player of `history`) with their start scores (0 in a Swiss)
    /// and byes worth `bye_points`, ordered by `order` then rating, then id.
    pub fn compute(
        players: &[Player],
        history: &History,
        start: impl Fn(&Player) -> f64,
        bye_points: f64,
        score_label: &str,
        order: &[TieBreak],
    ) -> Standings {
        let start_of: HashMap<PlayerId, f64> = players.iter().map(|p| (p.id, start(p))).collect();
        let score: HashMap<PlayerId, f64> = players
            .iter()
            .map(|p| (p.id, start_of[&p.id] + points(p.id, history, bye_points)))
            .collect();
        let get = |m: &HashMap<PlayerId, f64>, id: PlayerId| m.get(&id).copied().unwrap_or(0.0);
        let cells: HashMap<PlayerId, Vec<Cell>> = players
            .iter()
            .map(|p| (p.id, crosstable_cells(p.id, history, bye_points)))
            .collect();
        let sos: HashMap<PlayerId, f64> = players
            .iter()
            .map(|p| {
                let s = cells[&p.id]
                    .iter()
                    .map(|c| match c {
                        Cell::Game { opponent, .. } => get(&score, *opponent),
                        _ => start_of[&p.id],
                    })
                    .sum();
                (p.id, s)
            })
            .collect();
        let mut rows: Vec<Row> = players
            .iter()
            .map(|p| {
                let (mut sosos, mut sodos) = (0.0, 0.0);
                for c in &cells[&p.id] {
                    if let Cell::Game {
                        opponent, points, ..
                    } = c
                    {
                        sosos += get(&sos, *opponent);
                        sodos += points * get(&score, *opponent);
                    }
                }
                Row {
                    place: 0,
                    player: *p,
                    score: score[&p.id],
                    sos: sos[&p.id],
                    sosos,
                    sodos,
                    cells: cells[&p.id].clone(),
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            order
                .iter()
                .fold(std::cmp::Ordering::Equal, |acc, &t| {
                    acc.then(b.value(t).total_cmp(&a.value(t)))
                })
                .then(b.player.rating.total_cmp(&a.player.rating))
                .then(a.player.id.cmp(&b.player.id))
        });
        for (i, r) in rows.iter_mut().enumerate() {
            r.place = i + 1;
        }
        Standings {
            rows,
            order: order.to_vec(),
            score_label: score_label.to_string(),
        }
    }

    /// `id`'s row.
    pub fn row(&self, id: PlayerId) -> Option<&Row> {
        self.rows.iter().find(|r| r.player.id == id)
    }

    /// A crosstable entry as text: "3+/w", "5-/b2" (opponent's place, result, colour, handicap
    /// when there is one), "0+" / "0=" / "0-" for a bye worth 1, ½ or 0, and "0-" for a round
    /// without a game.
    pub fn cell_text(&self, cell: &Cell) -> String {
        match *cell {
            Cell::Game {
                opponent,
                points,
                black,
                handicap,
            } => {
                let place = self.row(opponent).map_or(0, |r| r.place);
                let sign = if points == 1.0 {
                    '+'
                } else if points == 0.0 {
                    '-'
                } else {
                    '='
                };
                let colour = if black { 'b' } else { 'w' };
                if handicap > 0 {
                    format!("{place}{sign}/{colour}{handicap}")
                } else {
                    format!("{place}{sign}/{colour}")
                }
            }
            Cell::Bye { points } if points >= 1.0 => "0+".into(),
            Cell::Bye { points } if points > 0.0 => "0=".into(),
            _ => "0-".into(),
        }
    }

    fn columns(&self) -> Vec<TieBreak> {
        let mut cols = vec![TieBreak::Score];
        cols.extend(self.order.iter().filter(|&&t| t != TieBreak::Score));
        cols
    }

    /// The table as CSV: place, name, rank, score, tie-breaks, then one column a round.
    pub fn to_csv(&self, people: &HashMap<PlayerId, Person>) -> String {
        let rounds = self.rows.first().map_or(0, |r| r.cells.len());
        let mut head = vec!["place".to_string(), "name".into(), "rank".into()];
        head.extend(
            self.columns()
                .iter()
                .map(|t| t.label(&self.score_label).to_lowercase()),
        );
        head.extend((1..=rounds).map(|r| format!("round {r}")));
        let mut out = head.join(",") + "\n";
        for row in &self.rows {
            let mut f = vec![
                row.place.to_string(),
                csv_field(&name_of(people, row.player.id).name),
                row.player.rank.to_string(),
            ];
            f.extend(self.columns().iter().map(|&t| fmt_points(row.value(t))));
            f.extend(row.cells.iter().map(|c| self.cell_text(c)));
            out += &(f.join(",") + "\n");
        }
        out
    }

    /// The table as an EGF results file (see the module's doc).
    pub fn to_egf(&self, header: &EgfHeader, people: &HashMap<PlayerId, Person>) -> String {
        let mut out = String::new();
        for (key, value) in [
            ("CL", &header.class),
            ("EV", &header.event),
            ("PC", &header.place),
            ("DT", &header.dates),
            ("HA", &header.handicap),
            ("KM", &header.komi),
            ("TM", &header.time),
        ] {
            out += &format!("; {key}[{}]\n", value.replace(['[', ']', '\n'], " "));
        }
        out += ";\n";
        let rounds = self.rows.first().map_or(0, |r| r.cells.len());
        // Columns: place (right), name, rank (right), country, club, numbers (right), rounds.
        let mut table: Vec<Vec<String>> = Vec::new();
        let mut head = vec![
            "Pl".into(),
            "Name".into(),
            "Rk".into(),
            "Co".into(),
            "Club".into(),
        ];
        head.extend(self.columns().iter().map(|t| t.label(&self.score_label)));
        head.extend((1..=rounds).map(|r| r.to_string()));
        table.push(head);
        for row in &self.rows {
            let p = name_of(people, row.player.id);
            let mut f = vec![
                row.place.to_string(),
                egf_word(&p.name),
                row.player.rank.to_string(),
                egf_word(&p.country),
                egf_word(&p.club),
            ];
            f.extend(self.columns().iter().map(|&t| fmt_points(row.value(t))));
            f.extend(row.cells.iter().map(|c| self.cell_text(c)));
            table.push(f);
        }
        let cols = table[0].len();
        let width: Vec<usize> = (0..cols)
            .map(|c| {
                table
                    .iter()
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let left = |c: usize| c == 1 || c == 3 || c == 4 || c >= cols - rounds;
        for (i, r) in table.iter().enumerate() {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    if left(c) {
                        format!("{s:<w$}", w = width[c])
                    } else {
                        format!("{s:>w$}", w = width[c])
                    }
                })
                .collect();
            let prefix = if i == 0 { "; " } else { "  " };
            out += &format!("{prefix}{}", cells.join(" ").trim_end());
            out += "\n";
        }
        out
    }
}

fn name_of(people: &HashMap<PlayerId, Person>, id: PlayerId) -> Person {
    people.get(&id).cloned().unwrap_or_else(|| Person {
        name: format!("Player{id}"),
        country: "--".into(),
        club: "-".into(),
    })
}

/// A field of the EGF file: no `;` (a comment there), no line break, never empty.
fn egf_word(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| if c == ';' || c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if t.is_empty() {
        "-".into()
    } else {
        t
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `id`'s crosstable entries, one a round.
pub(crate) fn crosstable_cells(id: PlayerId, history: &History, bye_points: f64) -> Vec<Cell> {
    history
        .rounds
        .iter()
        .map(|r| {
            if r.bye == Some(id) {
                Cell::Bye { points: bye_points }
            } else if let Some(g) = r.game_of(id) {
                if g.outcome == Outcome::Unplayed {
                    Cell::Unplayed {
                        opponent: g.opponent(id),
                    }
                } else {
                    Cell::Game {
                        opponent: g.opponent(id),
                        points: g.points(id),
                        black: g.black == id,
                        handicap: g.handicap,
                    }
                }
            } else {
                Cell::Absent
            }
        })
        .collect()
}
