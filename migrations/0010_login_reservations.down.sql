UPDATE login_attempts SET ok = false WHERE ok IS NULL;
ALTER TABLE login_attempts ALTER COLUMN ok SET NOT NULL;
