-- Drafts and publishing (docs/overrides-lifecycle.md).
-- The head (overrides.revision) may be a draft; published_revision is the
-- revision that is served. NULL: never published (a draft only).
ALTER TABLE overrides ADD COLUMN published_revision integer NULL
    CHECK (published_revision > 0 AND published_revision <= revision);

-- Everything served today stays served: every existing head, a delete
-- included (a published removal), is its own published revision.
UPDATE overrides SET published_revision = revision;

-- Publishing writes no revision (only an audit row); discarding writes one.
ALTER TABLE override_revisions DROP CONSTRAINT override_revisions_action_check;
ALTER TABLE override_revisions ADD CONSTRAINT override_revisions_action_check
    CHECK (action IN ('create', 'save', 'restore', 'rebase', 'keep-mine',
                      'import', 'delete', 'take-builtin', 'discard'));
