package httpadapter_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
)

// chromiumPath is where Debian's chromium package installs the browser.
const chromiumPath = "/usr/bin/chromium"

// browserPage is a page of our own that calls the API from its origin with
// fetch(), sending the headers the origin's client (jfw-js, default
// options) sends: Brand-URL and X-Current-URL on every request,
// Content-Type with a body, Auth-Key once logged in. It writes what each
// call answered into the page, for --dump-dom.
const browserPage = `<!doctype html><html><body><pre id="out">running</pre><script>
const api = %s, login = %s, analytics = %s, gateway = %s;
const headers = (key, body) => {
  const h = {"Brand-URL": "shop.example.com", "X-Current-URL": location.href};
  if (key) h["Auth-Key"] = key;
  if (body) h["Content-Type"] = "application/json";
  return h;
};
(async () => {
  const res = [];
  try {
    let r = await fetch(api + "/api/v1/users/auth", {method: "POST", headers: headers("", true), body: login});
    res.push("login " + r.status);
    const key = (await r.json()).data.authKey;
    for (const list of ["currencies", "countries", "cities"]) {
      r = await fetch(api + "/api/v1/" + list + "?PageSize=2", {headers: headers(key)});
      res.push(list + " " + r.status);
    }
    r = await fetch(api + analytics.path, {method: "PUT", headers: headers(key, true), body: analytics.body});
    res.push("analytics " + r.status);
    r = await fetch(api + gateway.path, {method: "PUT", headers: headers(key, true), body: gateway.body});
    res.push("payment-gateway " + r.status);
  } catch (e) {
    res.push("error " + e);
  }
  document.getElementById("out").textContent = "RESULT " + res.join(";") + " END";
})();
</script></body></html>`

// Headless Chromium, on a page of another origin, logs in, lists and
// updates both integrations through the adapter with CORS on and no header
// added: the browser's preflights allow every header the origin's client
// sends. It skips without Debian's chromium (apt-get install chromium).
func TestBrowserCallsFromAnotherOrigin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skip("no " + chromiumPath)
	}
	t.Parallel()
	var body atomic.Pointer[string] // the page, written once the API's address is known
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, *body.Load())
	}))
	defer page.Close()

	f := newIntegFixture(t, stores["memory"], httpadapter.WithoutRateLimits(), httpadapter.WithCORS(page.URL))
	api := httptest.NewServer(f.handler)
	defer api.Close()
	obj := func(path, b string) string {
		return `{"path": ` + strconv.Quote(path) + `, "body": ` + strconv.Quote(b) + `}`
	}
	html := fmt.Sprintf(browserPage, strconv.Quote(api.URL), strconv.Quote(adminLogin()),
		obj(analyticsPath(f.analytics.ID), analyticsBody(f.analytics.AppIntegration.ID, nil)),
		obj(gatewayPath(f.gateway.ID), gatewayBody(f.gateway.AppIntegration.ID, nil)))
	body.Store(&html)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, chromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=10000", "--dump-dom", page.URL+"/").Output()
	require.NoError(t, err, "chromium: %s", out)
	m := regexp.MustCompile(`RESULT (.*?) END`).FindSubmatch(out)
	require.NotNil(t, m, "the page finished: %s", out)
	require.Equal(t, "login 200;currencies 200;countries 200;cities 200;analytics 200;payment-gateway 200", string(m[1]),
		"every call from the other origin went through; the adapter's log:\n%s", f.logs.String())
}
