-- Outgoing webhooks (README, Runtime API): endpoints an admin sets, the
-- events of the override write path and of drift detection, and one
-- delivery per endpoint and event with its attempts. Any number of
-- processes deliver from these tables: a process claims a due delivery
-- with FOR UPDATE SKIP LOCKED and leases it until its attempt ends, so
-- each event reaches each endpoint once while every process is up, and
-- is sent again after a restart when no attempt finished.
CREATE TABLE webhooks (
    id          bigserial   PRIMARY KEY,
    url         text        NOT NULL CHECK (url ~ '^https?://'),
    -- The HMAC-SHA256 key of the signature: kept as given, since signing needs it.
    secret      text        NOT NULL CHECK (length(secret) >= 16),
    description text        NOT NULL DEFAULT '',
    created_by  text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_events (
    id          bigserial   PRIMARY KEY,
    -- The idempotency key: the same change (or drift) seen by several
    -- processes is one event.
    key         text        NOT NULL UNIQUE CHECK (key <> ''),
    type        text        NOT NULL CHECK (type <> ''),
    body        text        NOT NULL, -- the JSON sent, byte for byte on every attempt
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
    id              bigserial   PRIMARY KEY,
    webhook_id      bigint      NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        bigint      NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    -- When a pending delivery is due: the next retry, or the end of the
    -- lease of the attempt in flight.
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_status     integer     NOT NULL DEFAULT 0, -- HTTP status of the last attempt, 0 for none
    last_error      text        NOT NULL DEFAULT '',
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

CREATE TABLE webhook_attempts (
    delivery_id bigint      NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     integer     NOT NULL CHECK (attempt >= 1),
    at          timestamptz NOT NULL,
    duration_ms integer     NOT NULL CHECK (duration_ms >= 0),
    status      integer     NOT NULL DEFAULT 0, -- HTTP status, 0 when none came
    error       text        NOT NULL DEFAULT '',
    PRIMARY KEY (delivery_id, attempt)
);

-- API tokens may hold the admin scope (the webhooks API).
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_scopes_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_scopes_check CHECK (cardinality(scopes) > 0
    AND scopes <@ ARRAY['assemble', 'read', 'write', 'admin']::text[]);

-- Webhook changes are audited (subject 'webhook').
ALTER TABLE audit_log DROP CONSTRAINT audit_log_subject_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_subject_check
    CHECK (subject IN ('override', 'profile', 'scenario', 'api_token', 'user', 'webhook'));
