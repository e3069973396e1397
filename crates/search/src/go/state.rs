//! A game as the bot follows it: setup stones, the moves played, and the hashes of every
//! position so far, so that superko can be checked inside the tree. The rules library's `Game`
//! stays the authority on legality; this mirror follows the same `BotRules`.

use super::board::{Colour, FastBoard, Idx, SuicidePolicy, PASS};
use super::rules::{BotRules, KoRule};
use std::collections::HashSet;
use std::fmt;

/// Why a move was refused by the bot's mirror of the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// The point is off the board.
    OffBoard,
    /// The point holds a stone.
    Occupied,
    /// Immediate recapture of a single-stone ko.
    Ko,
    /// The move recreates an earlier position (positional or situational superko).
    Superko,
    /// The move leaves its own chain without liberties and the rules forbid it.
    Suicide,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Illegal::OffBoard => "off the board",
            Illegal::Occupied => "point is occupied",
            Illegal::Ko => "ko: immediate recapture is forbidden",
            Illegal::Superko => "superko: the move repeats an earlier position",
            Illegal::Suicide => "suicide is forbidden",
        })
    }
}

/// A game: setup, moves and position history under `BotRules`.
#[derive(Clone)]
pub struct GameState {
    /// The rules the game is played under.
    pub rules: BotRules,
    board: FastBoard,
    setup: Vec<(Colour, Idx)>,
    first: Colour,
    moves: Vec<(Colour, Idx)>,
    positional: Vec<u64>,
    situational: Vec<u64>,
}

impl GameState {
    /// An empty `size`×`size` game with Black to move.
    pub fn new(size: usize, rules: BotRules) -> GameState {
        GameState::new_rect(size, size, rules)
    }

    /// An empty `width`×`height` game with Black to move.
    pub fn new_rect(width: usize, height: usize, rules: BotRules) -> GameState {
        let board = FastBoard::new(width, height);
        GameState {
            rules,
            positional: vec![board.hash()],
            situational: vec![board.situational_hash()],
            board,
            setup: Vec::new(),
            first: Colour::Black,
            moves: Vec::new(),
        }
    }

    /// The current position.
    pub fn board(&self) -> &FastBoard {
        &self.board
    }

    /// The moves played since the setup, in order.
    pub fn moves(&self) -> &[(Colour, Idx)] {
        &self.moves
    }

    /// The setup (handicap) stones.
    pub fn setup_stones(&self) -> &[(Colour, Idx)] {
        &self.setup
    }

    /// The colour to move.
    pub fn to_move(&self) -> Colour {
        self.board.to_move()
    }

    /// Hashes (stones only) of every position reached so far, the current one last.
    pub fn positional_history(&self) -> &[u64] {
        &self.positional
    }

    /// Hashes (stones and side to move) of every position reached so far.
    pub fn situational_history(&self) -> &[u64] {
        &self.situational
    }

    /// The repetition hashes the rules forbid recreating, as a set.
    pub fn forbidden_set(&self) -> HashSet<u64> {
        match self.rules.ko {
            KoRule::Positional => self.positional.iter().copied().collect(),
            KoRule::Situational => self.situational.iter().copied().collect(),
            KoRule::Simple | KoRule::Jk => HashSet::new(),
        }
    }

    /// Places setup stones (handicap) before any move; White moves next when any were placed.
    pub fn place_setup(&mut self, stones: &[(Colour, Idx)]) {
        for &(c, i) in stones {
            if self.board.on_board(i) && self.board.is_empty(i) {
                self.board.setup(i, c);
                self.setup.push((c, i));
            }
        }
        if !stones.is_empty() {
            self.board.set_to_move(Colour::White);
            self.first = Colour::White;
        }
        self.positional = vec![self.board.hash()];
        self.situational = vec![self.board.situational_hash()];
    }

    /// Whether `c` may play at `i` now (a pass always may).
    pub fn check(&self, c: Colour, i: Idx) -> Result<(), Illegal> {
        if i == PASS {
            return Ok(());
        }
        let b = &self.board;
        if !b.on_board(i) {
            return Err(Illegal::OffBoard);
        }
        if !b.is_empty(i) {
            return Err(Illegal::Occupied);
        }
        if i == b.ko() && b.to_move() == c {
            return Err(Illegal::Ko);
        }
        if !b.has_liberty_after(i, c) {
            let multi = b.neighbours(i).iter().any(|&n| b.stone(n) == Some(c));
            match self.rules.suicide {
                SuicidePolicy::Forbidden => return Err(Illegal::Suicide),
                SuicidePolicy::MultiStone if !multi => return Err(Illegal::Suicide),
                _ => {}
            }
        }
        let h = b.hash_after(i, c);
        match self.rules.ko {
            KoRule::Positional if self.positional.contains(&h) => Err(Illegal::Superko),
            KoRule::Situational if self.situational.contains(&sit(h, c.opp())) => {
                Err(Illegal::Superko)
            }
            _ => Ok(()),
        }
    }

    /// Plays `c` at `i` (PASS to pass) if legal.
    pub fn play(&mut self, c: Colour, i: Idx) -> Result<(), Illegal> {
        self.check(c, i)?;
        self.board.set_to_move(c);
        if i == PASS {
            self.board.pass();
        } else {
            self.board.play(i, c);
        }
        self.moves.push((c, i));
        self.positional.push(self.board.hash());
        self.situational.push(self.board.situational_hash());
        Ok(())
    }

    /// Plays `c` at `i` without checking (the rules library has already accepted the move).
    pub fn force_play(&mut self, c: Colour, i: Idx) {
        self.board.set_to_move(c);
        if i == PASS {
            self.board.pass();
        } else if self.board.on_board(i) && self.board.is_empty(i) {
            self.board.play(i, c);
        }
        self.moves.push((c, i));
        self.positional.push(self.board.hash());
        self.situational.push(self.board.situational_hash());
    }

    /// Takes back the last move; false when there is none.
    pub fn undo(&mut self) -> bool {
        if self.moves.is_empty() {
            return false;
        }
        let mut moves = std::mem::take(&mut self.moves);
        moves.pop();
        let setup = std::mem::take(&mut self.setup);
        let mut g = GameState::new_rect(self.board.width(), self.board.height(), self.rules);
        g.place_setup(&setup);
        for (c, i) in moves {
            // Replaying moves that were legal keeps them legal.
            let _ = g.play(c, i);
        }
        *self = g;
        true
    }

    /// Every legal board point for `c` now (no pass).
    pub fn legal_points(&self, c: Colour) -> Vec<Idx> {
        self.board
            .points()
            .filter(|&i| self.board.is_empty(i) && self.check(c, i).is_ok())
            .collect()
    }

    /// Sets the colour to move (GTP lets either colour play or be asked for a move).
    pub fn set_to_move(&mut self, c: Colour) {
        self.board.set_to_move(c);
    }

    /// Whether the last two moves were passes.
    pub fn two_passes(&self) -> bool {
        let n = self.moves.len();
        n >= 2 && self.moves[n - 1].1 == PASS && self.moves[n - 2].1 == PASS
    }
}

/// The situational hash of stones `h` with `to_move` to play.
#[inline]
pub fn sit(h: u64, to_move: Colour) -> u64 {
    match to_move {
        Colour::Black => h,
        Colour::White => h ^ super::board::ZOBRIST_WHITE_TO_MOVE,
    }
}
