-- Review rooms (docs/api.md, "Review rooms"): the live state of each review's room that is not
-- the tree (the tree, its owner, controller and title are the review's own columns): the shared
-- cursor, whether it is listed in the lobby, the counter of the room's changes (`rev`: cursor,
-- control, title and chat), the process that holds it (`node`, as `games.owner`), how many
-- watched it at its last change, and when it last changed.
CREATE TABLE review_rooms (
    review_id TEXT PRIMARY KEY REFERENCES reviews (id),
    node TEXT,
    cursor BIGINT NOT NULL DEFAULT 0,
    public BIGINT NOT NULL DEFAULT 0,
    rev BIGINT NOT NULL DEFAULT 0,
    watchers BIGINT NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL
);
CREATE INDEX review_rooms_listed ON review_rooms (public, updated_at);
CREATE INDEX review_rooms_by_node ON review_rooms (node);

-- A room's chat: the last lines only (older ones are deleted as new ones come).
CREATE TABLE review_chat (
    review_id TEXT NOT NULL REFERENCES reviews (id),
    seq BIGINT NOT NULL,
    account_id TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (review_id, seq)
);

-- The room made from a game at a version: every later ask for the same game at the same
-- version lands in the same room.
CREATE TABLE review_sources (
    source_game TEXT NOT NULL,
    source_version BIGINT NOT NULL,
    review_id TEXT NOT NULL REFERENCES reviews (id),
    PRIMARY KEY (source_game, source_version)
);
