package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/brandbase/brandbase/webhooks"
)

// verify is what a receiver writes (it needs nothing of brandbase): it
// reports whether one of the request's signatures is the secret's, for a
// timestamp within five minutes of now.
func verify(secret string, h http.Header, body []byte, now time.Time) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	ts, terr := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || terr != nil || now.Sub(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "." + string(body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// A receiver verifies a delivery with the endpoint's secret: the signature
// (one of those in webhook-signature) over "id.timestamp.body", and a
// timestamp near its own clock.
func Example_verify() {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" // from the create's answer
	body := []byte(`{"type":"user.created","data":{"userId":"u1"}}`)
	at := time.Unix(1767225600, 0)

	// What the service sends (webhooks.SignatureHeader makes the header).
	key, _ := webhooks.ParseSecret(secret)
	h := http.Header{}
	h.Set("webhook-id", "evt_1")
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	h.Set("webhook-signature", webhooks.SignatureHeader([][]byte{key}, "evt_1", at, body))

	fmt.Println(verify(secret, h, body, at.Add(time.Minute)))
	fmt.Println(verify(secret, h, []byte(`{"type":"user.deleted"}`), at))
	fmt.Println(verify(secret, h, body, at.Add(time.Hour)))
	// Output:
	// true
	// false
	// false
}
