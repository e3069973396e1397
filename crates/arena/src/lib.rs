//! Reproducible matches between two players and the statistics of their results: win rate with a
//! 95% interval, Elo difference with its error, margins and game lengths.

pub mod go;
pub mod stats;
pub mod wall;
