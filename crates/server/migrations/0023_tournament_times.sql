-- Tournaments: when a player checked in before the start (an event with a check-in window drops
-- those who did not) and when a player withdrew (an arena replays its field by these times: a
-- late entry joins the pool when it entered, a withdrawn player leaves it then).
ALTER TABLE tournament_players ADD COLUMN checked_in_at BIGINT;
ALTER TABLE tournament_players ADD COLUMN left_at BIGINT;
