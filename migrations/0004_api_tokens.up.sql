-- API tokens for /api/v1 (Authorization: Bearer).
-- A token is "pd_" and 32 random bytes (base64url); only its sha256 is
-- stored. A fast hash is right here: the secret has 256 bits of entropy,
-- so there is nothing to brute-force, and every API request looks one up
-- (a password hash such as argon2 would cost milliseconds per request for
-- no gain). prefix is the first 8 characters, shown in lists.
CREATE TABLE api_tokens (
    id           bigserial   PRIMARY KEY,
    name         text        NOT NULL UNIQUE CHECK (name <> ''),
    scopes       text[]      NOT NULL CHECK (cardinality(scopes) > 0
                                             AND scopes <@ ARRAY['assemble', 'read', 'write']::text[]),
    hash         text        NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),
    prefix       text        NOT NULL CHECK (prefix <> ''),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz NULL,
    revoked_at   timestamptz NULL
);

-- Token creation and revocation are audited (subject 'api_token').
ALTER TABLE audit_log DROP CONSTRAINT audit_log_subject_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_subject_check
    CHECK (subject IN ('override', 'profile', 'scenario', 'api_token'));
