ALTER TABLE scenarios DROP CONSTRAINT scenarios_accepted_together;
ALTER TABLE scenarios
    DROP COLUMN accepted_by,
    DROP COLUMN accepted_at,
    DROP COLUMN accepted_tokens,
    DROP COLUMN accepted_report,
    DROP COLUMN accepted_text;
