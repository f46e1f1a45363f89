-- Operator overrides, one per module and locale (locale matched case-insensitively).
CREATE TABLE overrides (
    module_id        text        NOT NULL CHECK (module_id <> ''),
    locale           text        NOT NULL CHECK (locale <> ''),
    text             text        NOT NULL,
    title            text        NOT NULL DEFAULT '',
    version          integer     NOT NULL DEFAULT 0 CHECK (version >= 0),
    fields           jsonb,
    based_on_version integer     NOT NULL DEFAULT 0 CHECK (based_on_version >= 0), -- 0: user module, no builtin
    base_snapshot    text        NOT NULL DEFAULT '',
    revision         integer     NOT NULL DEFAULT 1 CHECK (revision > 0),
    author           text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX overrides_module_locale_key ON overrides (module_id, lower(locale));

-- Assembly profiles.
CREATE TABLE profiles (
    id               text        PRIMARY KEY CHECK (id <> ''),
    name             text        NOT NULL DEFAULT '',
    locale           text        NOT NULL DEFAULT '',
    model            text        NOT NULL DEFAULT '',
    time_zone        text        NOT NULL DEFAULT '',
    prompt_modules   text[]      NOT NULL DEFAULT '{}',
    system_prompt    text        NOT NULL DEFAULT '',
    skill_disclosure boolean     NOT NULL DEFAULT true,
    token_budget     integer     NOT NULL DEFAULT 0 CHECK (token_budget >= 0),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

-- Saved preview scenarios: an assemble request (API JSON) with a name.
CREATE TABLE scenarios (
    id          text        PRIMARY KEY CHECK (id <> ''),
    name        text        NOT NULL DEFAULT '',
    description text        NOT NULL DEFAULT '',
    request     json        NOT NULL CHECK (json_typeof(request) = 'object'), -- json, not jsonb: keeps the operator's key order
    builtin     boolean     NOT NULL DEFAULT false,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
