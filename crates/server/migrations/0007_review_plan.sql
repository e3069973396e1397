-- What the engine's review of a record plans (how many positions, under which rules), computed
-- once at upload with the summary, so reading a review never parses or replays its record.
-- NULL for reviews stored before this column: the first read computes it once and stores it.
ALTER TABLE reviews ADD COLUMN plan TEXT;
