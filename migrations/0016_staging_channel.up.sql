-- API tokens may carry the flag 'staging': the runtime API serves them
-- the staging channel, the pending drafts on top of what is published.
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_scopes_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_scopes_check CHECK (cardinality(scopes) > 0
    AND scopes <@ ARRAY['assemble', 'read', 'write', 'admin', 'staging']::text[]);
