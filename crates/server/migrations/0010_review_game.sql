-- A Go review's game as read once at upload (the library's compact JSON of its main line), so
-- marks, the annotated export and the engine never read the uploaded SGF again.
-- NULL for reviews stored before this column: the first use reads the record once under the
-- server's SGF limits and stores its game, or why it cannot be read.
ALTER TABLE reviews ADD COLUMN game TEXT;
