package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/brandbase/brandbase"
	"github.com/brandbase/brandbase/internal/serve"
	"github.com/brandbase/brandbase/refdata"
)

func runImport(ctx context.Context, c *cli, args []string) error {
	return subcommand(ctx, c, "import", args, map[string]func(context.Context, *cli, []string) error{
		"cities": importKind("cities"), "countries": importKind("countries"), "currencies": importKind("currencies"),
	}, []string{"cities", "countries", "currencies"})
}

// importKind returns the import subcommand of a list: cities (CSV or
// JSON, as the library's importer reads them), countries or currencies
// (CSV in the columns of the embedded dataset's files).
func importKind(kind string) func(context.Context, *cli, []string) error {
	return func(ctx context.Context, c *cli, args []string) error {
		f := newFlags(c, "import "+kind, "brandbase import "+kind+" [flags] FILE")
		batch := f.Int("batch", 5000, "rows written per transaction (cities)")
		pos, err := f.parse(args)
		if err != nil {
			return err
		}
		if err := f.exactArgs(pos, "FILE"); err != nil {
			return err
		}
		path := pos[0]
		st, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("cannot read %s: %w", path, err)
		}
		app, done, err := f.openApp(ctx, false, c.adminLogger())
		if err != nil {
			return err
		}
		defer done()
		p := newProgress(c.stderr, "import "+kind+" "+filepath.Base(path), st.Size())
		opts := refdata.ImportOptions{BatchSize: *batch, Progress: func(r refdata.ImportReport) {
			p.update(r.Rows, r.Added, r.Updated, r.Skipped)
		}}
		report, err := importFile(ctx, app, kind, path, opts, p)
		p.finish(report.Rows)
		if err != nil {
			return describe(err)
		}
		if report.Errors == nil {
			report.Errors = []refdata.RowError{}
		}
		if report.UnknownStateSamples == nil {
			report.UnknownStateSamples = []refdata.RowError{}
		}
		return f.out(report, func(w io.Writer) error {
			err := printFields(w, [][2]string{{"rows", strconv.Itoa(report.Rows)}, {"added", strconv.Itoa(report.Added)},
				{"updated", strconv.Itoa(report.Updated)}, {"skipped", strconv.Itoa(report.Skipped)},
				{"state codes not in ISO 3166-2", strconv.Itoa(report.UnknownStateCodes)}})
			for _, e := range report.Errors {
				fmt.Fprintf(w, "skipped %s\n", e)
			}
			for _, e := range report.UnknownStateSamples {
				fmt.Fprintf(w, "stored as given: %s\n", e)
			}
			return err
		})
	}
}

// importFile imports path as kind.
func importFile(ctx context.Context, app *brandbase.App, kind, path string, opts refdata.ImportOptions, p *progress) (refdata.ImportReport, error) {
	if kind == "cities" {
		return serve.ImportCities(ctx, app, path, opts, p.reader)
	}
	file, err := os.Open(path)
	if err != nil {
		return refdata.ImportReport{}, err
	}
	defer file.Close()
	if kind == "countries" {
		return app.RefData.ImportCountriesCSV(ctx, p.reader(file), opts)
	}
	return app.RefData.ImportCurrenciesCSV(ctx, p.reader(file), opts)
}
