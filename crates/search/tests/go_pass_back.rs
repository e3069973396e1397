//! The dead-stone phase against a bot: once the opponent has passed on a settled board (made
//! up, or a real game's), the bot passes back at once instead of playing on through the
//! opponent's passes, at every level, as a server's bot seat is set up, and the same for a
//! seed; where a move still decides the game after the opponent's pass, the bot plays it.

use baduk_go::sgf::SgfGame;
use baduk_go::{Board, Color, Game, Move, Point, Rules};
use baduk_search::go::lib_game::genmove;
use baduk_search::go::{Bot, BotConfig, SearchRequest, SEAT_DEFAULTS};

/// A settled 9×9 board: Black owns ten single-point eyes on the left, White ten on the right,
/// and the E column between them is dame. Even by territory; White wins by the komi.
fn settled(rules: &str, first_passes: Color) -> Game {
    let odd = ".X.X.O.O.";
    let even = "XXXX.OOOO";
    let rows: Vec<&str> = (0..9)
        .map(|r| if r % 2 == 0 { odd } else { even })
        .collect();
    let board = Board::from_rows(&rows).unwrap();
    let mut g = Game::from_position(Rules::parse(rules).unwrap(), board, first_passes);
    g.play(Move::Pass).unwrap();
    g
}

/// A bot as a server's seat makes it for `level` (`SEAT_DEFAULTS`, then the level), with a
/// playout cap instead of a clock so that a seed decides everything.
fn seat_bot(level: u32, seed: u64) -> Bot {
    let mut cfg = BotConfig::default();
    let cap = if level == 10 { ",playouts=3000" } else { "" };
    cfg.apply_options(&format!("{SEAT_DEFAULTS},level={level},seed={seed}{cap}"))
        .unwrap();
    cfg.move_time = None;
    cfg.threads = 1;
    Bot::new(cfg)
}

/// Asserts that `bot` passes in `g`; `what` and the search's top moves say why if it does not.
fn assert_passes(bot: &mut Bot, g: &Game, what: &str) {
    let (mv, r) = genmove(bot, g, SearchRequest::default());
    assert_eq!(
        mv,
        Some(Move::Pass),
        "{what}: the bot played {mv:?} (win rate {:.2}, top moves {:?})",
        r.winrate,
        r.stats
            .iter()
            .take(4)
            .map(|s| (s.mv, s.visits, s.winrate, s.score_mean))
            .collect::<Vec<_>>()
    );
}

#[test]
fn the_bot_passes_back_on_a_settled_board_at_every_level_winning_or_losing() {
    for rules in ["japanese,size=9", "korean,size=9"] {
        for passer in [Color::Black, Color::White] {
            for level in [1, 2, 4, 6, 10] {
                for seed in [1, 2, 3] {
                    let g = settled(rules, passer);
                    let what = format!("{rules}, {passer:?} passed, level {level}, seed {seed}");
                    assert_passes(&mut seat_bot(level, seed), &g, &what);
                }
            }
        }
    }
}

#[test]
fn the_same_seed_decides_the_same_way() {
    let g = settled("japanese,size=9", Color::Black);
    let first = genmove(&mut seat_bot(4, 9), &g, SearchRequest::default()).0;
    for _ in 0..3 {
        assert_eq!(
            genmove(&mut seat_bot(4, 9), &g, SearchRequest::default()).0,
            first
        );
    }
}

/// Under area scoring a dame is a point: with the game close enough for it to count, the bot
/// still fills it rather than pass (it passes only when nothing is left to gain).
#[test]
fn under_area_scoring_a_dame_that_decides_the_game_is_filled() {
    // Komi 0.5 and Black to move after White's pass: 36 against 36 with 9 dame; a dame for
    // Black wins the game, so passing (a loss by 0.5) is not as good.
    let g = settled("chinese,size=9,komi=0.5", Color::White);
    let mut bot = seat_bot(6, 1);
    let (mv, _) = genmove(&mut bot, &g, SearchRequest::default());
    match mv {
        Some(Move::Play(p)) => assert_eq!(p.x(), 4, "a dame on the E column, not {p:?}"),
        other => panic!("Black should fill a dame, not {other:?}"),
    }
}

/// Real 9×9 games (GNU Go 3.8 against itself, Japanese rules, komi 6.5) to the first of their
/// two passes in a row: settled boards by GNU Go's reading. In the first Black passed and
/// White, losing by 4.5, is to move; in the second White passed and Black, winning by 3.5.
const SETTLED_RECORDS: [&str; 2] = [
    include_str!("data/settled-9x9-black-passed.sgf"),
    include_str!("data/settled-9x9-white-passed.sgf"),
];

/// The game of `record` after its first `upto` moves (all: `None`).
fn replay(record: &str, upto: Option<usize>) -> Game {
    let sgf = SgfGame::parse(record).unwrap();
    sgf.replay(sgf.rules(None).unwrap(), upto).unwrap()
}

#[test]
fn after_the_opponents_pass_in_a_settled_real_game_the_bot_passes_at_levels_1_and_10() {
    for record in SETTLED_RECORDS {
        let g = replay(record, None);
        assert_eq!(g.history().last().map(|r| r.mv), Some(Move::Pass));
        for level in [1, 10] {
            for seed in [1, 2, 3, 4] {
                let what = format!("{:?} to move, level {level}, seed {seed}", g.to_move());
                assert_passes(&mut seat_bot(level, seed), &g, &what);
            }
        }
    }
}

/// The first record after Black's F4 (its 25th move), which puts White's E4 in atari, then
/// Black's pass: at komi 12.5 White wins by saving E4 at D4 and loses without it, so passing
/// back (or any other move) loses the game.
#[test]
fn after_the_opponents_pass_a_move_that_decides_the_game_is_still_played() {
    let before = replay(SETTLED_RECORDS[0], Some(25));
    let rules = Rules::parse("japanese,size=9,komi=12.5").unwrap();
    let mut g = Game::from_position(rules, before.board().clone(), Color::Black);
    g.play(Move::Pass).unwrap();
    let d4 = Point::from_gtp("D4", g.board().size()).unwrap();
    for seed in [1, 2, 3, 4] {
        let mut bot = seat_bot(10, seed);
        let (mv, r) = genmove(&mut bot, &g, SearchRequest::default());
        assert_eq!(
            mv,
            Some(Move::Play(d4)),
            "seed {seed}: White should save E4 at D4 (win rate {:.2}, top moves {:?})",
            r.winrate,
            r.stats
                .iter()
                .take(4)
                .map(|s| (s.mv, s.visits, s.winrate))
                .collect::<Vec<_>>()
        );
    }
}

/// The first record with one more exchange before Black's pass, under Chinese rules: a lone
/// Black stone thrown in at B6, deep in White's side, and White's answer at C6. The stone has
/// three liberties and no way to live.
fn chinese_with_a_dead_stone() -> Game {
    let record = SETTLED_RECORDS[0].replace(";W[df];B[])", ";W[df];B[bd];W[cd];B[])");
    let sgf = SgfGame::parse(&record).unwrap();
    let g = sgf
        .replay(Rules::parse("chinese,size=9").unwrap(), None)
        .unwrap();
    assert_eq!(g.history().len(), 29, "the exchange was not added");
    g
}

/// Under area scoring a dead stone is captured, not agreed, where the count takes the board as
/// it stands (GTP, the arena: the default request); where the game agrees on dead stones after
/// the passes (`dead_agreed`, a server seat's dead-stone phase) the bot passes back instead.
#[test]
fn under_area_scoring_dead_stones_are_captured_unless_the_game_agrees_on_them() {
    let g = chinese_with_a_dead_stone();
    for level in [1, 10] {
        for seed in [1, 2, 3, 4] {
            let (mv, _) = genmove(&mut seat_bot(level, seed), &g, SearchRequest::default());
            assert!(
                matches!(mv, Some(Move::Play(_))),
                "level {level}, seed {seed}: the bot passed with a dead stone on its side"
            );
            let agreed = SearchRequest {
                dead_agreed: true,
                ..SearchRequest::default()
            };
            let what = format!("dead stones agreed, level {level}, seed {seed}");
            let (mv, r) = genmove(&mut seat_bot(level, seed), &g, agreed);
            assert_eq!(
                mv,
                Some(Move::Pass),
                "{what}: the bot played {mv:?} (win rate {:.2})",
                r.winrate
            );
        }
    }
}
