package integrations_test

import (
	"testing"

	"github.com/brandbase/brandbase/integrations"
)

var (
	benchAnalytics integrations.Analytics
	benchBytes     []byte
)

// BenchmarkUpdateAnalytics measures one update (validation, transaction,
// secret comparison, revision) on each store.
func BenchmarkUpdateAnalytics(b *testing.B) {
	for name, newStore := range stores {
		b.Run(name, func(b *testing.B) {
			w := newWorld(b, newStore)
			a := w.analytics(b)
			in := w.analyticsInput(w.analyticsApp.ID)
			in.APIKey = a.APIKey // sent back masked: kept
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				var err error
				benchAnalytics, err = w.svc.UpdateAnalytics(ctx, w.admin, a.ID, in)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGetAnalytics measures one read (two lookups, two decryptions,
// masking) on each store.
func BenchmarkGetAnalytics(b *testing.B) {
	for name, newStore := range stores {
		b.Run(name, func(b *testing.B) {
			w := newWorld(b, newStore)
			a := w.analytics(b)
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				var err error
				benchAnalytics, err = w.svc.Analytics(ctx, w.brand, a.ID)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSealOpen measures sealing and opening one 32-byte secret.
func BenchmarkSealOpen(b *testing.B) {
	secret, aad := []byte("sk_live_0123456789abcdefghijklmn"), []byte("brand/record/field")
	b.ReportAllocs()
	for b.Loop() {
		ct := testKeys.Seal(secret, aad)
		var err error
		benchBytes, err = testKeys.Open(ct, aad)
		if err != nil {
			b.Fatal(err)
		}
	}
}
