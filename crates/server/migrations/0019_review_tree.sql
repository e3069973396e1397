-- A review's editable tree (issue 59): the tree as last snapshotted (`SgfDoc::snapshot`, JSON with
-- its node ids) at `tree_version`, the review's current `version` (bumped by every applied op),
-- who owns it and who controls it (account ids; no owner for an anonymous upload), the game it
-- was made from and at which version, and its title. NULL `tree`: the first use reads the
-- stored record once and snapshots it.
ALTER TABLE reviews ADD COLUMN tree TEXT;
ALTER TABLE reviews ADD COLUMN tree_version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE reviews ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE reviews ADD COLUMN owner TEXT;
ALTER TABLE reviews ADD COLUMN controller TEXT;
ALTER TABLE reviews ADD COLUMN source_game TEXT;
ALTER TABLE reviews ADD COLUMN source_version BIGINT;
ALTER TABLE reviews ADD COLUMN title TEXT;
-- Every applied op, append-only: `seq` is the version it made. A restart rebuilds the tree from
-- the snapshot and the ops after it.
CREATE TABLE review_ops (
    review_id TEXT NOT NULL REFERENCES reviews (id),
    seq BIGINT NOT NULL,
    op TEXT NOT NULL,
    account_id TEXT,
    at BIGINT NOT NULL,
    PRIMARY KEY (review_id, seq)
);
-- The engine's opinion of positions off the main line (any node of the tree), one search each,
-- by the position's key (its board and the side to move).
CREATE TABLE review_positions (
    review_id TEXT NOT NULL REFERENCES reviews (id),
    position TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (review_id, position)
);
