-- The porting ledger (docs/importers.md): for each borrowed prompt
-- catalogue, every upstream entry with its text now and what was decided
-- about it (port, merge, do not port), on which upstream text, by whom
-- and when. An entry is flagged when its text now differs from the one
-- decided on (decided_hash); deciding again records the text now.
-- Texts are kept once each in ledger_texts, by their SHA-256: the text
-- decided on is mostly the text now, and a listing then reads thin rows.
CREATE TABLE ledger_texts (
    hash text PRIMARY KEY CHECK (hash <> ''),
    text text NOT NULL
);

CREATE TABLE ledger_entries (
    catalogue       text        NOT NULL CHECK (catalogue <> ''),
    name            text        NOT NULL CHECK (name <> ''),
    kind            text        NOT NULL DEFAULT '',
    version         text        NOT NULL DEFAULT '',
    text_hash       text        NOT NULL REFERENCES ledger_texts (hash),
    removed         boolean     NOT NULL DEFAULT false,
    decision        text        NOT NULL DEFAULT '' CHECK (decision IN ('', 'port', 'merge', 'do-not-port')),
    module_id       text        NOT NULL DEFAULT '',
    reason          text        NOT NULL DEFAULT '',
    decided_version text        NOT NULL DEFAULT '',
    decided_hash    text        NOT NULL DEFAULT '',
    decided_by      text        NOT NULL DEFAULT '',
    decided_at      timestamptz NULL,
    first_seen      timestamptz NOT NULL DEFAULT now(),
    changed_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (catalogue, name),
    CHECK ((decision = '') = (decided_at IS NULL)),
    CHECK (decision NOT IN ('port', 'merge') OR module_id <> ''),
    CHECK (decision <> 'do-not-port' OR (reason <> '' AND module_id = ''))
);

ALTER TABLE audit_log DROP CONSTRAINT audit_log_subject_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_subject_check
    CHECK (subject IN ('override', 'profile', 'scenario', 'api_token', 'user', 'webhook', 'ledger'));
