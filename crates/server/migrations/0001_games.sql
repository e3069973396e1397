-- One schema for SQLite and PostgreSQL: games, seats (token hashes) and the append-only action log.
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    version BIGINT NOT NULL DEFAULT 0,
    summary TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX games_by_status ON games (status, created_at, id);

CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    spec TEXT NOT NULL,
    token_hash TEXT,
    joined BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    seat BIGINT NOT NULL,
    action TEXT NOT NULL,
    at BIGINT NOT NULL,
    auto BIGINT NOT NULL,
    clocks TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
