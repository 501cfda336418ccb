package sqlstore

// The columns of the tables of auth and integrations, the same in both
// stores, in the order each store's scan reads them.

const (
	// KeyColumns are the columns of a key pair.
	KeyColumns = `id, family_id, brand_id, user_id, device_id, auth_hash, refresh_hash, created_at,
	auth_expires_at, refresh_expires_at, revoked_at, replaced_by, session_epoch`
	// UserColumns are the columns of a user.
	UserColumns = `id, brand_id, username, username_key, email_address, email_key, phone_number,
	password_hash, permissions, status, created_at, updated_at, session_epoch, first_name, last_name, nick_name`
	// BrandColumns are the columns of a brand.
	BrandColumns = `id, url, name, status, default_currency, created_at`
	// DeviceColumns are the columns of a device.
	DeviceColumns = `id, brand_id, user_id, code, token, name, app_version, os, created_at, last_seen_at, revoked_at,
	last_access_at, ended_at, from_user_agent`
	// AppColumns are the columns of an app integration.
	AppColumns = `id, brand_id, type, name, domain, description, logo_url, status, version, created_at, updated_at`
	// ConfigColumns are the columns of a configuration record.
	ConfigColumns = `id, kind, brand_id, app_integration_id, is_default, status, version, body, secrets,
	created_at, updated_at`
	// RevisionColumns are the columns of a revision.
	RevisionColumns = `id, brand_id, kind, record_id, version, actor_user_id, at, fields`
)
