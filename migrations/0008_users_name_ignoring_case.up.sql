-- User names are unique ignoring case: "Alice" and "alice" are one
-- account. Up refuses to run (before this file, see migrations.Up) while
-- names differing only in case exist; an operator renames them first.
CREATE UNIQUE INDEX users_name_lower_key ON users (lower(name));
