package admin

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Export formats of file downloads (opt-outs, review list, review trace).
const (
	formatCSV  = "csv"
	formatXLSX = "xlsx"
	formatJSON = "json"
)

// validFormat reports whether f is csv, xlsx or json.
func validFormat(f string) bool { return f == formatCSV || f == formatXLSX || f == formatJSON }

// exportTable is one table of a CSV or Excel download: a header row and rows of
// text cells. Sheet names the Excel sheet ("" keeps the default name).
type exportTable struct {
	Sheet  string
	Header []string
	Rows   [][]string
}

// writeExport sends a download named name.<format>: for json the JSON of
// jsonBody, for csv the first table (header row first; cells that a spreadsheet
// would read as a formula are prefixed with '), for xlsx every table on its own
// sheet. The answer is never cached.
func writeExport(w http.ResponseWriter, format, name string, jsonBody any, tables ...exportTable) error {
	var body []byte
	var ctype string
	var err error
	switch format {
	case formatJSON:
		ctype = "application/json; charset=utf-8"
		if body, err = json.Marshal(jsonBody); err != nil {
			return err
		}
	case formatCSV:
		ctype = "text/csv; charset=utf-8"
		if body, err = csvBytes(tables[0]); err != nil {
			return err
		}
	case formatXLSX:
		ctype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		if body, err = xlsxBytes(tables); err != nil {
			return err
		}
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", `attachment; filename="`+name+`.`+format+`"`)
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

func csvBytes(t exportTable) ([]byte, error) {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write(t.Header)
	for _, row := range t.Rows {
		rec := make([]string, len(row))
		for i, v := range row {
			rec[i] = csvSafe(v)
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	return b.Bytes(), cw.Error()
}

func xlsxBytes(tables []exportTable) ([]byte, error) {
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
	return b.Bytes(), nil
}

// csvSafe keeps a spreadsheet from reading a cell as a formula (an address or a
// review text may start with = + - or @).
func csvSafe(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}
