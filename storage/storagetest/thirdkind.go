package storagetest

import (
	"encoding/json"
	"time"

	"github.com/brandbase/brandbase/integrations"
)

// The third integration kind: a CRM connection, known to nothing but this
// suite. The stores keep it through the same methods as analytics and
// payment gateways, which proves that a new kind of integration needs no
// new store method and no change to any backend. It is defined here (a
// non-test file, unexported) so that every store's test runs it through
// [Run]; a _test.go file of this package would not be compiled into the
// stores' tests.
const (
	kindCRM integrations.RecordKind = "CRM"
	typeCRM integrations.Type       = "CRM"
)

// crmBody is the CRM kind's non-secret fields.
type crmBody struct {
	Pipeline string  `json:"pipeline"`
	Region   *string `json:"region"`
	Sandbox  bool    `json:"sandbox"`
}

// crm describes the CRM kind to the configuration scenarios.
var crm = configKind{
	kind:    kindCRM,
	appType: typeCRM,
	make: func(brandID, appID string, created time.Time) integrations.ConfigRecord {
		return testConfig(kindCRM, brandID, appID, created,
			crmBody{Pipeline: "sales", Region: integPtr("eu"), Sandbox: true},
			map[string][]byte{"token": {0xc1, 0, 0xff}, "webhookSecret": {3, 3}})
	},
	change: func(r *integrations.ConfigRecord) {
		r.Body = mustJSON(crmBody{Pipeline: "support"})
		r.Secrets = map[string][]byte{"token": {9}}
	},
}

// mustJSON returns the JSON of v, which must encode.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the suite's own fixed types get here
	}
	return b
}
