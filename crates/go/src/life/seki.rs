//! Seki: groups of both colours that live only because neither side can approach their shared
//! liberties, and the empty points inside them (the shared liberties and the seki groups' eyes).
//!
//! A region of empty points touching both colours is a seki region when no point of it can be
//! played by either side without the played chain being left with at most one liberty (or being
//! suicide), and at least one chain around it is not pass-alive. The chains around such a
//! region are in seki; single-colour regions (eyes) bordered only by seki chains are seki points too.

use super::benson::Benson;
use crate::board::Board;
use crate::point::{Color, Point};
use crate::scoring::PointSet;

/// The seki found in a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SekiInfo {
    /// Stones of chains in seki.
    pub stones: PointSet,
    /// Empty points inside seki (shared liberties and eyes of seki groups).
    pub points: PointSet,
}

/// Whether `c` can play `p` without its chain being left in atari or captured (a capture counts
/// as safe).
fn approachable(board: &Board, p: Point, c: Color) -> bool {
    let Ok(probe) = board.probe(p, c) else {
        return false;
    };
    if probe.suicide > 0 {
        return false;
    }
    if probe.captured > 0 {
        return true;
    }
    let mut libs = PointSet::new();
    for q in board.neighbours(p) {
        match board.get(q) {
            None => libs.insert(q),
            Some(o) if o == c => {
                for l in board.liberties(q) {
                    libs.insert(l);
                }
            }
            Some(_) => {}
        }
    }
    libs.remove(p);
    libs.len() >= 2
}

/// Finds the seki of `board` once `dead` stones are taken off; `benson` is the board's verdict.
pub fn find_seki(board: &Board, dead: &PointSet, benson: &Benson) -> SekiInfo {
    let mut b = board.clone();
    for p in dead.iter() {
        if b.get(p).is_some() {
            b.remove_chain(p);
        }
    }
    let mut info = SekiInfo::default();
    let mut seen = PointSet::new();
    let mut eyes: Vec<(Vec<Point>, Color)> = Vec::new();
    for start in b.points() {
        if b.get(start).is_some() || seen.contains(start) {
            continue;
        }
        seen.insert(start);
        let mut region = vec![start];
        let mut i = 0;
        let mut touches = [false; 2];
        let mut around = PointSet::new();
        while i < region.len() {
            let p = region[i];
            i += 1;
            for q in b.neighbours(p) {
                match b.get(q) {
                    Some(c) => {
                        touches[c.index()] = true;
                        around.insert(q);
                    }
                    None if !seen.contains(q) => {
                        seen.insert(q);
                        region.push(q);
                    }
                    None => {}
                }
            }
        }
        match touches {
            [true, true] => {
                let weak = around.iter().any(|q| !benson.alive.contains(q));
                let locked = region.iter().all(|&p| {
                    !approachable(&b, p, Color::Black) && !approachable(&b, p, Color::White)
                });
                if weak && locked {
                    for &p in &region {
                        info.points.insert(p);
                    }
                    for q in around.iter() {
                        if !info.stones.contains(q) {
                            for s in b.chain_stones(q) {
                                info.stones.insert(s);
                            }
                        }
                    }
                }
            }
            [true, false] => eyes.push((region, Color::Black)),
            [false, true] => eyes.push((region, Color::White)),
            _ => {}
        }
    }
    for (region, _) in eyes {
        let bordered_by_seki = region.iter().all(|&p| {
            b.neighbours(p)
                .all(|q| b.get(q).is_none() || info.stones.contains(q))
        });
        if bordered_by_seki {
            for p in region {
                info.points.insert(p);
            }
        }
    }
    info
}
