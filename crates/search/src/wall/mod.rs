//! The Wall Go bots: random, easy, medium, expert and sedol, each a named, seeded player.
