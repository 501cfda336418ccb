package auth

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strings"
	"sync"
)

// commonPasswordsGz is SecLists' list of the 10,000 most common passwords
// (MIT; its header names the source, the commit, the date and the
// licence; docs/data-sources.md too), gzipped.
//
//go:embed common-passwords.txt.gz
var commonPasswordsGz []byte

// CommonPasswordCount is how many passwords the embedded list of common
// passwords holds.
const CommonPasswordCount = 10000

// commonPasswords returns the embedded list as a set, read once. The list
// is compiled in, so a failure to read it is a defect of the build, and
// panics on first use (a test reads it).
var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	zr, err := gzip.NewReader(bytes.NewReader(commonPasswordsGz))
	if err != nil {
		panic("auth: embedded common-password list: " + err.Error())
	}
	set := make(map[string]struct{}, CommonPasswordCount)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		set[strings.ToLower(line)] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		panic("auth: embedded common-password list: " + err.Error())
	}
	return set
})

// IsCommonPassword reports whether pw, lower-cased and trimmed of
// surrounding space, is one of the 10,000 most common passwords (SecLists'
// 10k-most-common list, embedded). NIST SP 800-63B asks that new passwords
// be checked against such a list; every path that sets a password does
// (CreateUser, SetPassword, Register, ChangePassword, ResetPassword), as
// Django's CommonPasswordValidator does, case-insensitively.
func IsCommonPassword(pw string) bool {
	_, ok := commonPasswords()[strings.ToLower(strings.TrimSpace(pw))]
	return ok
}
