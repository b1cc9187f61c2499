package marketplace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"reviewd/app/core"
	"reviewd/app/core/catalogue"
	"reviewd/app/outbound"
)

// File limits (spec 3, "Limits").
const (
	MaxFileBytes = 20 << 20
	MaxFileRows  = 100000
)

// File problems answered with 400 invalid / <detail>.
var (
	ErrFileUnreadable     = core.Invalid("file_unreadable")
	ErrUnsupportedFormat  = core.Invalid("unsupported_format")
	ErrFileTooLarge       = core.Invalid("too_large")
	ErrFileTooManyRows    = core.Invalid("too_many_rows")
	ErrFileRequired       = core.Invalid("file_required")
	errColumnMissingFirst = "column_missing"
)

// Row is one marketplace review row with its canonical fields.
type Row struct {
	Line   int
	Fields map[string]string
}

// rowSource yields rows one at a time; Next returns io.EOF after the last.
type rowSource interface {
	Next() (Row, error)
	Close() error
}

// Formats of a file.
const (
	FormatCSV  = "csv"
	FormatXLSX = "xlsx"
	FormatJSON = "json"
)

// sniff tells a file's format from its first bytes: a zip (xlsx), JSON ('[' or
// '{'), or text (CSV). Legacy Excel, PDF and other binary files are
// unsupported_format.
func sniff(head []byte) (string, error) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return FormatXLSX, nil
	case bytes.HasPrefix(head, []byte("\xd0\xcf\x11\xe0")), bytes.HasPrefix(head, []byte("%PDF")),
		bytes.IndexByte(head, 0) >= 0:
		return "", ErrUnsupportedFormat
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		return FormatJSON, nil
	}
	if len(t) == 0 {
		return "", ErrFileUnreadable
	}
	return FormatCSV, nil
}

// openRows opens a stored file for reading row by row, checks its header and
// returns the row source. The file is read as a stream; only one row is held at a
// time.
func openRows(ctx context.Context, path string, p Platform) (rowSource, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	format, err := sniff(head[:n])
	if err != nil {
		f.Close()
		return nil, "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, "", err
	}
	var src rowSource
	switch format {
	case FormatCSV:
		src, err = newCSVRows(f, p)
	case FormatJSON:
		src, err = newJSONRows(f, p)
	case FormatXLSX:
		src, err = newXLSXRows(ctx, f, p)
	}
	if err != nil {
		f.Close()
		return nil, "", err
	}
	return src, format, nil
}

func columnMissing(idx map[string]int) error {
	for _, col := range requiredColumns {
		if _, ok := idx[col]; !ok {
			return core.Invalidf(errColumnMissingFirst, col)
		}
	}
	return nil
}

func pick(idx map[string]int, rec []string, line int) Row {
	row := Row{Line: line, Fields: make(map[string]string, len(idx))}
	for col, i := range idx {
		if i < len(rec) {
			row.Fields[col] = strings.TrimSpace(rec[i])
		}
	}
	return row
}

// csvRows reads CSV with the delimiter of its header line (comma, semicolon or tab).
type csvRows struct {
	f    io.Closer
	r    *csv.Reader
	idx  map[string]int
	line int
}

func newCSVRows(f *os.File, p Platform) (*csvRows, error) {
	return newCSVStream(f, f, p)
}

func newCSVStream(rd io.Reader, closer io.Closer, p Platform) (*csvRows, error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	first, _ := br.Peek(4096)
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	delim := ','
	best := bytes.Count(first, []byte(","))
	for _, d := range []rune{';', '\t'} {
		if c := bytes.Count(first, []byte(string(d))); c > best {
			delim, best = d, c
		}
	}
	r := csv.NewReader(br)
	r.Comma, r.FieldsPerRecord, r.LazyQuotes, r.ReuseRecord = delim, -1, true, true
	header, err := r.Read()
	if err != nil {
		return nil, readErr(err)
	}
	idx := p.headerIndex(header)
	if err := columnMissing(idx); err != nil {
		return nil, err
	}
	return &csvRows{f: closer, r: r, idx: idx, line: 1}, nil
}

func (c *csvRows) Next() (Row, error) {
	for {
		rec, err := c.r.Read()
		if err == io.EOF {
			return Row{}, io.EOF
		}
		if err != nil {
			return Row{}, readErr(err)
		}
		c.line++
		if blank(rec) {
			continue
		}
		return pick(c.idx, rec, c.line), nil
	}
}

func (c *csvRows) Close() error {
	if c.f == nil {
		return nil
	}
	return c.f.Close()
}

func blank(rec []string) bool {
	for _, v := range rec {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

// jsonRows reads a JSON array of objects, or an object whose "reviews" member is
// that array, one object at a time.
type jsonRows struct {
	f    io.Closer
	d    *json.Decoder
	p    Platform
	idx  map[string]string // normalised key -> canonical column
	line int
	done bool
	obj  bool   // the array is the "reviews" member of an object
	next string // the object's "next" member (a feed page)
}

// readErr is ErrFileUnreadable, or the outbound failure when reading a feed
// page's body broke (too_large, timeout, ...).
func readErr(err error) error {
	var oe *outbound.Error
	if errors.As(err, &oe) {
		return err
	}
	return ErrFileUnreadable
}

// decodeNext reads a "next" member (a string or null).
func decodeNext(d *json.Decoder) (string, error) {
	var n *string
	if err := d.Decode(&n); err != nil {
		return "", readErr(err)
	}
	if n == nil {
		return "", nil
	}
	return *n, nil
}

func newJSONRows(f *os.File, p Platform) (*jsonRows, error) {
	return newJSONStream(f, f, p)
}

func newJSONStream(r io.Reader, closer io.Closer, p Platform) (*jsonRows, error) {
	d := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return nil, readErr(err)
	}
	obj, next := false, ""
	if tok == json.Delim('{') {
		obj = true
		// Find the reviews member; others are read past without being kept.
		for {
			k, err := d.Token()
			if err != nil {
				var oe *outbound.Error
				if errors.As(err, &oe) {
					return nil, err
				}
			}
			if err != nil || k == json.Delim('}') {
				return nil, core.Invalidf(errColumnMissingFirst, ColReviewID)
			}
			if k == "reviews" {
				break
			}
			if k == "next" {
				if next, err = decodeNext(d); err != nil {
					return nil, err
				}
				continue
			}
			if err := catalogue.SkipJSONValue(d); err != nil {
				return nil, readErr(err)
			}
		}
		if tok, err = d.Token(); err != nil {
			return nil, readErr(err)
		}
	}
	if tok != json.Delim('[') {
		return nil, ErrFileUnreadable
	}
	names := map[string]string{}
	for _, col := range Columns {
		names[normHeader(col)] = col
	}
	for col, theirs := range p.Columns {
		names[normHeader(theirs)] = col
	}
	return &jsonRows{f: closer, d: d, p: p, idx: names, obj: obj, next: next}, nil
}

// rest reads what follows the array once every row was read: the end of the
// array and, in an object, the remaining members. It returns the "next" member.
func (j *jsonRows) rest() (string, error) {
	if _, err := j.d.Token(); err != nil { // ]
		return "", readErr(err)
	}
	if !j.obj {
		return j.next, nil
	}
	for j.d.More() {
		k, err := j.d.Token()
		if err != nil {
			return "", readErr(err)
		}
		if k == "next" {
			if j.next, err = decodeNext(j.d); err != nil {
				return "", err
			}
			continue
		}
		if err := catalogue.SkipJSONValue(j.d); err != nil {
			return "", readErr(err)
		}
	}
	if _, err := j.d.Token(); err != nil { // }
		return "", readErr(err)
	}
	return j.next, nil
}

func (j *jsonRows) Next() (Row, error) {
	if j.done || !j.d.More() {
		j.done = true
		return Row{}, io.EOF
	}
	var obj map[string]any
	if err := j.d.Decode(&obj); err != nil {
		return Row{}, readErr(err)
	}
	j.line++
	row := Row{Line: j.line, Fields: map[string]string{}}
	for k, v := range obj {
		col, ok := j.idx[normHeader(k)]
		if !ok {
			continue
		}
		switch x := v.(type) {
		case string:
			row.Fields[col] = strings.TrimSpace(x)
		case json.Number:
			row.Fields[col] = x.String()
		case bool:
			row.Fields[col] = strconv.FormatBool(x)
		case []any:
			var parts []string
			for _, e := range x {
				if s, ok := e.(string); ok {
					parts = append(parts, s)
				}
			}
			row.Fields[col] = strings.Join(parts, " ")
		}
	}
	if j.line == 1 {
		for _, col := range requiredColumns {
			if _, ok := row.Fields[col]; !ok {
				return Row{}, core.Invalidf(errColumnMissingFirst, col)
			}
		}
	}
	return row, nil
}

func (j *jsonRows) Close() error {
	if j.f == nil {
		return nil
	}
	return j.f.Close()
}

// xlsxRows reads the first worksheet of an xlsx file with excelize's row iterator;
// large sheets are unpacked to a temporary file rather than memory.
type xlsxRows struct {
	ctx  context.Context
	f    *os.File
	x    *excelize.File
	rows *excelize.Rows
	idx  map[string]int
	line int
}

func newXLSXRows(ctx context.Context, f *os.File, p Platform) (_ *xlsxRows, err error) {
	if err := checkXLSX(ctx, f); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	x, err := excelize.OpenReader(f, excelize.Options{UnzipSizeLimit: 4 * MaxFileBytes, UnzipXMLSizeLimit: 1 << 20})
	if err != nil {
		return nil, ErrFileUnreadable
	}
	defer func() {
		if err != nil {
			x.Close()
		}
	}()
	sheets := x.GetSheetList()
	if len(sheets) == 0 {
		return nil, ErrFileUnreadable
	}
	rows, err := x.Rows(sheets[0])
	if err != nil {
		return nil, ErrFileUnreadable
	}
	if !rows.Next() {
		return nil, ErrFileUnreadable
	}
	header, err := rows.Columns()
	if err != nil || len(header) > MaxColumns {
		return nil, ErrFileUnreadable
	}
	idx := p.headerIndex(header)
	if err := columnMissing(idx); err != nil {
		return nil, err
	}
	return &xlsxRows{ctx: ctx, f: f, x: x, rows: rows, idx: idx, line: 1}, nil
}

func (x *xlsxRows) Next() (Row, error) {
	for x.rows.Next() {
		x.line++
		if x.ctx.Err() != nil {
			return Row{}, ErrFileUnreadable
		}
		rec, err := x.rows.Columns()
		if err != nil || len(rec) > MaxColumns {
			return Row{}, ErrFileUnreadable
		}
		if blank(rec) {
			continue
		}
		return pick(x.idx, rec, x.line), nil
	}
	if err := x.rows.Error(); err != nil {
		return Row{}, ErrFileUnreadable
	}
	return Row{}, io.EOF
}

func (x *xlsxRows) Close() error {
	return errors.Join(x.rows.Close(), x.x.Close(), x.f.Close())
}

// countRows reads a whole file once to check it (every row parses, at most
// MaxFileRows rows, within FileCheckTimeout) and returns the row count.
func countRows(ctx context.Context, path string, p Platform) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, FileCheckTimeout)
	defer cancel()
	src, format, err := openRows(ctx, path, p)
	if err != nil {
		return 0, "", err
	}
	defer src.Close()
	n := 0
	for {
		_, err := src.Next()
		if err == io.EOF {
			return n, format, nil
		}
		if err != nil {
			return n, format, err
		}
		n++
		if ctx.Err() != nil {
			return n, format, ErrFileUnreadable
		}
		if n > MaxFileRows {
			return n, format, ErrFileTooManyRows
		}
	}
}
