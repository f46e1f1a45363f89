-- Notes and who published (docs/overrides-lifecycle.md): every save and
-- publish may carry a note, one short paragraph saying why; the head
-- records who published its served revision and when.
ALTER TABLE override_revisions ADD COLUMN note text NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN note text NOT NULL DEFAULT '';

-- note: the head revision's note; published_*: who made the served
-- revision serve, when, and the publish's note ('' / NULL when unknown:
-- published before this migration).
ALTER TABLE overrides
    ADD COLUMN note           text        NOT NULL DEFAULT '',
    ADD COLUMN published_by   text        NOT NULL DEFAULT '',
    ADD COLUMN published_at   timestamptz NULL,
    ADD COLUMN publish_note   text        NOT NULL DEFAULT '';
