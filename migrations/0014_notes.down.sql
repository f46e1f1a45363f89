ALTER TABLE overrides DROP COLUMN note, DROP COLUMN published_by, DROP COLUMN published_at, DROP COLUMN publish_note;
ALTER TABLE audit_log DROP COLUMN note;
ALTER TABLE override_revisions DROP COLUMN note;
