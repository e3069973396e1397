-- Issue 43: the cap on a client's unstarted games holds across the cluster's processes. Each
-- game a client opened (created, or was paired into from a seek) is one row, the client named
-- by a hash of its address (never the address itself); the cap counts the rows whose game is
-- still open, whichever process made them.
CREATE TABLE opened_games (
    game_id TEXT NOT NULL,
    client TEXT NOT NULL,
    PRIMARY KEY (game_id, client)
);
CREATE INDEX opened_games_by_client ON opened_games (client);
