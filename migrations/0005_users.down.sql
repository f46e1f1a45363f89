DELETE FROM audit_log WHERE subject = 'user';
ALTER TABLE audit_log DROP CONSTRAINT audit_log_subject_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_subject_check
    CHECK (subject IN ('override', 'profile', 'scenario', 'api_token'));
DROP TABLE login_attempts;
DROP TABLE sessions;
DROP TABLE setup_tokens;
DROP TABLE users;
