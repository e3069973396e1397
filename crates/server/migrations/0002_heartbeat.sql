-- The newest moment any server process was known alive (ms since 1970, the database's clock):
-- a longer gap before a process starts is an outage, charged to no clock.
CREATE TABLE heartbeat (
    id BIGINT PRIMARY KEY,
    alive_at BIGINT NOT NULL
);
