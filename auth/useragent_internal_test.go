package auth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDeviceNameFromUserAgent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ua, name, os string }{
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "Chrome on Linux", "Linux"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0", "Edge on Windows", "Windows"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "Safari on macOS", "macOS"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0 Mobile/15E148 Safari/604.1", "Chrome on iOS", "iOS"},
		{"Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0", "Firefox on Android", "Android"},
		{"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0 Mobile Safari/537.36", "Samsung Internet on Android", "Android"},
		{"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36", "Chrome on ChromeOS", "ChromeOS"},
		{"Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 OPR/111.0", "Opera on Windows", "Windows"},
		{"Firefox/127.0", "Firefox", ""},
		{"Mozilla/5.0 (Windows NT 10.0)", "Browser on Windows", "Windows"},
		{"curl/8.5.0", "Unknown device", ""},
		{"", "Unknown device", ""},
		{"\xff\xfe Chrome/1", "Chrome", ""},
		{strings.Repeat("x", 600) + " Chrome/1", "Unknown device", ""}, // past the bytes read
	} {
		name, os := deviceNameFromUserAgent(tc.ua)
		assert.Equal(t, tc.name, name, tc.ua)
		assert.Equal(t, tc.os, os, tc.ua)
	}
}
