package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is a webhook receiver written from the Standard Webhooks 1.0
// specification alone (it never calls package webhooks): it verifies
// every signature of webhook-signature against the secrets it holds,
// refuses a timestamp more than five minutes from its own clock, and
// records what it received.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	keys   map[string][]byte // the secrets it trusts, by a name of the test's
	now    func() time.Time
	status int    // the status of a verified delivery
	body   string // the body of every answer
	got    []received
}

// received is one request as the receiver saw it.
type received struct {
	id, timestamp, contentType string
	body                       []byte
	// verifiedBy names the secrets a signature of the header matched;
	// signatures counts the header's signatures.
	verifiedBy []string
	signatures int
	// refused says why the receiver refused it ("" when it did not).
	refused string
}

// tolerance is how far a webhook-timestamp may be from the receiver's
// clock (the spec's example uses five minutes).
const tolerance = 5 * time.Minute

// newReceiver starts a receiver on loopback trusting secrets (name →
// whsec_ secret) at the clock now.
func newReceiver(t *testing.T, now func() time.Time, secrets map[string]string) *receiver {
	r := &receiver{t: t, keys: map[string][]byte{}, now: now, status: http.StatusNoContent}
	for name, s := range secrets {
		r.trust(name, s)
	}
	r.srv = httptest.NewServer(r)
	t.Cleanup(r.srv.Close)
	return r
}

// trust adds a whsec_ secret: the base64 after the prefix is the key.
func (r *receiver) trust(name, secret string) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		r.t.Fatalf("not a whsec_ secret: %q", secret)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys[name] = key
}

// forget drops a trusted secret.
func (r *receiver) forget(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.keys, name)
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	rec := received{id: req.Header.Get("webhook-id"), timestamp: req.Header.Get("webhook-timestamp"),
		contentType: req.Header.Get("Content-Type"), body: body}
	r.mu.Lock()
	defer func() { r.got = append(r.got, rec); r.mu.Unlock() }()
	ts, err := strconv.ParseInt(rec.timestamp, 10, 64)
	switch {
	case req.Method != http.MethodPost || rec.id == "" || err != nil:
		rec.refused = "malformed"
	case r.now().Sub(time.Unix(ts, 0)).Abs() > tolerance:
		rec.refused = "stale"
	}
	if rec.refused == "" {
		signed := []byte(rec.id + "." + rec.timestamp + "." + string(body))
		for _, sig := range strings.Fields(req.Header.Get("webhook-signature")) {
			rec.signatures++
			version, b64, ok := strings.Cut(sig, ",")
			mac, err := base64.StdEncoding.DecodeString(b64)
			if !ok || version != "v1" || err != nil {
				continue
			}
			for name, key := range r.keys {
				h := hmac.New(sha256.New, key)
				h.Write(signed)
				if hmac.Equal(h.Sum(nil), mac) {
					rec.verifiedBy = append(rec.verifiedBy, name)
				}
			}
		}
		if len(rec.verifiedBy) == 0 {
			rec.refused = "signature"
		}
	}
	if rec.refused != "" {
		http.Error(w, "refused: "+rec.refused, http.StatusBadRequest)
		return
	}
	w.WriteHeader(r.status)
	io.WriteString(w, r.body)
}

// received returns what the receiver got so far.
func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// set sets the status and body of a verified delivery's answer.
func (r *receiver) set(status int, body string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.body = status, body
}
