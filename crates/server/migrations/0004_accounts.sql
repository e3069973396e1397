-- Players (issue 21): accounts (named or guest), sessions, API tokens, ratings and their history,
-- seats held by accounts, rated and invite-only games, seeks, chat and reports.
CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    guest BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    seen_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX accounts_by_seen ON accounts (seen_at);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    csrf TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    ended BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX sessions_by_account ON sessions (account_id);

CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    label TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX api_tokens_by_account ON api_tokens (account_id);

CREATE TABLE ratings (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, kind)
);

CREATE TABLE rating_history (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    game_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    rating_before DOUBLE PRECISION NOT NULL,
    deviation_before DOUBLE PRECISION NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (account_id, game_id)
);
CREATE INDEX rating_history_by_game ON rating_history (game_id);

ALTER TABLE seats ADD COLUMN account_id TEXT;
CREATE INDEX seats_by_account ON seats (account_id);
ALTER TABLE games ADD COLUMN rated BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN listed BIGINT NOT NULL DEFAULT 1;

CREATE TABLE seeks (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    pool TEXT NOT NULL,
    spec TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    lo DOUBLE PRECISION NOT NULL,
    hi DOUBLE PRECISION NOT NULL,
    created_at BIGINT NOT NULL,
    watched_at BIGINT NOT NULL DEFAULT 0,
    game_id TEXT,
    seat BIGINT
);
CREATE INDEX seeks_by_pool ON seeks (pool, created_at);

CREATE TABLE chat (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    channel TEXT NOT NULL,
    account_id TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE reports (
    id TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    reporter_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    at BIGINT NOT NULL
);
