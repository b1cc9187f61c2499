package admin

import (
	"net/http"

	"reviewd/app/core/audit"
)

// exportTable is one table of a CSV or Excel download (audit.Table: a header row
// and rows of text cells; Sheet names the Excel sheet).
type exportTable = audit.Table

// validFormat reports whether f is csv, xlsx or json.
func validFormat(f string) bool { return audit.ValidFormat(f) }

// writeExport sends a download named name.<format> built by audit.Build: for json
// the JSON of jsonBody, for csv the first table (cells a spreadsheet would read as
// a formula are prefixed with '), for xlsx every table on its own sheet. The answer
// is never cached.
func writeExport(w http.ResponseWriter, format, name string, jsonBody any, tables ...exportTable) error {
	f, err := audit.Build(format, name, jsonBody, tables...)
	if err != nil {
		return err
	}
	return writeFile(w, f)
}
