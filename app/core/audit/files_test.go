package audit

import (
	"bytes"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestXLSXStable: the same tables give the same bytes every time (the audit file's
// verification code depends on it), and the file still opens with its sheets.
func TestXLSXStable(t *testing.T) {
	tables := []Table{{Sheet: "reviews", Header: []string{"id"}, Rows: [][]string{{"r_1"}}}, {Sheet: "checks", Header: []string{"kind"}},
		{Sheet: "moderation", Header: []string{"event"}}, {Sheet: "report", Header: []string{"field", "value"}, Rows: [][]string{{"fingerprint", "x"}}}}
	first, err := xlsxBytes(tables)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		again, err := xlsxBytes(tables)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatalf("build %d gave other bytes", i+2)
		}
	}
	f, err := excelize.OpenReader(bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.GetSheetList(); len(got) != 4 || got[0] != "reviews" || got[3] != "report" {
		t.Fatalf("sheets: %v", got)
	}
	if rows, _ := f.GetRows("report"); len(rows) != 2 || rows[1][1] != "x" {
		t.Fatalf("report rows: %v", rows)
	}
}

// TestCSVFormulaSafe: cells and header labels that a spreadsheet would read as a
// formula are prefixed.
func TestCSVFormulaSafe(t *testing.T) {
	b, err := csvBytes(Table{Header: []string{"=label"}, Rows: [][]string{{"@cmd"}, {"plain"}}})
	if err != nil || string(b) != "'=label\n'@cmd\nplain\n" {
		t.Fatalf("csv: %q %v", b, err)
	}
}
