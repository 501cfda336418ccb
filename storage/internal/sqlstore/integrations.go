package sqlstore

import "github.com/brandbase/brandbase/integrations"

// Equals builds the WHERE clause of a query of equality tests in a
// store's dialect.
type Equals interface {
	// Equal adds "col = v", joined to the others by AND.
	Equal(col string, v any)
}

// AppIntegrationConditions adds to w the conditions of f: its brand ("":
// every brand) and type.
func AppIntegrationConditions(w Equals, f integrations.AppIntegrationFilter) {
	if f.BrandID != "" {
		w.Equal("brand_id", f.BrandID)
	}
	if f.Type != nil {
		w.Equal("type", string(*f.Type))
	}
}

// ConfigConditions adds to w the conditions of f: its brand ("": every
// brand), kind, app integration and default.
func ConfigConditions(w Equals, f integrations.ConfigFilter) {
	if f.BrandID != "" {
		w.Equal("brand_id", f.BrandID)
	}
	if f.Kind != "" {
		w.Equal("kind", string(f.Kind))
	}
	if f.AppIntegrationID != nil {
		w.Equal("app_integration_id", *f.AppIntegrationID)
	}
	if f.IsDefault != nil {
		w.Equal("is_default", *f.IsDefault)
	}
}

// RevisionConditions adds to w the conditions of f: its brand (always),
// kind and record.
func RevisionConditions(w Equals, f integrations.RevisionFilter) {
	w.Equal("brand_id", f.BrandID)
	if f.Kind != "" {
		w.Equal("kind", string(f.Kind))
	}
	if f.RecordID != "" {
		w.Equal("record_id", f.RecordID)
	}
}
