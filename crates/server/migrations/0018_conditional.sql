-- Conditional moves (issue 61): each seat's private plan of replies, valid while its game stays at
-- `version` actions (a plan of an older version is stale: it is ignored and deleted).
CREATE TABLE conditional_moves (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    version BIGINT NOT NULL,
    plan TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
