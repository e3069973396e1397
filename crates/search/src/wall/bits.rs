//! Bit-set flood fills over the 49 cells, with the walls as open-edge masks.

use baduk_wallgo::EdgeSet;

/// Bit mask of all 49 cells.
pub const ALL: u64 = (1u64 << 49) - 1;

/// Open-edge masks of a wall set: the cells whose south / east edge holds no wall.
#[derive(Clone, Copy, Debug)]
pub struct Open {
    s: u64,
    e: u64,
}

impl Open {
    /// The open-edge masks of `walls`.
    #[inline]
    pub fn of(walls: EdgeSet) -> Open {
        let (s, e) = walls.open_masks();
        Open { s, e }
    }

    /// Cells one open edge away from some cell of `x`.
    #[inline]
    pub fn nb(self, x: u64) -> u64 {
        ((x & self.s) << 7) | ((x >> 7) & self.s) | ((x & self.e) << 1) | ((x >> 1) & self.e)
    }

    /// The cells reachable from `seed` through open edges, stepping only onto cells of `pass`.
    #[inline]
    pub fn fill(self, seed: u64, pass: u64) -> u64 {
        let mut r = seed;
        loop {
            let n = r | (self.nb(r) & pass);
            if n == r {
                return r;
            }
            r = n;
        }
    }
}
