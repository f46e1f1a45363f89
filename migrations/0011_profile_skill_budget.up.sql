-- The token budget of a profile's skills-available segment; 0 means the
-- server's default.
ALTER TABLE profiles ADD COLUMN skill_budget integer NOT NULL DEFAULT 0 CHECK (skill_budget >= 0);
