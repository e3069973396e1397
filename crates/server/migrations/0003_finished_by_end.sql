-- The lobby lists finished games by when they ended (their last action).
CREATE INDEX games_by_status_updated ON games (status, updated_at, id);
