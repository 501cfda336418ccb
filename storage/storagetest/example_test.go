package storagetest_test

import (
	"testing"

	"github.com/brandbase/brandbase/storage"
	"github.com/brandbase/brandbase/storage/memory"
	"github.com/brandbase/brandbase/storage/storagetest"
)

// A new backend is conformant when it passes the whole suite: its test
// package holds one function like this one (memory.New stands for the new
// backend's constructor). Each subtest gets a fresh store and closes it.
func ExampleRun() {
	_ = func(t *testing.T) { // func TestConformance(t *testing.T) in the backend's _test.go
		storagetest.Run(t, func(t *testing.T) storage.Storage {
			s, err := memory.New(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	}
}
