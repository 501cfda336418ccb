package refdata

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/brandbase/brandbase/envelope"

	"github.com/brandbase/brandbase/internal/refrows"
)

// Limits of a city record.
const (
	maxCityName = 200                 // bytes
	maxCityTags = refrows.MaxCityTags // bytes
	maxState    = 6                   // ASCII letters and digits
)

// normalizeCity validates c and returns it in its stored form: codes
// trimmed and upper-case, a state code given with its country prefix
// ("US-CA") reduced to the subdivision ("CA"), name and tags trimmed. The
// country code must be two ASCII letters, the state code empty or up to six
// ASCII letters and digits, the name non-empty; name and tags are UTF-8 of
// at most 200 bytes without control characters. It fails with
// KindInvalid, one field error per bad field (codes required,
// invalid_format, too_long, invalid_type).
func normalizeCity(c City) (City, error) {
	var v envelope.Validation
	c.CountryCode = strings.ToUpper(strings.TrimSpace(c.CountryCode))
	c.StateCode = strings.ToUpper(strings.TrimSpace(c.StateCode))
	c.Name = strings.TrimSpace(c.Name)
	c.Tags = strings.TrimSpace(c.Tags)
	switch {
	case c.CountryCode == "":
		v.Add("countryCode", "required", "countryCode is required.")
	case len(c.CountryCode) != 2 || !isASCIIAlnum(c.CountryCode, false):
		v.Add("countryCode", "invalid_format", "countryCode must be an ISO 3166-1 alpha-2 code.")
	}
	if rest, ok := strings.CutPrefix(c.StateCode, c.CountryCode+"-"); ok && c.CountryCode != "" {
		c.StateCode = rest
	}
	if len(c.StateCode) > maxState || !isASCIIAlnum(c.StateCode, true) {
		v.Add("stateCode", "invalid_format", "stateCode must be an ISO 3166-2 subdivision code of up to 6 letters and digits.")
	}
	switch {
	case c.Name == "":
		v.Add("name", "required", "name is required.")
	case !utf8.ValidString(c.Name):
		v.Add("name", "invalid_type", "name must be UTF-8 text.")
	case len(c.Name) > maxCityName:
		v.Add("name", "too_long", "name must be at most 200 bytes long.")
	case hasControl(c.Name):
		v.Add("name", "invalid_format", "name must not hold control characters.")
	}
	switch {
	case !utf8.ValidString(c.Tags):
		v.Add("tags", "invalid_type", "tags must be UTF-8 text.")
	case len(c.Tags) > maxCityTags:
		v.Add("tags", "too_long", "tags must be at most 200 bytes long.")
	case hasControl(c.Tags):
		v.Add("tags", "invalid_format", "tags must not hold control characters.")
	}
	return c, v.Err()
}

// hasControl reports whether s holds a control character (NUL, tab, line
// breaks, ...).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

// isASCIIAlnum reports whether s is made of ASCII letters (and digits, when
// digits is true).
func isASCIIAlnum(s string, digits bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z') && !('a' <= c && c <= 'z') && !(digits && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// cityKey returns the natural key of a normalised city (refrows.CityKey).
func cityKey(c City) string { return refrows.CityKey(c.CountryCode, c.StateCode, c.Name) }

// ImportOptions tune an import. The zero value is ready to use.
type ImportOptions struct {
	// BatchSize is the number of cities written per store call, each in
	// one transaction; 0 means 1000.
	BatchSize int
	// MaxErrors is how many row errors the report lists (a row may have
	// several); 0 means 100. Every bad row is counted.
	MaxErrors int
	// Progress, when not nil, is called after each batch with the report
	// so far.
	Progress func(ImportReport)
}

// RowError is one bad row of an import.
type RowError struct {
	// Line is the 1-based line of the input where the row starts.
	Line int `json:"line"`
	// Field is the column or JSON field at fault, or "" for the row as a
	// whole.
	Field string `json:"field,omitempty"`
	// Code names the rule broken (required, invalid_format, too_long,
	// invalid_type, unknown_country, malformed_row).
	Code string `json:"code"`
	// Details is the human-readable explanation.
	Details string `json:"details"`
}

func (e RowError) String() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Details)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Details)
}

// ImportReport sums an import up.
type ImportReport struct {
	// Rows is the number of data rows read (bad ones included).
	Rows int `json:"rows"`
	// Added is the number of new cities stored.
	Added int `json:"added"`
	// Updated is the number of good rows whose city was already stored
	// (its name was replaced and its tags added to the stored ones; the
	// same city twice in the input counts here too).
	Updated int `json:"updated"`
	// Skipped is the number of bad rows, which were not imported.
	Skipped int `json:"skipped"`
	// Errors lists the errors of the first bad rows, one per bad field
	// (at most ImportOptions.MaxErrors).
	Errors []RowError `json:"errors"`
	// UnknownStateCodes is the number of rows stored (added or updated)
	// whose stateCode is not an ISO 3166-2 code of their country on the
	// list the library embeds (see docs/reference-data.md, "Subdivision
	// codes"): a code ISO has replaced, or a dataset's own. Such rows are
	// stored as given, and counted here so that the import can be checked.
	UnknownStateCodes int `json:"unknownStateCodes"`
	// UnknownStateSamples names the first of those rows (at most
	// MaxUnknownStateSamples), each with its line and code
	// (Code "unknown_state_code", Field "stateCode").
	UnknownStateSamples []RowError `json:"unknownStateSamples"`
}

// MaxUnknownStateSamples is the number of rows with an unknown state code
// that an ImportReport names.
const MaxUnknownStateSamples = 10

// importer collects good rows into batches and writes them to the store.
type importer struct {
	ctx       context.Context
	store     Store
	opts      ImportOptions
	countries map[string]bool // known alpha-2 codes; nil: not checked
	states    map[subdivisionKey]bool
	batch     []City
	report    ImportReport
}

func (s *Service) newImporter(ctx context.Context, opts ImportOptions) (*importer, error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 1000
	}
	if opts.MaxErrors <= 0 {
		opts.MaxErrors = 100
	}
	states, err := subdivisions()
	if err != nil {
		return nil, envelope.Internal(err)
	}
	im := &importer{ctx: ctx, store: s.store, opts: opts, states: states, batch: make([]City, 0, opts.BatchSize)}
	sn, err := s.ix.current(ctx)
	if err != nil {
		return nil, err
	}
	cs := sn.countries.rows()
	if len(cs) > 0 {
		im.countries = make(map[string]bool, len(cs))
		for _, c := range cs {
			im.countries[c.CodeAlpha2] = true
		}
	}
	return im, nil
}

// add validates one row, starting at line, and queues it.
func (im *importer) add(line int, c City) error {
	im.report.Rows++
	c, err := normalizeCity(c)
	if err != nil {
		var errs []RowError
		for _, it := range envelope.As(err).Items() {
			errs = append(errs, RowError{Line: line, Field: it.Field, Code: it.Code, Details: it.Details})
		}
		im.bad(errs...)
		return nil
	}
	if im.countries != nil && !im.countries[c.CountryCode] {
		im.bad(RowError{Line: line, Field: "countryCode", Code: "unknown_country",
			Details: "countryCode " + c.CountryCode + " is not a known country."})
		return nil
	}
	if c.StateCode != "" && !im.states[subdivisionKey{c.CountryCode, c.StateCode}] {
		im.report.UnknownStateCodes++
		if len(im.report.UnknownStateSamples) < MaxUnknownStateSamples {
			im.report.UnknownStateSamples = append(im.report.UnknownStateSamples, RowError{Line: line, Field: "stateCode",
				Code: "unknown_state_code", Details: c.CountryCode + "-" + c.StateCode + " is not an ISO 3166-2 code; the row is stored as given."})
		}
	}
	im.batch = append(im.batch, c)
	if len(im.batch) >= im.opts.BatchSize {
		return im.flush()
	}
	return nil
}

// bad records one bad row, with an error per bad field.
func (im *importer) bad(errs ...RowError) {
	im.report.Skipped++
	for _, e := range errs {
		if len(im.report.Errors) < im.opts.MaxErrors {
			im.report.Errors = append(im.report.Errors, e)
		}
	}
}

// flush writes the queued rows in one store call.
func (im *importer) flush() error {
	if len(im.batch) > 0 {
		added, err := im.store.UpsertCities(im.ctx, im.batch)
		if err != nil {
			return err
		}
		im.report.Added += added
		im.report.Updated += len(im.batch) - added
		im.batch = im.batch[:0]
	}
	if im.opts.Progress != nil {
		im.opts.Progress(im.report)
	}
	return nil
}

// ImportCities imports a cities file, CSV or JSON (told apart by its first
// non-blank byte: "[" or "{" is JSON), as ImportCitiesCSV or
// ImportCitiesJSON do.
func (s *Service) ImportCities(ctx context.Context, r io.Reader, opts ImportOptions) (ImportReport, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4096)
	bom := []byte("\ufeff")
	first := bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
	if len(first) > 0 && (first[0] == '[' || first[0] == '{') {
		if bytes.HasPrefix(head, bom) {
			_, _ = br.Discard(len(bom))
		}
		return s.ImportCitiesJSON(ctx, br, opts)
	}
	return s.ImportCitiesCSV(ctx, br, opts)
}

// ImportCitiesCSV imports cities from a CSV stream whose header row names
// at least the country code, state code and name columns, in any order and
// spelled as public datasets do: countryCode, country_code or CountryCode
// (any case; likewise stateCode and name). A tags column is optional; other
// columns are ignored, so dr5hn's cities.csv imports as published.
//
// The input is streamed: rows are validated (NormalizeCity, and the country
// code must be a stored country when the store holds countries) and written
// in batches, so memory stays constant whatever the file's size. A bad row
// is skipped and reported with its line number; the import goes on. Rows
// are upserted by their natural key (cityKey), so importing a file again
// adds nothing. A fatal error (unreadable input, missing column, store
// failure) stops the import and is returned with the report so far; the
// batches written before it stay written, and running the import again is
// safe. Fatal input errors are KindInvalid.
func (s *Service) ImportCitiesCSV(ctx context.Context, r io.Reader, opts ImportOptions) (ImportReport, error) {
	im, err := s.newImporter(ctx, opts)
	if err != nil {
		return ImportReport{}, err
	}
	columns := []string{"countryCode", "stateCode", "name", "tags"}
	var idx []int // of columns, resolved on the first row
	err = readCSV(canonicalHeader(r), columns[:3], func(rw row) error {
		if idx == nil {
			for _, name := range columns {
				idx = append(idx, rw.index(name))
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return im.add(rw.line, City{CountryCode: rw.at(idx[0]), StateCode: rw.at(idx[1]), Name: rw.at(idx[2]), Tags: rw.at(idx[3])})
	}, func(line int, err error) error {
		im.report.Rows++
		im.bad(RowError{Line: line, Code: "malformed_row", Details: "The row is not valid CSV: " + err.Error() + "."})
		return nil
	})
	if err == nil {
		err = im.flush()
	}
	return im.report, importError(err)
}

// cityColumns maps the column names of a cities file, folded by
// columnKey, to the names the importer reads.
var cityColumns = map[string]string{
	"countrycode": "countryCode",
	"statecode":   "stateCode",
	"name":        "name",
	"tags":        "tags",
}

// columnKey folds a column name: lower case, without a byte-order mark,
// underscores, hyphens or spaces (country_code = countryCode = CountryCode).
func columnKey(name string) string {
	name = strings.TrimPrefix(name, "\ufeff")
	return strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(name))
}

// maxHeaderLine is the longest header line canonicalHeader rewrites.
const maxHeaderLine = 64 << 10

// canonicalHeader returns the CSV stream r with the columns of its header
// line that cityColumns knows renamed to the importer's spelling. A header
// that does not fit on one line of at most maxHeaderLine bytes, or does not
// parse, is left as it is, for readCSV to report.
func canonicalHeader(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, maxHeaderLine)
	line, err := br.ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) || len(line) == 0 {
		return io.MultiReader(bytes.NewReader(bytes.Clone(line)), br)
	}
	header, perr := csv.NewReader(bytes.NewReader(line)).Read()
	if perr != nil {
		return io.MultiReader(bytes.NewReader(bytes.Clone(line)), br)
	}
	for i, h := range header {
		if name, ok := cityColumns[columnKey(strings.TrimSpace(h))]; ok {
			header[i] = name
		}
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	_ = w.Write(header) // a bytes.Buffer does not fail
	w.Flush()
	return io.MultiReader(&out, br)
}

// jsonCity is one element of a JSON cities array; tags may be a string or
// an array of strings. The codes may be spelled as dr5hn's JSON spells
// them (country_code, state_code); the camelCase spelling wins when both
// are given.
type jsonCity struct {
	CountryCode      string   `json:"countryCode"`
	CountryCodeSnake string   `json:"country_code"`
	StateCode        string   `json:"stateCode"`
	StateCodeSnake   string   `json:"state_code"`
	Name             string   `json:"name"`
	Tags             jsonTags `json:"tags"`
}

// city returns the city jc names.
func (jc jsonCity) city() City {
	return City{CountryCode: cmp.Or(jc.CountryCode, jc.CountryCodeSnake), StateCode: cmp.Or(jc.StateCode, jc.StateCodeSnake),
		Name: jc.Name, Tags: string(jc.Tags)}
}

type jsonTags string

func (t *jsonTags) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*t = jsonTags(strings.Join(list, ","))
		return nil
	}
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s != nil {
		*t = jsonTags(*s)
	}
	return nil
}

// ImportCitiesJSON imports cities from a JSON array of objects with the
// fields countryCode (or country_code), stateCode (or state_code), name and
// optionally tags (a string, or an array of strings); other fields are
// ignored, so dr5hn's JSON cities import as published. It streams, validates, reports and
// upserts exactly as ImportCitiesCSV does; an element that is not such an
// object is a bad row, and a stream that is not a JSON array is a fatal
// KindInvalid error naming the line.
func (s *Service) ImportCitiesJSON(ctx context.Context, r io.Reader, opts ImportOptions) (ImportReport, error) {
	im, err := s.newImporter(ctx, opts)
	if err != nil {
		return ImportReport{}, err
	}
	lr := &lineReader{r: r}
	dec := json.NewDecoder(lr)
	fatal := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("line %d: %w", lr.lineAt(se.Offset-1), err)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("the JSON array is not closed")
		}
		return err
	}
	tok, err := dec.Token()
	if err != nil {
		return im.report, importError(fatal(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return im.report, importError(errors.New("line 1: the input must be a JSON array of cities"))
	}
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return im.report, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return im.report, importError(fatal(err))
		}
		line := lr.lineAt(dec.InputOffset() - int64(len(raw)))
		var jc jsonCity
		if err := json.Unmarshal(raw, &jc); err != nil {
			im.report.Rows++
			var ute *json.UnmarshalTypeError
			if errors.As(err, &ute) && ute.Field != "" {
				im.bad(RowError{Line: line, Field: ute.Field, Code: "invalid_type", Details: ute.Field + " must be a string."})
			} else {
				im.bad(RowError{Line: line, Code: "invalid_type", Details: "Each element must be an object with countryCode, stateCode, name and tags."})
			}
			continue
		}
		if err := im.add(line, jc.city()); err != nil {
			return im.report, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return im.report, importError(fatal(err))
	}
	return im.report, importError(im.flush())
}

// importError makes a fatal input error an *inputError, whose text is one
// sentence stating the cause once ("The cities file cannot be read: the
// header has no "name" column."); store and context errors pass through.
func importError(err error) error {
	if err == nil {
		return nil
	}
	var e *envelope.Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &inputError{
		env:   envelope.New(envelope.KindInvalid, "invalid_import", "The cities file cannot be read: "+err.Error()+"."),
		cause: err,
	}
}

// inputError is a fatal input error of an import. Its text is the message
// of its KindInvalid *envelope.Error, which already states the cause; an
// *envelope.Error holding the cause itself would state it a second time.
// It unwraps to both, so errors.As finds the envelope error and errors.Is
// the cause.
type inputError struct {
	env   *envelope.Error
	cause error
}

func (e *inputError) Error() string   { return e.env.Message }
func (e *inputError) Unwrap() []error { return []error{e.env, e.cause} }

// lineReader counts the lines of what it reads, so that a byte offset of the
// stream (as json.Decoder reports it) can be turned into a line number. It
// keeps only the newlines not yet asked about, so memory stays bounded by
// the decoder's read-ahead.
type lineReader struct {
	r      io.Reader
	off    int64   // bytes read so far
	nl     []int64 // offsets of newlines not yet passed by lineAt
	passed int     // newlines before nl[0]
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.nl = append(l.nl, l.off+int64(i))
		}
	}
	l.off += int64(n)
	return n, err
}

// lineAt returns the 1-based line of offset off. Offsets must not decrease
// from one call to the next.
func (l *lineReader) lineAt(off int64) int {
	i := 0
	for i < len(l.nl) && l.nl[i] < off {
		i++
	}
	l.passed += i
	l.nl = append(l.nl[:0], l.nl[i:]...)
	return l.passed + 1
}
