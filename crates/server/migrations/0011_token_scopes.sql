-- Issue 56: an API token holds scopes, chosen when it is made (comma-separated, from `read`,
-- `play`, `challenge` and `bot`). Tokens made before scopes existed keep what they could do
-- then that a token still may: reading and playing (`read,play`); the account-level actions
-- (sign out everywhere, tokens) now need the session cookie whatever the scopes.
ALTER TABLE api_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read,play';
