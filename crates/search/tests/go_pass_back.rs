//! The dead-stone phase against a bot (issue 42, point 6): once the opponent has passed on a
//! settled board, the bot passes back at once instead of playing on through the opponent's
//! passes, at every level, as a server's bot seat is set up, and the same for a seed.

use baduk_go::{Board, Color, Game, Move, Rules};
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

#[test]
fn the_bot_passes_back_on_a_settled_board_at_every_level_winning_or_losing() {
    for rules in ["japanese,size=9", "korean,size=9"] {
        for passer in [Color::Black, Color::White] {
            for level in [1, 2, 4, 6, 10] {
                for seed in [1, 2, 3] {
                    let g = settled(rules, passer);
                    let mut bot = seat_bot(level, seed);
                    let (mv, r) = genmove(&mut bot, &g, SearchRequest::default());
                    assert_eq!(
                        mv,
                        Some(Move::Pass),
                        "{rules}, {passer:?} passed, level {level}, seed {seed}: the bot played \
                         {mv:?} (win rate {:.2}, top moves {:?})",
                        r.winrate,
                        r.stats
                            .iter()
                            .take(4)
                            .map(|s| (s.mv, s.visits, s.winrate, s.score_mean))
                            .collect::<Vec<_>>()
                    );
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
