//! Zobrist keys, fixed at compile time from a SplitMix64 stream.

/// Every key a position's hash is built from.
pub(crate) struct Keys {
    /// One key per raw edge code (see `Edge::code`).
    pub wall: [u64; 128],
    /// One key per player and cell.
    pub piece: [[u64; 64]; 2],
    /// Present when B is to move.
    pub b_to_move: u64,
    /// One key per number of placements made (0..=4).
    pub placed: [u64; 5],
    /// One key per number of passes in a row (0..=2).
    pub passes: [u64; 3],
}

/// One SplitMix64 step: (new state, output).
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn build() -> Keys {
    let mut st = 0x5741_4C4C_474F_0001u64; // "WALLGO" + 1
    let mut k = Keys {
        wall: [0; 128],
        piece: [[0; 64]; 2],
        b_to_move: 0,
        placed: [0; 5],
        passes: [0; 3],
    };
    let mut i = 0;
    while i < 128 {
        let (s, x) = splitmix(st);
        st = s;
        k.wall[i] = x;
        i += 1;
    }
    let mut p = 0;
    while p < 2 {
        let mut i = 0;
        while i < 64 {
            let (s, x) = splitmix(st);
            st = s;
            k.piece[p][i] = x;
            i += 1;
        }
        p += 1;
    }
    let (s, x) = splitmix(st);
    st = s;
    k.b_to_move = x;
    let mut i = 1; // zero placements and zero passes hash to 0
    while i < 5 {
        let (s, x) = splitmix(st);
        st = s;
        k.placed[i] = x;
        i += 1;
    }
    let mut i = 1;
    while i < 3 {
        let (s, x) = splitmix(st);
        st = s;
        k.passes[i] = x;
        i += 1;
    }
    k
}

/// The key table.
pub(crate) static KEYS: Keys = build();
