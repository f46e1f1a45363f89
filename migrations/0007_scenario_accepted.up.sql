-- Saved scenarios (docs/scenarios.md): the output last accepted for each,
-- which a re-run against what is served now is compared with. All five
-- columns are NULL (or '') until the first accept, and set together.
ALTER TABLE scenarios
    ADD COLUMN accepted_text   text        NULL,     -- the assembled full text
    ADD COLUMN accepted_report text[]      NULL,     -- the composition report's text lines, the library line left out
    ADD COLUMN accepted_tokens integer     NULL CHECK (accepted_tokens >= 0),
    ADD COLUMN accepted_at     timestamptz NULL,
    ADD COLUMN accepted_by     text        NOT NULL DEFAULT '';

ALTER TABLE scenarios ADD CONSTRAINT scenarios_accepted_together CHECK (
    (accepted_at IS NULL AND accepted_text IS NULL AND accepted_report IS NULL AND accepted_tokens IS NULL AND accepted_by = '')
    OR (accepted_at IS NOT NULL AND accepted_text IS NOT NULL AND accepted_report IS NOT NULL AND accepted_tokens IS NOT NULL AND accepted_by <> ''));
