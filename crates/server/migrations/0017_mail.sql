-- Email (issue 61): an account's address (as typed, and lower-cased for look-ups) and whether
-- it was verified; what it wants mailed; one-time tokens (their hash only) for verification,
-- password reset and unsubscribing; the outbox a worker sends from (retries with backoff); and
-- the notifications already sent (each once).
ALTER TABLE accounts ADD COLUMN email TEXT;
ALTER TABLE accounts ADD COLUMN email_key TEXT;
ALTER TABLE accounts ADD COLUMN email_verified BIGINT NOT NULL DEFAULT 0;
CREATE INDEX accounts_by_email ON accounts (email_key);

-- One row an account that chose: `your_move_hours` NULL is off; the others 0 or 1.
CREATE TABLE mail_prefs (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    your_move_hours BIGINT,
    game_start BIGINT NOT NULL DEFAULT 1,
    clock_low BIGINT NOT NULL DEFAULT 1,
    challenge BIGINT NOT NULL DEFAULT 1,
    digest BIGINT NOT NULL DEFAULT 0,
    digest_at BIGINT NOT NULL DEFAULT 0
);

-- `purpose`: verify (of `email`), reset, unsubscribe (from `kind`). Used once (but unsubscribe).
CREATE TABLE mail_tokens (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    purpose TEXT NOT NULL,
    email TEXT,
    kind TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX mail_tokens_by_account ON mail_tokens (account_id, purpose, created_at);
CREATE INDEX mail_tokens_by_expiry ON mail_tokens (expires_at);

CREATE TABLE mail_outbox (
    id TEXT PRIMARY KEY,
    account_id TEXT,
    to_addr TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    unsubscribe TEXT,
    created_at BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_try_at BIGINT NOT NULL,
    sent_at BIGINT,
    error TEXT
);
CREATE INDEX mail_outbox_due ON mail_outbox (sent_at, next_try_at);

-- A notification found by the sweep: `subject` is what it is about (a game's turn, a
-- challenge); `digested` 0 while it waits for the account's daily digest.
CREATE TABLE mail_sent (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    text TEXT NOT NULL,
    at BIGINT NOT NULL,
    digested BIGINT NOT NULL DEFAULT 1,
    PRIMARY KEY (account_id, kind, subject)
);
CREATE INDEX mail_sent_digest ON mail_sent (digested, account_id);
CREATE INDEX mail_sent_by_at ON mail_sent (at);
