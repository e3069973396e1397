//! Wall Go matches: paired games from seeded openings with the sides swapped.
