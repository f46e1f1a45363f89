-- Sessions are keyed by the SHA-256 of their token (hex), so that the
-- table holds no token that logs in; the sessions open now keep working.
UPDATE sessions SET token = encode(sha256(convert_to(token, 'UTF8')), 'hex');
