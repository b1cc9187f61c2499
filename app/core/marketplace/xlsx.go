package marketplace

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"time"
)

// Limits of an xlsx file beyond its size (docs/marketplace.md): a small file can
// unpack to a shared-strings table that excelize holds whole in memory, and to
// rows padded to thousands of columns. Past these the file is file_unreadable.
const (
	MaxSharedStrings     = 1000000
	MaxSharedStringBytes = 32 << 20
	MaxColumns           = 256
	// FileCheckTimeout bounds reading a file through once when it is uploaded.
	FileCheckTimeout = 20 * time.Second
)

// checkXLSX reads the shared-strings table of an xlsx file as a stream, before
// excelize loads it, and refuses one of more than MaxSharedStrings strings or
// MaxSharedStringBytes unpacked bytes. Nothing of it is kept.
func checkXLSX(ctx context.Context, f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return ErrFileUnreadable
	}
	for _, zf := range zr.File {
		if !strings.EqualFold(strings.TrimPrefix(zf.Name, "/"), "xl/sharedStrings.xml") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return ErrFileUnreadable
		}
		err = checkSharedStrings(ctx, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func checkSharedStrings(ctx context.Context, r io.Reader) error {
	lr := &io.LimitedReader{R: r, N: MaxSharedStringBytes + 1}
	d := xml.NewDecoder(lr)
	n := 0
	for {
		tok, err := d.RawToken()
		if lr.N <= 0 {
			return ErrFileUnreadable // over MaxSharedStringBytes
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return ErrFileUnreadable
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "si" {
			if n++; n > MaxSharedStrings {
				return ErrFileUnreadable
			}
			if n%1024 == 0 && ctx.Err() != nil {
				return ErrFileUnreadable
			}
		}
	}
}
