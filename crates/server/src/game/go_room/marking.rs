//! The dead-stone phase of a Go game, apart from its play: marks, restores and accepts, the bot's
//! answer, and a dispute's ways (resumption, verification or no result) under each rule set.

use super::*;

impl GoRoom {
    pub(super) fn start_marking(&mut self) {
        let board = self.game.board();
        let cfg = EstimateConfig {
            seed: EstimateConfig::default().seed ^ self.game.move_count() as u64,
            ..EstimateConfig::default()
        };
        let est = crate::game::work::in_place(|| life::estimate(board, &cfg));
        let unsettled = est
            .chains
            .iter()
            .filter(|c| c.status == ChainStatus::Unsettled)
            .map(|c| c.anchor)
            .collect();
        self.marking = Some(Marking {
            proposed: est.settled.dead,
            dead: est.settled.dead,
            unsettled,
            accepted: [false; 2],
            clicked: Vec::new(),
            restored: None,
        });
        self.phase = Phase::Marking;
    }

    pub(super) fn act_marking(
        &mut self,
        seat: usize,
        verb: &str,
        arg: Option<&str>,
        action: &str,
        ing: [u32; 2],
    ) -> Result<(), ActError> {
        let board = self.game.board().clone();
        match (verb, arg) {
            ("dead", Some(p)) | ("alive", Some(p)) => {
                let p = self.point(p)?;
                if board.get(p).is_none() {
                    return Err(ActError::illegal(format!("{verb} {p}: no stone there to mark"))
                        .with_code("marking.empty", json!({"point": p.to_string()})));
                }
                let m = self.marking.as_mut().expect("marking phase has marks");
                for s in board.chain_stones(p) {
                    if verb == "dead" {
                        m.dead.insert(s);
                    } else {
                        m.dead.remove(s);
                    }
                }
                m.clicked.retain(|&q| !board.chain_stones(p).any(|s| s == q));
                m.clicked.push(p);
                m.accepted = [false; 2];
                m.restored = None;
                Ok(())
            }
            ("restore", None) => {
                let m = self.marking.as_mut().expect("marking phase has marks");
                let chains = differing_chains(&board, m);
                if chains.is_empty() {
                    return Err(ActError::conflict(
                        "restore: the marks already are the proposal; nothing to put back",
                    )
                    .with_code("marking.nothing_to_restore", Value::Null));
                }
                for &c in &chains {
                    for s in board.chain_stones(c) {
                        if m.proposed.contains(s) {
                            m.dead.insert(s);
                        } else {
                            m.dead.remove(s);
                        }
                    }
                }
                m.accepted = [false; 2];
                m.restored = Some((seat, chains));
                Ok(())
            }
            ("accept", None) => {
                let m = self.marking.as_mut().expect("marking phase has marks");
                m.accepted[seat] = true;
                if m.accepted == [true, true] {
                    self.finish(ing);
                }
                Ok(())
            }
            ("dispute", way) => self.dispute(seat, way, ing),
            ("undo", None) => Err(ActError::conflict(
                "undo: not during the dead-stone phase (dispute to resume play where the rules allow)",
            )
            .with_code("undo.not_now", Value::Null)),
            _ => Err(ActError::bad_request(format!(
                "`{action}`: not an action of the dead-stone phase (dead D4, alive D4, restore, accept, dispute, resign)"
            ))
            .with_code("action.unknown", json!({"action": action}))),
        }
    }

    /// What a bot answers in the dead-stone phase: `accept` when the marks agree with its own
    /// analysis (the estimator's proposal; a chain the estimator could not settle is the
    /// players' call), else `restore` (its marks back, the chains named). Never a dispute.
    pub fn bot_marking_answer(&self) -> &'static str {
        match &self.marking {
            Some(m) if !differing_chains(self.game.board(), m).is_empty() => "restore",
            _ => "accept",
        }
    }

    /// What the server answers for a bot account's seat (the Bot API): as
    /// [`GoRoom::bot_marking_answer`], but a chain of the bot's that the estimator could not
    /// settle and a person marked dead is disputed (settled as the rules say: verification,
    /// confirmation or resumption), never accepted on the person's word.
    pub fn bot_account_marking_answer(&self, seat: usize) -> &'static str {
        let answer = self.bot_marking_answer();
        let (Some(m), "accept") = (&self.marking, answer) else {
            return answer;
        };
        let board = self.game.board();
        let mine = color_of(seat);
        let marked_dead = m.unsettled.iter().any(|&p| {
            board.get(p) == Some(mine) && board.chain_stones(p).any(|s| m.dead.contains(s))
        });
        if marked_dead {
            "dispute"
        } else {
            "accept"
        }
    }

    /// The ways a dispute can go under these rules (`resume`, `verify`, `confirm`).
    pub fn dispute_ways(&self) -> &'static [&'static str] {
        match self.rules.life {
            Life::Resume | Life::AsIs => &["resume"],
            Life::Verify => &["verify"],
            // Japanese 1989: art. 9 (resumption of play, the opponent first) or art. 7's
            // confirmation of the disputed chains.
            Life::Japanese => &["resume", "confirm"],
        }
    }

    /// A dispute over life and death, settled as the game's rules say (`way`: one of
    /// [`GoRoom::dispute_ways`]; none: the first).
    pub(super) fn dispute(
        &mut self,
        seat: usize,
        way: Option<&str>,
        ing: [u32; 2],
    ) -> Result<(), ActError> {
        let ways = self.dispute_ways();
        let way = way.unwrap_or(if self.rules.life == Life::Japanese {
            "confirm"
        } else {
            ways[0]
        });
        if !ways.contains(&way) {
            return Err(ActError::bad_request(format!(
                "dispute {way}: under these rules a dispute is {}",
                ways.join(" or ")
            ))
            .with_code("dispute.way", json!({"way": way, "ways": ways})));
        }
        let m = self.marking.clone().expect("marking phase has marks");
        let board = self.game.board().clone();
        if way == "resume" {
            // Area rules: play on, captures settle it. Japanese art. 9: play resumes with the
            // opponent of the player who asked moving first (their ending pass is taken back
            // when the asker would be to move).
            self.game.resume();
            if self.rules.life == Life::Japanese && self.game.to_move() == color_of(seat) {
                self.game.undo();
            }
            self.marking = None;
            self.verification.clear();
            self.checks.clear();
            self.phase = Phase::Play;
            return Ok(());
        }
        let mode = if way == "verify" {
            Mode::Verify
        } else {
            Mode::Japanese
        };
        // The disputed chains: those whose marks differ from the proposal, and the ones the
        // estimator could not settle.
        let mut targets = differing_chains(&board, &m);
        let mut seen = PointSet::new();
        for &t in &targets {
            board.chain_stones(t).for_each(|s| seen.insert(s));
        }
        for &p in &m.unsettled {
            if !seen.contains(p) {
                board.chain_stones(p).for_each(|s| seen.insert(s));
                targets.push(name_of(&board, &m, p));
            }
        }
        if targets.is_empty() {
            return Err(ActError::conflict(
                "dispute: no chain is in dispute (mark the chains you disagree about first)",
            )
            .with_code("dispute.nothing", Value::Null));
        }
        targets.truncate(8);
        let mut dead = m.dead;
        let mut undecided = Vec::new();
        self.verification.clear();
        self.checks.clear();
        for &t in &targets {
            let bound = Bound {
                depth: 10,
                nodes: 3_000,
            };
            let v = crate::game::work::in_place(|| life::verify(&board, t, mode, bound));
            let owner = board.get(t).expect("a target is a stone");
            let (line, check) = check_lines(mode, t, owner, board.chain_stones(t).count(), &v);
            self.verification.push(line);
            self.checks.push(check);
            match v.status {
                Status::Dead => board.chain_stones(t).for_each(|s| dead.insert(s)),
                Status::Alive | Status::Seki => board.chain_stones(t).for_each(|s| dead.remove(s)),
                Status::Undecided(r) | Status::Disputed(r) => {
                    // Undecided within the bound: the estimator's verdict stands for the chain.
                    for s in board.chain_stones(t) {
                        if m.proposed.contains(s) {
                            dead.insert(s);
                        } else {
                            dead.remove(s);
                        }
                    }
                    undecided.push((t, r));
                }
            }
        }
        if let Some(mm) = self.marking.as_mut() {
            mm.dead = dead;
        }
        if mode == Mode::Japanese && !undecided.is_empty() {
            // Japanese 1989: what art. 7's confirmation does not settle stays disputed: no
            // result (a referee's matter), not a draw.
            let chains: Vec<String> = undecided.iter().map(|(p, _)| p.to_string()).collect();
            let detail = format!(
                "no result (disputed): the art. 7 confirmation does not settle {} ({})",
                chains.join(", "),
                undecided
                    .iter()
                    .map(|(p, r)| format!("{p}: {r}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            let rows = self.rows(&dead, ing);
            self.result = Some(GoResult {
                text: "Void".into(),
                winner: None,
                reason: "disputed",
                detail,
                code: ("result.disputed", json!({"chains": chains})),
                rows,
            });
            self.phase = Phase::Finished;
            return Ok(());
        }
        // The verdicts decide; the board is counted with them.
        let undecided: Vec<String> = undecided.iter().map(|(p, r)| format!("{p}: {r}")).collect();
        self.finish_scored(&dead, ing, Some(undecided));
        Ok(())
    }
}

/// The chains whose marks differ from the estimator's proposal, leaving out those it could not
/// settle; each named by the point a player clicked on it, if any.
pub(super) fn differing_chains(board: &Board, m: &Marking) -> Vec<Point> {
    let mut seen = PointSet::new();
    for &u in &m.unsettled {
        board.chain_stones(u).for_each(|s| seen.insert(s));
    }
    let mut out = Vec::new();
    for p in board.points() {
        if board.get(p).is_some()
            && !seen.contains(p)
            && m.dead.contains(p) != m.proposed.contains(p)
        {
            board.chain_stones(p).for_each(|s| seen.insert(s));
            out.push(name_of(board, m, p));
        }
    }
    out
}

/// The name of `p`'s chain: the point a player clicked on it, else `p`.
pub(super) fn name_of(board: &Board, m: &Marking, p: Point) -> Point {
    m.clicked
        .iter()
        .rev()
        .copied()
        .find(|&c| board.chain_stones(p).any(|s| s == c))
        .unwrap_or(p)
}

/// One verification as a sentence and as data: the chain, its owner, the verdict and both lines
/// with their moves ("no sequence captures it" when the owner's chain survives without one).
pub(super) fn check_lines(
    mode: Mode,
    t: Point,
    owner: Color,
    stones: usize,
    v: &life::Verification,
) -> (String, Value) {
    use baduk_go::life::verify::Outcome;
    let word = |o: Outcome| match o {
        Outcome::Captured => "captured",
        Outcome::Survived => "survived",
        Outcome::Bound => "bound",
    };
    let seq = |l: &life::verify::Line| -> Vec<String> {
        l.sequence
            .iter()
            .map(|(c, m)| format!("{} {m}", c.letter()))
            .collect()
    };
    let line_text = |l: &life::verify::Line| {
        let moves = seq(l).join(" ");
        match (l.outcome, moves.is_empty()) {
            (Outcome::Survived, true) => "no sequence captures it".to_string(),
            (Outcome::Survived, false) => format!("{moves}, the chain survives"),
            (Outcome::Captured, _) => format!("{moves}, the chain is captured"),
            (Outcome::Bound, _) => format!("{moves} … (search limit reached)"),
        }
    };
    let line_json = |l: &life::verify::Line| {
        json!({
            "first": SEATS[seat_of(l.first)],
            "outcome": word(l.outcome),
            "moves": seq(l),
        })
    };
    let (status, reason) = match &v.status {
        Status::Alive => ("alive", None),
        Status::Dead => ("dead", None),
        Status::Seki => ("seki", None),
        Status::Undecided(r) => ("undecided", Some(r.clone())),
        Status::Disputed(r) => ("disputed", Some(r.clone())),
    };
    let label = if mode == Mode::Verify {
        "verification play"
    } else {
        "art. 7 confirmation"
    };
    let text = format!(
        "{label} {t} ({} chain, {stones} stones): {}; {} first: {}; {} first: {}",
        SEATS[seat_of(owner)],
        v.status,
        SEATS[seat_of(owner.opponent())],
        line_text(&v.opponent_first),
        SEATS[seat_of(owner)],
        line_text(&v.owner_first)
    );
    let data = json!({
        "mode": if mode == Mode::Verify { "verify" } else { "confirm" },
        "chain": t.to_string(),
        "owner": SEATS[seat_of(owner)],
        "stones": stones,
        "status": status,
        "reason": reason,
        "opponent_first": line_json(&v.opponent_first),
        "owner_first": line_json(&v.owner_first),
    });
    (text, data)
}
