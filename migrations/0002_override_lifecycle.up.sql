-- Override lifecycle (docs/overrides-lifecycle.md): revision history, audit log, base hash.

-- The head row of an override stays after a delete, marked deleted, so that
-- its revision keeps counting: the next save continues the numbering, and
-- the optimistic lock (UPDATE … WHERE revision = $base) covers re-creation.
ALTER TABLE overrides
    ADD COLUMN base_hash text    NOT NULL DEFAULT '', -- sha256 hex of base_snapshot, the builtin text it was based on
    ADD COLUMN deleted   boolean NOT NULL DEFAULT false;

UPDATE overrides SET base_hash = encode(sha256(convert_to(base_snapshot, 'UTF8')), 'hex')
WHERE base_snapshot <> '';

-- One immutable row per change of an override. The primary key backs
-- the head's revision check: two changes can never share a revision.
CREATE TABLE override_revisions (
    module_id        text        NOT NULL CHECK (module_id <> ''),
    locale_key       text        NOT NULL CHECK (locale_key <> '' AND locale_key = lower(locale_key)),
    revision         integer     NOT NULL CHECK (revision > 0),
    action           text        NOT NULL CHECK (action IN ('create', 'save', 'restore', 'rebase', 'keep-mine',
                                                            'import', 'delete', 'take-builtin')),
    text             text        NOT NULL, -- '' for delete and take-builtin
    title            text        NOT NULL DEFAULT '',
    version          integer     NOT NULL DEFAULT 0 CHECK (version >= 0),
    fields           jsonb,
    based_on_version integer     NOT NULL DEFAULT 0 CHECK (based_on_version >= 0),
    base_snapshot    text        NOT NULL DEFAULT '',
    base_hash        text        NOT NULL DEFAULT '',
    author           text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (module_id, locale_key, revision)
);

-- Every existing override gets its history started: one create revision
-- at its current revision number.
INSERT INTO override_revisions (module_id, locale_key, revision, action, text, title, version, fields,
    based_on_version, base_snapshot, base_hash, author, created_at)
SELECT module_id, lower(locale), revision, 'create', text, title, version, fields,
    based_on_version, base_snapshot, base_hash, author, updated_at
FROM overrides;

-- Who changed what, written in the same transaction as the change.
-- before/after: the override text, or the profile or scenario as JSON;
-- '' for none (before a create, after a delete).
CREATE TABLE audit_log (
    id         bigserial   PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    actor      text        NOT NULL CHECK (actor <> ''),
    action     text        NOT NULL CHECK (action <> ''),
    subject    text        NOT NULL CHECK (subject IN ('override', 'profile', 'scenario')),
    subject_id text        NOT NULL CHECK (subject_id <> ''),
    locale     text        NOT NULL DEFAULT '',
    revision   integer     NOT NULL DEFAULT 0 CHECK (revision >= 0),
    before     text        NOT NULL DEFAULT '',
    after      text        NOT NULL DEFAULT ''
);

-- The audit page filters by subject (one module's history) and by actor,
-- newest first.
CREATE INDEX audit_log_subject ON audit_log (subject, subject_id, id DESC);
CREATE INDEX audit_log_actor ON audit_log (actor, id DESC);
