-- Setup links name the admin (or "cli") who issued them and can be
-- revoked before use; id lets the console name a link without its secret.
ALTER TABLE setup_tokens ADD COLUMN id bigserial UNIQUE;
ALTER TABLE setup_tokens ADD COLUMN created_by text NOT NULL DEFAULT '';
ALTER TABLE setup_tokens ADD COLUMN revoked_at timestamptz NULL;
