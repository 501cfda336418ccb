package auth

import (
	"strings"
	"unicode/utf8"
)

// maxUserAgent is how much of a User-Agent deviceNameFromUserAgent reads.
const maxUserAgent = 512

// The User-Agent tokens that name a browser, most specific first: Edge,
// Opera and Samsung Internet also say Chrome and Safari, Chrome also says
// Safari, and Chrome and Firefox on iOS say CriOS and FxiOS.
var uaBrowsers = []struct{ token, name string }{
	{"Edg", "Edge"}, {"OPR/", "Opera"}, {"Opera", "Opera"}, {"SamsungBrowser/", "Samsung Internet"},
	{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"}, {"CriOS/", "Chrome"}, {"Chrome/", "Chrome"},
	{"Safari/", "Safari"},
}

// The tokens that name an operating system, most specific first: Android
// and ChromeOS also say Linux, iOS says "like Mac OS X".
var uaSystems = []struct{ token, name string }{
	{"Windows", "Windows"}, {"iPhone", "iOS"}, {"iPad", "iOS"}, {"iPod", "iOS"}, {"Android", "Android"},
	{"CrOS", "ChromeOS"}, {"Macintosh", "macOS"}, {"Mac OS X", "macOS"}, {"Linux", "Linux"},
}

// deviceNameFromUserAgent names the device of a login that sent no
// X-Device-Code from its User-Agent: "Chrome on Linux", "Safari on iOS",
// "Firefox", "Unknown device". It reads only the first 512 bytes and
// knows only the browsers and systems of the tables above, by substring:
// a name to recognise a session by in a list, not a fingerprint. os is
// the system's name, "" when none is recognised.
func deviceNameFromUserAgent(ua string) (name, os string) {
	if len(ua) > maxUserAgent {
		ua = ua[:maxUserAgent]
	}
	ua = strings.ToValidUTF8(ua, string(utf8.RuneError))
	var browser string
	for _, b := range uaBrowsers {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	for _, s := range uaSystems {
		if strings.Contains(ua, s.token) {
			os = s.name
			break
		}
	}
	switch {
	case browser != "" && os != "":
		return browser + " on " + os, os
	case browser != "":
		return browser, os
	case os != "":
		return "Browser on " + os, os
	}
	return "Unknown device", ""
}
