-- Sessions end when they should (issue 15). users.session_epoch counts the
-- events that end a user's sessions (auth.UserRecord.SessionEpoch);
-- key_pairs.session_epoch is the epoch the issuing login or refresh read,
-- and a pair whose epoch is not its user's is refused on insert.
ALTER TABLE users ADD COLUMN session_epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_pairs ADD COLUMN session_epoch INTEGER NOT NULL DEFAULT 0;

-- A pair stored on a device revoked before it (the race this migration's
-- version closes) is revoked with the device.
UPDATE key_pairs
   SET revoked_at = (SELECT d.revoked_at FROM devices d WHERE d.id = key_pairs.device_id)
 WHERE revoked_at IS NULL
   AND device_id IN (SELECT id FROM devices WHERE revoked_at IS NOT NULL);
