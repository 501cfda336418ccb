-- Devices are the sessions a user sees (issue 26 item 5).
-- last_access_at: when the device was last used (a login, a refresh, an
-- authenticated request), written at most once a minute per device; NULL
-- until then. ended_at: when its sessions were ended (by the user, or a
-- brand's device cap); NULL while not; a later login from it clears it.
-- from_user_agent: true when the login sent no X-Device-Code and the server
-- made the code and named the device from its User-Agent.
ALTER TABLE devices ADD COLUMN last_access_at timestamptz;
ALTER TABLE devices ADD COLUMN ended_at timestamptz;
ALTER TABLE devices ADD COLUMN from_user_agent boolean NOT NULL DEFAULT false;
UPDATE devices SET last_access_at = last_seen_at;
