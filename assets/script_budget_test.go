package assets_test

import (
	"bytes"
	"compress/gzip"
	"testing"

	"reviewd/assets"
)

// TestPageScriptGzipBudget: the page script as served stays within 16 KB gzipped
// (level 9, as the browser tests measure it), star badges and all.
func TestPageScriptGzipBudget(t *testing.T) {
	js := assets.PageScript() // as served
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = zw.Write(js)
	_ = zw.Close()
	if b.Len() > 16*1024 {
		t.Fatalf("reviews.js is %d bytes gzipped, over 16384", b.Len())
	}
	t.Logf("reviews.js: %d bytes gzipped", b.Len())
}
