-- Issue 39 (numbered 8: migration 7 is the review plan's, written at the same time): an unlisted game's open seat is claimed with the invite secret its link carries
-- (SHA-256, hex; NULL for listed games and games made before), and each account keeps the
-- confusable skeleton of its name (UTS #39) so a look-alike name is refused at sign-up.
ALTER TABLE games ADD COLUMN invite_hash TEXT;
ALTER TABLE accounts ADD COLUMN skeleton TEXT;
CREATE INDEX accounts_by_skeleton ON accounts (skeleton);
