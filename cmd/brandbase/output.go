package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printTable writes a table: a header row and rows, in aligned columns.
func printTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// printFields writes one record as "name: value" lines.
func printFields(w io.Writer, fields [][2]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, f := range fields {
		fmt.Fprintf(tw, "%s:\t%s\n", f[0], f[1])
	}
	return tw.Flush()
}

// out prints v as JSON with --json, else calls table.
func (f *flags) out(v any, table func(w io.Writer) error) error {
	if f.common.json {
		return printJSON(f.c.stdout, v)
	}
	return table(f.c.stdout)
}

// when formats a time for a table ("-" for none).
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// orDash returns s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
