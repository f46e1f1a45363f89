-- Drafts are dropped: every head becomes what serves (the pre-drafts
-- semantics). Discard revisions become saves (with text) or deletes.
UPDATE override_revisions SET action = CASE WHEN text = '' THEN 'delete' ELSE 'save' END
WHERE action = 'discard';
ALTER TABLE override_revisions DROP CONSTRAINT override_revisions_action_check;
ALTER TABLE override_revisions ADD CONSTRAINT override_revisions_action_check
    CHECK (action IN ('create', 'save', 'restore', 'rebase', 'keep-mine',
                      'import', 'delete', 'take-builtin'));
ALTER TABLE overrides DROP COLUMN published_revision;
