-- Issue 61: a game's schedule, written with every action, so that the database (not a timer per
-- game in memory) knows when each stored game must be looked at and whose move it is:
-- `to_move` the account seated at the side to move (NULL when over or no account sits there),
-- `turn_since` when that turn began, `deadline` when its clock runs out (NULL: no clock),
-- `wake_at` the earliest time the server may end the game (clock or policy; NULL: never). A
-- `wake_at` too early is safe: the sweep loads the game, finds nothing due and writes the true one.
ALTER TABLE games ADD COLUMN to_move TEXT;
ALTER TABLE games ADD COLUMN turn_since BIGINT;
ALTER TABLE games ADD COLUMN deadline BIGINT;
ALTER TABLE games ADD COLUMN wake_at BIGINT;
-- Games stored before these columns are looked at once by the sweep, which writes them.
UPDATE games SET wake_at = 0 WHERE status IN ('open', 'live');
CREATE INDEX games_by_wake ON games (wake_at);
CREATE INDEX games_by_to_move ON games (to_move);
