-- Cluster (issue 22, docs/scaling.md): the server processes alive now and which one owns each
-- game. A node's lease runs until `alive_until` (ms since 1970, the database's clock) and is
-- renewed by the node itself; a game's `owner` is the node that alone plays it (clock, bots,
-- commits). Every commit checks `owner` in its own UPDATE, so a node that lost a game can store
-- nothing more for it.
CREATE TABLE nodes (
    id TEXT PRIMARY KEY,
    addr TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    beat_at BIGINT NOT NULL,
    alive_until BIGINT NOT NULL,
    load BIGINT NOT NULL DEFAULT 0
);
ALTER TABLE games ADD COLUMN owner TEXT;
CREATE INDEX games_by_owner ON games (owner, status);
