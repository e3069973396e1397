//! The side-by-side table of one game scored under several rule sets: the rows `baduk go score
//! --json` prints and the server's reviews serve (one builder, so both give the same rows for
//! the same position and marks).
//!
//! Each row settles life and death once per rule set — the dead stones of the estimate (or the
//! referee's marks), adjusted by verification play under `life=verify` and art. 7 confirmation
//! under `life=japanese`, or none at all after a JK art. 4.3 ending — then counts with
//! [`super::score`] and notes why.

use super::record::Record;
use super::{PointSet, Score, Settled};
use crate::game::GameEnd;
use crate::life::{self, Bound, ChainStatus, Estimate, Mode, Status, Verification};
use crate::point::Point;
use crate::rules::{End, HandicapBonus, Komi, Life, Rules};
use crate::sgf::SgfGame;
use serde_json::json;

/// Where the rows' komi comes from (`go score --komi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KomiChoice {
    /// The file's `KM`, else the preset's.
    Game,
    /// Each preset's own.
    Preset,
    /// This one for every row.
    Fixed(Komi),
}

/// Sets each row's komi as `choice` says and returns the header line that says where it came
/// from. `explicit` (the second of each pair) marks a rules string that sets `komi=` itself
/// (kept as given).
pub fn apply_komi(rows: &mut [(Rules, bool)], choice: KomiChoice, km: Option<Komi>) -> String {
    for (r, explicit) in rows.iter_mut() {
        if *explicit {
            continue;
        }
        match (choice, km) {
            (KomiChoice::Fixed(k), _) | (KomiChoice::Game, Some(k)) => {
                r.set("komi", &k.to_string())
                    .expect("a parsed komi is a valid komi");
            }
            _ => {}
        }
    }
    match (choice, km) {
        (KomiChoice::Game, Some(k)) => format!(
            "komi {k} from the record (KM[{k}]); --komi preset scores with each rule set's own"
        ),
        (KomiChoice::Game, None) => {
            "komi: the record has no KM, so each rule set's own komi".to_string()
        }
        (KomiChoice::Preset, _) => "komi: each rule set's own (--komi preset)".to_string(),
        (KomiChoice::Fixed(k), _) => format!("komi {k} for every rule set (--komi {k})"),
    }
}

/// Where a row's komi came from, for the JSON (`record`, `preset`, `option`, `rules`).
pub fn komi_from(rules: &Rules, choice: KomiChoice, km: Option<Komi>) -> &'static str {
    let preset = Rules::preset(rules.preset).komi;
    match (choice, km) {
        (KomiChoice::Fixed(k), _) if k == rules.komi => "option",
        (KomiChoice::Game, Some(k)) if k == rules.komi => "record",
        _ if rules.komi == preset => "preset",
        _ => "rules",
    }
}

/// One scored row: the rules, the score and the extra notes of the settlement.
#[derive(Clone, Debug)]
pub struct Row {
    /// The rule set (on the game's board size, with its komi).
    pub rules: Rules,
    /// The count.
    pub score: Score,
    /// Notes of the settlement (verification lines, unsettled chains, handicap), after the
    /// score's own.
    pub notes: Vec<String>,
    /// Where the dead stones came from: `marks`, `estimator` or `jk_ending`.
    pub dead_from: &'static str,
}

impl Row {
    /// The row as `go score --json` prints it: [`Score::to_json`] with `komi_from`,
    /// `dead_from` and every note.
    pub fn to_json(&self, choice: KomiChoice, km: Option<Komi>) -> serde_json::Value {
        let mut notes = self.score.notes.clone();
        notes.extend(self.notes.iter().cloned());
        let mut v = self.score.to_json(&self.rules);
        v["komi_from"] = json!(komi_from(&self.rules, choice, km));
        v["dead_from"] = json!(self.dead_from);
        v["notes"] = json!(notes);
        v
    }
}

/// How the game ended under `rules`, replayed from the file (only asked where the rules end
/// games by JK sequences; `None` if it has not ended or a move is illegal under them).
pub fn jk_end(game: &SgfGame, rules: &Rules) -> Option<GameEnd> {
    if rules.end != End::Jk {
        return None;
    }
    game.replay(*rules, None).ok()?.end()
}

/// Each rule set on the game's board, with how the game ended under it where that matters
/// (a JK art. 4.3 sequence).
pub fn with_ends(
    game: &SgfGame,
    rec: &Record,
    list: Vec<(Rules, bool)>,
) -> Vec<(Rules, Option<GameEnd>)> {
    let size = rec.board.size();
    list.into_iter()
        .map(|(r, _)| {
            let rules = r.with_size(size);
            let end = jk_end(game, &rules);
            (rules, end)
        })
        .collect()
}

/// Whether some rule set saw the game finished by a JK art. 4.3 sequence (`ECCE`/`ECCCCE` do
/// not end in two passes but finish the game).
pub fn jk_finished(list: &[(Rules, Option<GameEnd>)]) -> bool {
    list.iter()
        .any(|(_, e)| matches!(e, Some(GameEnd::JkSequence { .. })))
}

/// Chains the estimator could not settle: verified under `life=verify` (Kang rules 6–7,
/// Korean) and `life=japanese` (art. 7), at most this many per game.
pub const MAX_VERIFIED: usize = 8;

fn point_list(ps: &[Point]) -> String {
    ps.iter()
        .map(Point::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The settlement under one rule set: the estimator's dead stones, adjusted by verification
/// play where the rules call for it, and the notes explaining it.
fn settle(
    board: &crate::Board,
    est: &Estimate,
    rules: &Rules,
    cache: &mut Vec<(Point, Mode, Verification)>,
) -> (Settled, Vec<String>) {
    let mut settled = est.settled;
    let mut notes = Vec::new();
    if rules.life == Life::AsIs {
        return (settled, notes);
    }
    let unsettled: Vec<Point> = est
        .chains
        .iter()
        .filter(|c| c.status == ChainStatus::Unsettled)
        .map(|c| c.anchor)
        .collect();
    let mode = match rules.life {
        Life::Verify => Some(Mode::Verify),
        Life::Japanese => Some(Mode::Japanese),
        _ => None,
    };
    match mode {
        Some(mode) if !est.from_marks => {
            for &a in unsettled.iter().take(MAX_VERIFIED) {
                let v = match cache.iter().find(|(p, m, _)| *p == a && *m == mode) {
                    Some((_, _, v)) => v.clone(),
                    None => {
                        let bound = Bound {
                            depth: 10,
                            nodes: 3_000,
                        };
                        let v = life::verify(board, a, mode, bound);
                        cache.push((a, mode, v.clone()));
                        v
                    }
                };
                let how = if mode == Mode::Verify {
                    "verification play"
                } else {
                    "art. 7 confirmation"
                };
                match v.status {
                    Status::Dead => {
                        for s in board.chain_stones(a) {
                            settled.dead.insert(s);
                        }
                    }
                    Status::Alive | Status::Seki => {
                        for s in board.chain_stones(a) {
                            settled.dead.remove(s);
                        }
                    }
                    // Undecided: the playout majority stands, and the note says why.
                    _ => {}
                }
                let line = match v.status {
                    Status::Dead | Status::Alive | Status::Seki => format!(
                        " (opponent first: {}; owner first: {})",
                        v.opponent_first.text(),
                        v.owner_first.text()
                    ),
                    _ => String::new(),
                };
                notes.push(format!("{how} {a}: {}{line}", v.status));
            }
            if unsettled.len() > MAX_VERIFIED {
                notes.push(format!(
                    "{} more unsettled chains counted by the playout majority",
                    unsettled.len() - MAX_VERIFIED
                ));
            }
        }
        _ => {
            if !unsettled.is_empty() {
                notes.push(format!(
                    "unsettled (counted by the playout majority): {}",
                    point_list(&unsettled)
                ));
            }
        }
    }
    for c in &est.contradictions {
        notes.push(format!("contradictory mark: {c}"));
    }
    (settled, notes)
}

/// Scores `rec`'s position under every rule set of `list` (from [`with_ends`]) with the dead
/// stones of `est` (the estimator's or the marks'), one row each. `jk_finished`: the game
/// ended by a JK sequence under some rule set (the others then say they scored it as if it
/// ended now).
pub fn rows(
    rec: &Record,
    est: &Estimate,
    list: Vec<(Rules, Option<GameEnd>)>,
    jk_finished: bool,
) -> Vec<Row> {
    let mut cache = Vec::new();
    let no_dead_seki =
        || life::find_seki(&rec.board, &PointSet::new(), &life::benson(&rec.board)).points;
    list.into_iter()
        .map(|(rules, end)| {
            let (settled, mut notes, dead_from) = match Settled::imposed_by_end(end, no_dead_seki())
            {
                Some((settled, note)) => (settled, vec![note], "jk_ending"),
                None => {
                    let (settled, notes) = settle(&rec.board, est, &rules, &mut cache);
                    let from = if est.from_marks { "marks" } else { "estimator" };
                    (settled, notes, from)
                }
            };
            let jk = matches!(end, Some(GameEnd::JkSequence { .. }));
            if !rec.finished && jk_finished && !jk {
                notes.push("not finished under these rules: scored as if it ended now".into());
            }
            let s = super::score(&rec.board, &rec.facts, &settled, &rules);
            if rec.facts.handicap >= 2 && rules.handicap_bonus == HandicapBonus::Zero {
                notes.push(format!(
                    "handicap {}: no compensation to W under these rules",
                    rec.facts.handicap
                ));
            }
            Row {
                rules,
                score: s,
                notes,
                dead_from,
            }
        })
        .collect()
}
