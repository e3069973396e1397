-- Challenges (issue 58): one player asks another (or anyone with the link: `to_id` NULL) for a
-- game with the settings given. A row stays after it is answered: its status, the game an
-- accepted one made, a decline's reason (and when: the cooldown of the challenger towards the
-- one who declined). The client that made it is a hash of its address (never the address),
-- for the cap on open challenges per address. Old answered rows and expired open ones are swept.
CREATE TABLE challenges (
    id TEXT PRIMARY KEY,
    challenger_id TEXT NOT NULL REFERENCES accounts (id),
    to_id TEXT REFERENCES accounts (id),
    settings TEXT NOT NULL,
    rated INTEGER NOT NULL DEFAULT 0,
    colour TEXT NOT NULL,
    status TEXT NOT NULL,
    game_id TEXT,
    reason TEXT,
    client TEXT NOT NULL,
    rematch_of TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    closed_at BIGINT
);
CREATE INDEX challenges_by_challenger ON challenges (challenger_id, status);
CREATE INDEX challenges_by_target ON challenges (to_id, status);
CREATE INDEX challenges_by_client ON challenges (client, status);
CREATE INDEX challenges_by_status ON challenges (status, expires_at);
