-- Users.  A user is created on the first request that carries a new
-- identity (subject).  A placeholder user, added by someone who shares with
-- them, has an email but no subject until they first sign in with that
-- email claim.
CREATE TABLE users (
    id          INTEGER PRIMARY KEY,
    subject     TEXT UNIQUE,
    email       TEXT COLLATE NOCASE,
    name        TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE UNIQUE INDEX users_email ON users(email) WHERE email IS NOT NULL;

-- Who a user has added as a participant ("those the caller added").
CREATE TABLE user_contacts (
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    contact_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, contact_id)
) WITHOUT ROWID;
