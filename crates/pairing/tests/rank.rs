//! Ranks: 30k … 1k, 1d … 9d, read and written as "5k" and "3d".

use baduk_pairing::Rank;
use proptest::prelude::*;

#[test]
fn ranks_read_and_write_as_kyu_and_dan() {
    assert_eq!("30k".parse::<Rank>().unwrap(), Rank::MIN);
    assert_eq!("9d".parse::<Rank>().unwrap(), Rank::MAX);
    assert_eq!("1k".parse::<Rank>().unwrap().value(), 29);
    assert_eq!("1D".parse::<Rank>().unwrap().value(), 30);
    assert_eq!(" 5K ".parse::<Rank>().unwrap().to_string(), "5k");
    assert!("1k".parse::<Rank>().unwrap() < "1d".parse::<Rank>().unwrap());
    assert!("10k".parse::<Rank>().unwrap() < "9k".parse::<Rank>().unwrap());
}

#[test]
fn anything_else_is_refused() {
    for bad in [
        "", "k", "0k", "31k", "10d", "0d", "5p", "05k", "+5k", "-5k", "5 k", "五k", "d5",
    ] {
        assert!(bad.parse::<Rank>().is_err(), "{bad:?}");
    }
    assert_eq!(Rank::kyu(0), None);
    assert_eq!(Rank::dan(10), None);
    assert_eq!(Rank::from_value(39), None);
}

proptest! {
    #[test]
    fn every_rank_round_trips(v in 0i32..=38) {
        let r = Rank::from_value(v).unwrap();
        prop_assert_eq!(r.to_string().parse::<Rank>().unwrap(), r);
    }
}
