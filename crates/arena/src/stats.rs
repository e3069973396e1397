//! Match statistics shared by both games: win rate with its 95% interval, Elo with its error.
