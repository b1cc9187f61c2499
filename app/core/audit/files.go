package audit

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/xuri/excelize/v2"

	"reviewd/app/core"
)

// File formats of downloads.
const (
	FormatCSV  = "csv"
	FormatXLSX = "xlsx"
	FormatJSON = "json"
)

// ValidFormat reports whether f is csv, xlsx or json.
func ValidFormat(f string) bool { return f == FormatCSV || f == FormatXLSX || f == FormatJSON }

// File is a built download: its bytes, content type and file name.
type File struct {
	Name        string
	ContentType string
	Body        []byte
	// Fingerprint is the verification code of the content (hex SHA-256), sent as
	// X-Service-Fingerprint where the operation has one.
	Fingerprint string
}

// Table is one table of a CSV or Excel file: a header row and rows of text cells.
// Sheet names the Excel sheet ("" keeps the default name).
type Table struct {
	Sheet  string
	Header []string
	Rows   [][]string
}

// Build makes a file named name.<format>: for json the JSON of jsonBody, for csv the
// first table (cells, header included, a spreadsheet would read as a formula are prefixed with '), for
// xlsx every table on its own sheet. The same input gives the same bytes.
func Build(format, name string, jsonBody any, tables ...Table) (File, error) {
	f := File{Name: name + "." + format}
	var err error
	switch format {
	case FormatJSON:
		f.ContentType = "application/json; charset=utf-8"
		f.Body, err = json.Marshal(jsonBody)
	case FormatCSV:
		f.ContentType = "text/csv; charset=utf-8"
		f.Body, err = csvBytes(tables[0])
	default:
		f.ContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		f.Body, err = xlsxBytes(tables)
	}
	return f, err
}

func csvBytes(t Table) ([]byte, error) {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		rec := make([]string, len(row))
		for i, v := range row {
			rec[i] = core.SpreadsheetSafe(v)
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	return b.Bytes(), cw.Error()
}

func xlsxBytes(tables []Table) ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	cells := func(ss []string) []any {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return out
	}
	for n, t := range tables {
		sheet := f.GetSheetName(0)
		switch {
		case n == 0 && t.Sheet != "":
			if err := f.SetSheetName(sheet, t.Sheet); err != nil {
				return nil, err
			}
			sheet = t.Sheet
		case n > 0:
			sheet = t.Sheet
			if _, err := f.NewSheet(sheet); err != nil {
				return nil, err
			}
		}
		sw, err := f.NewStreamWriter(sheet)
		if err != nil {
			return nil, err
		}
		if err := sw.SetRow("A1", cells(t.Header)); err != nil {
			return nil, err
		}
		for i, row := range t.Rows {
			cell, _ := excelize.CoordinatesToCellName(1, i+2)
			if err := sw.SetRow(cell, cells(row)); err != nil {
				return nil, err
			}
		}
		if err := sw.Flush(); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		return nil, err
	}
	return canonicalZip(b.Bytes())
}

// canonicalZip rewrites a zip archive with its entries in name order and no
// modification times: excelize writes the parts of a workbook in map order, so the
// same cells would otherwise give different bytes from one call to the next.
func canonicalZip(in []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(in), int64(len(in)))
	if err != nil {
		return nil, err
	}
	files := slices.Clone(zr.File)
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range files {
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate})
		if err == nil {
			_, err = io.Copy(w, r)
		}
		r.Close()
		if err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
