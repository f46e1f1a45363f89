-- A delivery that failed all its attempts can be sent again (a
-- redelivery), with a new round of attempts. The attempts made before
-- stay in the log with their numbers, and numbering goes on; round_start
-- is how many attempts were made before the latest redelivery, so that
-- the attempt limit and the backoff count from there; redeliveries is
-- how many times it was sent again.
ALTER TABLE webhook_deliveries
    ADD COLUMN redeliveries integer NOT NULL DEFAULT 0 CHECK (redeliveries >= 0),
    ADD COLUMN round_start  integer NOT NULL DEFAULT 0 CHECK (round_start >= 0 AND round_start <= attempts);
