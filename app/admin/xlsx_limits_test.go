package admin_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"reviewd/app/platform/platformtest"
)

// xlsxBomb builds an xlsx file by hand whose cells are all shared strings: the
// header and rows, then pad bytes of unused strings in the shared-strings table.
// lastCol, when set, adds a cell at that column (e.g. "XFD") to the header row.
func xlsxBomb(t *testing.T, head []string, rows [][]string, pad int, lastCol string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	put := func(name, body string) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	put("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`)
	put("_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`)
	put("xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`)
	put("xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`)
	var sheet, sst strings.Builder
	n := 0
	for r, row := range append([][]string{head}, rows...) {
		fmt.Fprintf(&sheet, `<row r="%d">`, r+1)
		for c, v := range row {
			fmt.Fprintf(&sheet, `<c r="%s%d" t="s"><v>%d</v></c>`, string(rune('A'+c)), r+1, n)
			fmt.Fprintf(&sst, `<si><t>%s</t></si>`, html.EscapeString(v))
			n++
		}
		if r == 0 && lastCol != "" {
			fmt.Fprintf(&sheet, `<c r="%s1" t="s"><v>0</v></c>`, lastCol)
		}
		sheet.WriteString(`</row>`)
	}
	put("xl/worksheets/sheet1.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`+sheet.String()+`</sheetData></worksheet>`)
	w, err := zw.Create("xl/sharedStrings.xml")
	if err != nil {
		t.Fatal(err)
	}
	const filler = `<si><t>x</t></si>`
	padN := pad / len(filler)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="%d" uniqueCount="%d">%s`, n+padN, n+padN, sst.String())
	chunk := []byte(strings.Repeat(filler, 4096))
	for i := 0; i < padN; i += 4096 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = w.Write([]byte(`</sst>`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestXLSXBomb: a small xlsx file whose shared-strings table unpacks to 68 MB, and
// one padded to 16384 columns, are refused as file_unreadable quickly and without
// the memory their tables would take; the same file without the padding is read.
func TestXLSXBomb(t *testing.T) {
	f := newMarketFx(t)
	src := f.source("hepsiburada", "file", nil)
	head, rows := header("hepsiburada", false), marketRows("hepsiburada")
	check := "/admin/v1/marketplace/sources/" + src + "/check"

	res := f.upload(check, "export.xlsx", xlsxBomb(t, head, rows, 0, ""), nil)
	expect(t, res, 200, "")
	if res.JSON["rows"] != float64(len(rows)) {
		t.Fatalf("hand-built file read: %s", res)
	}

	bomb := xlsxBomb(t, head, rows, 68<<20, "")
	var took time.Duration
	peak, alloc := platformtest.MemUse(t, func() {
		start := time.Now()
		res = f.upload(check, "export.xlsx", bomb, nil)
		took = time.Since(start)
	})
	t.Logf("%d KB xlsx with a 68 MB shared-strings table: %s, heap peak +%d MB, allocated %d MB", len(bomb)>>10, took, peak>>20, alloc>>20)
	expect(t, res, 400, "invalid / file_unreadable")
	if peak > 64<<20 || took > 10*time.Second {
		t.Fatalf("bomb refused after %s with the heap grown by %d MB", took, peak>>20)
	}
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "export.xlsx", bomb, nil), 400, "invalid / file_unreadable")

	expect(t, f.upload(check, "export.xlsx", xlsxBomb(t, head, rows, 0, "XFD"), nil), 400, "invalid / file_unreadable")
}
