UPDATE api_tokens SET scopes = array_remove(scopes, 'staging');
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_scopes_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_scopes_check CHECK (cardinality(scopes) > 0
    AND scopes <@ ARRAY['assemble', 'read', 'write', 'admin']::text[]);
