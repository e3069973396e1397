//! The Wall Go (벽바둑) rules library: cells, walls, pieces, variants, exact legal actions,
//! regions, the end of the game, scores and the record format.
//!
//! It knows nothing of I/O, terminals or networks.
