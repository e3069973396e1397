-- Ladders (issue 60): one standing ladder per kind (`go9`, `go13`, `go19`, `wallgo`). `state`
-- is the ladder as JSON: `{"players": [[account_id, active_since_ms], …]` top first, `"pairs":
-- [[account_id, account_id, last_played_ms], …]}`; `version` counts its changes, and a change
-- is written `… WHERE version = n` so that two processes never lose one another's move.
-- `ladder_games` holds each challenge's game; `result` is NULL until it is recorded.
CREATE TABLE ladders (
    kind TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    state TEXT NOT NULL
);
INSERT INTO ladders (kind, version, state) VALUES ('go9', 0, '{"players":[],"pairs":[]}');
INSERT INTO ladders (kind, version, state) VALUES ('go13', 0, '{"players":[],"pairs":[]}');
INSERT INTO ladders (kind, version, state) VALUES ('go19', 0, '{"players":[],"pairs":[]}');
INSERT INTO ladders (kind, version, state) VALUES ('wallgo', 0, '{"players":[],"pairs":[]}');

CREATE TABLE ladder_games (
    game_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    challenger TEXT NOT NULL REFERENCES accounts (id),
    target TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    result TEXT
);
CREATE INDEX ladder_games_open ON ladder_games (kind, result);
