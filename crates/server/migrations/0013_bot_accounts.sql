-- Bot accounts (the Bot API): an account that became a bot, one way, and what its bridge said
-- it accepts (a JSON object: sizes, clocks, rated or not, bots as opponents, games at once),
-- null until it says. Challenges that do not match are refused before they reach the engine.
ALTER TABLE accounts ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN bot_accepts TEXT;
