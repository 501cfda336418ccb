package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/brandbase/brandbase/httpadapter"
)

// TestEmailTemplateRoutes: the email-templates routes in jfw-js's shape,
// under their permissions, a bad template refused with a field error,
// on each store.
func TestEmailTemplateRoutes(t *testing.T) {
	t.Parallel()
	const good = `{"eventId":"password_reset","languageCode":"pt-BR","countryCode":"BR","tags":"x","subject":"Redefinir {{.brandName}}",` +
		`"body":"<a href=\"{{.link}}\">{{.userName}}</a>","textBody":"Abra {{.link}}"}`
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newIntegFixture(t, newStore)
			as := func(who string) map[string]string { return jsonHeaders("shop.example.com", "Auth-Key", f.keys[who]) }
			rec, e := f.do(t, "POST", "/api/v1/email-templates", as("admin"), good)
			require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
			var tpl httpadapter.EmailTemplate
			require.NoError(t, json.Unmarshal(e.Data, &tpl))
			assert.Equal(t, "pt-br", tpl.LanguageCode)
			assert.Equal(t, "password_reset", tpl.Event.ID)
			assert.Equal(t, "password_reset", tpl.Event.Code)
			assert.Equal(t, `<a href="{{.link}}">{{.userName}}</a>`, tpl.Body)
			assert.Equal(t, "Abra {{.link}}", tpl.TextBody)
			assert.Regexp(t, `\+00:00$`, tpl.CreatedDate)
			byID := "/api/v1/email-templates/" + tpl.ID

			tests := []struct {
				name, method, path, who, body string
				status                        int
				code, field                   string
			}{
				{"list", "GET", "/api/v1/email-templates?eventid=password_reset", "admin", "", 200, "", ""},
				{"read", "GET", byID, "admin", "", 200, "", ""},
				{"placeholder keys", "GET", "/api/v1/email-templates/placeholder-keys", "viewer", "", 200, "", ""},
				{"list without permission", "GET", "/api/v1/email-templates", "viewer", "", 403, "access_denied", ""},
				{"create without permission", "POST", "/api/v1/email-templates", "analyst", good, 403, "access_denied", ""},
				{"same kind and language", "POST", "/api/v1/email-templates", "admin", good, 409, "template_exists", ""},
				{"a template that does not render", "POST", "/api/v1/email-templates", "admin",
					`{"eventId":"password_reset","languageCode":"fr","subject":"s","body":"<p>{{.password}}</p>"}`, 400, "invalid_template", "body"},
				{"a template that does not parse", "PUT", byID, "admin",
					`{"eventId":"password_reset","subject":"{{.link","body":"<p>x</p>"}`, 400, "invalid_template", "subject"},
				{"an unknown kind", "POST", "/api/v1/email-templates", "admin",
					`{"eventId":"welcome","subject":"s","body":"b"}`, 400, "invalid_enum", "eventId"},
				{"another brand's", "GET", byID, "boss", "", 404, "not_found", ""},
				{"update", "PUT", byID, "admin", `{"eventId":"password_reset","languageCode":"pt-BR","subject":"Novo","body":"<p>{{.link}}</p>"}`, 200, "", ""},
				{"delete without permission", "DELETE", byID, "viewer", "", 403, "access_denied", ""},
				{"delete", "DELETE", byID, "admin", "", 200, "", ""},
				{"deleted", "GET", byID, "admin", "", 404, "not_found", ""},
			}
			for _, tc := range tests {
				headers := as(tc.who)
				if tc.who == "boss" {
					headers = jsonHeaders("other.example.com", "Auth-Key", f.keys["boss"])
				}
				rec, e := f.do(t, tc.method, tc.path, headers, tc.body)
				require.Equal(t, tc.status, rec.Code, "%s: %s", tc.name, rec.Body.String())
				if tc.code != "" {
					require.NotEmpty(t, e.Errors, tc.name)
					assert.Equal(t, tc.code, e.Errors[0].Code, tc.name)
					if tc.field != "" {
						assert.Equal(t, tc.field, e.Errors[0].Field, tc.name)
					}
				}
				switch tc.name {
				case "list":
					var list []httpadapter.EmailTemplate
					require.NoError(t, json.Unmarshal(e.Data, &list))
					require.Len(t, list, 1)
					assert.Equal(t, tpl.ID, list[0].ID)
				case "placeholder keys":
					var keys map[string][]string
					require.NoError(t, json.Unmarshal(e.Data, &keys))
					assert.Equal(t, []string{"brandName", "brandUrl", "expiresAt", "link", "userName"}, keys["password_reset"])
				case "update":
					rendered, err := f.app.Messages.Render(t.Context(), f.brand.ID, "pt-BR", "password_reset",
						map[string]string{"link": "https://shop.example.com/r?token=a&b=c"})
					require.NoError(t, err)
					assert.Equal(t, "Novo", rendered.Subject)
					assert.Equal(t, `<p>https://shop.example.com/r?token=a&amp;b=c</p>`, rendered.HTML)
				}
			}
		})
	}
}
