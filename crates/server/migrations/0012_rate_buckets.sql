-- Issue 56: the security-critical rate budgets (sign-in attempts, guest sessions, accounts
-- created) hold exactly across the cluster's processes, bursts included: one row a budget and
-- client (a hash keyed by the cluster's secret, never an address or a name), holding the
-- bucket's theoretical arrival time (GCRA, ms since 1970), taken from by one atomic upsert.
-- A row whose time has passed is a full bucket and may be deleted.
CREATE TABLE rate_buckets (
    budget TEXT NOT NULL,
    client TEXT NOT NULL,
    tat BIGINT NOT NULL,
    PRIMARY KEY (budget, client)
);
CREATE INDEX rate_buckets_by_tat ON rate_buckets (tat);
