package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/internal/serve"
	"github.com/brandbase/brandbase/refdata"
)

// importCities loads a CSV or JSON cities file (-import-cities) into the
// app's store (serve.ImportCities), and writes a progress line per batch,
// the first bad rows and the first rows stored with a state code that is
// not on the library's ISO 3166-2 list, to w. Bad rows are skipped; an
// unreadable file fails.
func importCities(ctx context.Context, app *brandbase.App, path string, w io.Writer) error {
	opts := refdata.ImportOptions{
		BatchSize: 5000,
		Progress: func(r refdata.ImportReport) {
			fmt.Fprintf(w, "import-cities: %s: %d rows, %d added, %d updated, %d skipped, %d with a state code not in ISO 3166-2\n",
				filepath.Base(path), r.Rows, r.Added, r.Updated, r.Skipped, r.UnknownStateCodes)
		},
	}
	report, err := serve.ImportCities(ctx, app, path, opts, nil)
	for _, e := range report.Errors {
		fmt.Fprintf(w, "import-cities: %s: skipped %s\n", filepath.Base(path), e)
	}
	for _, e := range report.UnknownStateSamples {
		fmt.Fprintf(w, "import-cities: %s: %s\n", filepath.Base(path), e)
	}
	return err
}
