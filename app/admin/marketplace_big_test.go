package admin_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/core/marketplace"
)

// peakRSS reads the process's peak resident set size (VmHWM) in bytes.
func peakRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			n, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return n << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}

// TestMarketplaceBigFile: a file of 100000 rows (the limit) is imported within a
// memory bound: the file is streamed to disk and read row by row, so the peak
// resident size grows by far less than the whole file's rows would take. Set
// REVIEWD_MARKET_BIG=1 to run it (it writes 100000 reviews; a number from 2
// below 100000 writes that many instead).
func TestMarketplaceBigFile(t *testing.T) {
	if os.Getenv("REVIEWD_MARKET_BIG") == "" {
		t.Skip("set REVIEWD_MARKET_BIG=1 to import a 100000-row file")
	}
	rows := marketplace.MaxFileRows
	if n, err := strconv.Atoi(os.Getenv("REVIEWD_MARKET_BIG")); err == nil && n > 1 && n < rows {
		rows = n // a smaller file, for profiling
	}
	f := newMarketFx(t)
	src := f.source("trendyol", "file", nil)
	path := filepath.Join(t.TempDir(), "big.csv")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	fmt.Fprintln(w, "Yorum ID,Barkod,Puan,Yorum Başlığı,Yorum,Kullanıcı Adı,Yorum Tarihi")
	barcodes := []string{"8690000000011", "8690000000028", "C-LAMP"}
	// Texts from a small vocabulary, as real reviews of one product repeat words.
	titles := []string{"Harika", "Fena değil", "Beklediğim gibi", "Tavsiye ederim", "Kalitesi iyi", "Hızlı kargo"}
	bodies := []string{"Ürün gayet iyi, paketleme özenliydi.", "Rengi fotoğraftaki gibi, çok beğendim.",
		"Kargo biraz gecikti ama ürün sağlam geldi.", "Fiyatına göre kalitesi yüksek.", "Annem için aldım, çok memnun kaldı.",
		"Boyutu tam istediğim gibi.", "İkinci kez alıyorum, yine memnunum.", "Kutusu hasarlı geldi, ürün sağlam."}
	for i := 0; i < rows; i++ {
		fmt.Fprintf(w, "TY-%d,%s,%d,%s,\"%s %s\",Müşteri %d,2026-05-%02d\n",
			i, barcodes[i%3], 1+i%5, titles[i%len(titles)], bodies[i%len(bodies)], bodies[(i/7)%len(bodies)], i, 1+i%28)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("file: %d bytes, %d rows", len(file), rows)
	runtime.GC()
	// Reset the peak so it measures the import alone (Linux: clear_refs 5).
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	before := peakRSS(t)
	start := time.Now()
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "big.csv", file, nil), 202, "")
	file = nil
	// Poll slowly: the read runs beside the test on the same cores.
	var run map[string]any
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for deadline := time.Now().Add(30 * time.Minute); ; <-tick.C {
		res := f.do("GET", "/admin/v1/marketplace/sources/"+src+"/runs", nil)
		if items, _ := res.JSON["items"].([]any); len(items) > 0 {
			run = items[0].(map[string]any)
			if s := run["state"]; s != "queued" && s != "running" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30m for the 100000-row run to end: %s", res)
		}
	}
	took := time.Since(start)
	peak := peakRSS(t)
	if run["state"] != "succeeded" || counts(run)["imported"] != float64(rows) {
		t.Fatalf("run: %v", counts(run))
	}
	t.Logf("imported %d rows in %s; peak RSS %d MB (before %d MB, growth %d MB)", rows, took.Round(time.Millisecond),
		peak>>20, before>>20, (peak-before)>>20)
	const bound = 200 << 20
	if peak-before > bound {
		t.Fatalf("peak RSS grew by %d MB, bound %d MB", (peak-before)>>20, bound>>20)
	}
	if l := f.list("product=LAMP"); l["aggregate"].(map[string]any)["imported_count"] != float64(rows/3) {
		t.Fatalf("aggregate: %v", l["aggregate"])
	}
}
