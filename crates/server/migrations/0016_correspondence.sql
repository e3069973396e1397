-- Correspondence games. Each account's time zone (minutes east of UTC: its Saturdays and
-- Sundays pause the games that ask so) and its vacation: the bank (ms, as it stood at
-- vacation_at, the last accrual; NULL: the account's creation), the start of the vacation
-- running now (NULL: none), and every vacation taken as [started_at, ended_at) (a running one
-- ends when its bank runs out, or when it is turned off sooner).
ALTER TABLE accounts ADD COLUMN tz BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN vacation_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN vacation_at BIGINT;
ALTER TABLE accounts ADD COLUMN vacation_since BIGINT;
CREATE TABLE vacations (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    started_at BIGINT NOT NULL,
    ended_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, started_at)
);
