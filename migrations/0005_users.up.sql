-- Console accounts, one-time setup links, server-side sessions
-- (alexedwards/scs pgxstore) and login throttling.
CREATE TABLE users (
    id                  bigserial   PRIMARY KEY,
    name                text        NOT NULL UNIQUE CHECK (name <> ''),
    role                text        NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    password_hash       text        NOT NULL,
    disabled            boolean     NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL DEFAULT now(),
    password_changed_at timestamptz NOT NULL DEFAULT now()
);

-- A setup link: only the sha256 of its secret is stored. user_name is ''
-- for the first admin's link (the name is chosen on the setup page).
CREATE TABLE setup_tokens (
    hash       text        PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
    user_name  text        NOT NULL,
    role       text        NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz NULL
);

-- The table of github.com/alexedwards/scs/pgxstore, as it documents it.
CREATE TABLE sessions (
    token  text        PRIMARY KEY,
    data   bytea       NOT NULL,
    expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- Every login attempt, for throttling per account and per address.
CREATE TABLE login_attempts (
    id        bigserial   PRIMARY KEY,
    at        timestamptz NOT NULL DEFAULT now(),
    user_name text        NOT NULL,
    addr      text        NOT NULL,
    ok        boolean     NOT NULL
);
CREATE INDEX login_attempts_user_idx ON login_attempts (lower(user_name), at);
CREATE INDEX login_attempts_addr_idx ON login_attempts (addr, at);

ALTER TABLE audit_log DROP CONSTRAINT audit_log_subject_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_subject_check
    CHECK (subject IN ('override', 'profile', 'scenario', 'api_token', 'user'));
