DROP TABLE scenarios;
DROP TABLE profiles;
DROP TABLE overrides;
