package auth

// CommonPasswordsLen returns how many passwords the embedded list holds.
func CommonPasswordsLen() int { return len(commonPasswords()) }
