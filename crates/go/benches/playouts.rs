//! Criterion benches: random light playouts (simple ko and positional superko) on 9×9 and
//! 19×19, and a board play with its undo.

use baduk_go::{Board, Color, Ko, Playouts, Point, Size};
use baduk_rng::Rng;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn playouts(c: &mut Criterion) {
    for (n, ko, name) in [
        (9, Ko::Simple, "playout 9x9 simple ko"),
        (9, Ko::Positional, "playout 9x9 positional superko"),
        (19, Ko::Simple, "playout 19x19 simple ko"),
        (19, Ko::Positional, "playout 19x19 positional superko"),
    ] {
        let empty = Board::new(Size::square(n).unwrap());
        let mut rng = Rng::new(1);
        let mut pl = Playouts::new();
        c.bench_function(name, |b| {
            b.iter(|| {
                let mut board = empty.clone();
                black_box(pl.run(&mut board, Color::Black, ko, &mut rng))
            })
        });
    }
}

fn play_undo(c: &mut Criterion) {
    // A mid-game position from a seeded playout cut short.
    let size = Size::square(19).unwrap();
    let mut board = Board::new(size);
    let mut rng = Rng::new(2);
    let mut color = Color::Black;
    for _ in 0..150 {
        let pts: Vec<Point> = board.empty_points().collect();
        let p = pts[rng.below(pts.len())];
        if board.is_simple_legal(p, color) && !board.is_eye(p, color) {
            board.play(p, color).unwrap();
            color = color.opponent();
        }
    }
    let empties: Vec<Point> = board
        .empty_points()
        .filter(|&p| board.is_simple_legal(p, color))
        .collect();
    c.bench_function("play + undo 19x19 midgame", |b| {
        let mut i = 0;
        b.iter(|| {
            let p = empties[i % empties.len()];
            i += 1;
            board.play(p, color).unwrap();
            black_box(board.undo())
        })
    });
}

criterion_group!(benches, playouts, play_undo);
criterion_main!(benches);
