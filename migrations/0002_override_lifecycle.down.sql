DROP TABLE audit_log;
DROP TABLE override_revisions;
-- Deleted heads are history only; without their revisions they must go.
DELETE FROM overrides WHERE deleted;
ALTER TABLE overrides DROP COLUMN deleted, DROP COLUMN base_hash;
