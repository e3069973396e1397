//! The search benchmark runs and is deterministic for a seed (the figure itself is not asserted).

use baduk_search::go::bench_search;

#[test]
fn bench_go_search_signature_is_deterministic_for_a_seed() {
    let a = bench_search(9, 300, 7, "").unwrap();
    let b = bench_search(9, 300, 7, "").unwrap();
    assert_eq!(a.playouts, 300);
    assert_eq!(a.signature, b.signature);
    eprintln!("9x9: {:.0} playouts/s", a.rate());
}
