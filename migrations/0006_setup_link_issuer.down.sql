ALTER TABLE setup_tokens DROP COLUMN revoked_at;
ALTER TABLE setup_tokens DROP COLUMN created_by;
ALTER TABLE setup_tokens DROP COLUMN id;
