-- Tournaments (issue 60): an event made by an organiser, its players (accounts, or the server's
-- bot levels: `account_id` NULL and `bot` the level as `{"bot", "options"}`), and the boards of
-- each round as paired (`white` NULL: the bye). `round` counts the rounds paired so far: a
-- round is started by the one process whose `UPDATE … WHERE round = n` wins. A board's `result`
-- is `black`, `white`, `jigo` or `unplayed` once known; `set_by` names who set it by hand (an
-- account id) or `no-show`; `ended_at` when it became known (an arena replays its games in that
-- order). An arena's boards all sit in round 1.
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    organiser_id TEXT NOT NULL REFERENCES accounts (id),
    format TEXT NOT NULL,
    rounds BIGINT NOT NULL,
    minutes BIGINT NOT NULL,
    starts_at BIGINT NOT NULL,
    settings TEXT NOT NULL,
    rated BIGINT NOT NULL DEFAULT 0,
    options TEXT NOT NULL,
    status TEXT NOT NULL,
    round BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    ended_at BIGINT
);
CREATE INDEX tournaments_by_status ON tournaments (status, starts_at);

CREATE TABLE tournament_players (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    seq BIGINT NOT NULL,
    account_id TEXT REFERENCES accounts (id),
    bot TEXT,
    name TEXT NOT NULL,
    rank BIGINT NOT NULL,
    rating BIGINT NOT NULL,
    status TEXT NOT NULL,
    joined_at BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
CREATE INDEX tournament_players_by_account ON tournament_players (account_id, status);

CREATE TABLE tournament_games (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    round BIGINT NOT NULL,
    board BIGINT NOT NULL,
    black BIGINT NOT NULL,
    white BIGINT,
    handicap BIGINT NOT NULL DEFAULT 0,
    game_id TEXT,
    result TEXT,
    set_by TEXT,
    created_at BIGINT NOT NULL,
    ended_at BIGINT,
    PRIMARY KEY (tournament_id, round, board)
);
CREATE INDEX tournament_games_by_game ON tournament_games (game_id);
