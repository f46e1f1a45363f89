ALTER TABLE profiles DROP COLUMN skill_budget;
