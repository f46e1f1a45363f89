DELETE FROM audit_log WHERE subject = 'ledger';
ALTER TABLE audit_log DROP CONSTRAINT audit_log_subject_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_subject_check
    CHECK (subject IN ('override', 'profile', 'scenario', 'api_token', 'user', 'webhook'));
DROP TABLE ledger_entries;
DROP TABLE ledger_texts;
