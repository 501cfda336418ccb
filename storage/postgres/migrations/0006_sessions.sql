-- Sessions end when they should (issue 15). users.session_epoch counts the
-- events that end a user's sessions (auth.UserRecord.SessionEpoch);
-- key_pairs.session_epoch is the epoch the issuing login or refresh read,
-- and a pair whose epoch is not its user's is refused on insert.
ALTER TABLE users ADD COLUMN session_epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE key_pairs ADD COLUMN session_epoch bigint NOT NULL DEFAULT 0;

-- A pair stored on a device revoked before it is revoked with the device.
UPDATE key_pairs k SET revoked_at = d.revoked_at
  FROM devices d
 WHERE d.id = k.device_id AND k.revoked_at IS NULL AND d.revoked_at IS NOT NULL;
