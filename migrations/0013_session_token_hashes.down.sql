-- A hash cannot be turned back into its token: the sessions end, and
-- their users log in again.
DELETE FROM sessions;
