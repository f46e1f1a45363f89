-- Change review (docs/overrides-lifecycle.md): with review on, a
-- publish, delete, take builtin or keep mine waits here for another
-- editor's approval. At most one open request per override.
CREATE TABLE change_requests (
    id               bigserial   PRIMARY KEY,
    module_id        text        NOT NULL CHECK (module_id <> ''),
    locale           text        NOT NULL CHECK (locale <> ''),
    action           text        NOT NULL CHECK (action IN ('publish', 'delete', 'take-builtin', 'keep-mine')),
    revision         integer     NOT NULL CHECK (revision > 0),
    builtin_version  integer     NOT NULL DEFAULT 0 CHECK (builtin_version >= 0),
    builtin_text     text        NOT NULL DEFAULT '',
    builtin_hash     text        NOT NULL DEFAULT '',
    author           text        NOT NULL CHECK (author <> ''),
    note             text        NOT NULL DEFAULT '',
    status           text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'rejected')),
    decided_by       text        NOT NULL DEFAULT '',
    reason           text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    decided_at       timestamptz NULL,
    CHECK ((status = 'open') = (decided_at IS NULL))
);

CREATE UNIQUE INDEX change_requests_one_open ON change_requests (module_id, lower(locale)) WHERE status = 'open';
CREATE INDEX change_requests_status ON change_requests (status, id DESC);
