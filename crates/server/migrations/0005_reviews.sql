-- Reviews (docs/api.md, "Reviews"): an uploaded record (SGF text decoded to UTF-8, or a Wall Go
-- record), which game of its collection, and the summary the API serves (replay, legality per
-- rule set, the table at the end), computed once at upload.
CREATE TABLE reviews (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    record TEXT NOT NULL,
    game_index BIGINT NOT NULL,
    summary TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
-- The engine's opinion of each position of a review's main line, stored as it arrives (a
-- restarted server goes on from the first position without one).
CREATE TABLE review_analysis (
    review_id TEXT NOT NULL REFERENCES reviews (id),
    position BIGINT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (review_id, position)
);
