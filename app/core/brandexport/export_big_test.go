package brandexport_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/store"
)

// TestBigExport builds the archive of a brand with REVIEWD_BIG_EXPORT reviews (each
// with two history steps) and reports the build time and the peak heap: the
// tables are read row by row, so the heap stays flat whatever the size. Skipped
// unless the variable is set (it takes a while): REVIEWD_BIG_EXPORT=200000.
func TestBigExport(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("REVIEWD_BIG_EXPORT"))
	if n <= 0 {
		t.Skip("set REVIEWD_BIG_EXPORT=<reviews> to run")
	}
	env := apptest.New(t, nil)
	env.Channel("web", "TR", "tr")
	ctx := context.Background()
	err := env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.ExecForTest(ctx, `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
			INSERT INTO reviews (public_id, channel_id, market, language, variant_key, product_name, experience, origin, state,
				rating, title, body, author_name, published_at, submitted_at, created_at, updated_at)
			SELECT printf('r_%020d', i), (SELECT id FROM channels), 'TR', 'tr', 'SKU-' || (i % 5000), 'Çaydanlık ' || (i % 5000),
				'product', 'own', 'published', 1 + i % 5, 'Başlık ' || i,
				'Suyu çabuk kaynatıyor, sapı sağlam, kapağı iyi kapanıyor; fiyatına göre çok iyi bir ürün. ' || i,
				'Ayşe Yılmaz ' || i, 1780000000000 + i, 1780000000000 + i, 1780000000000 + i, 1780000000000 + i FROM s`, n); err != nil {
			return err
		}
		return tx.ExecForTest(ctx, `INSERT INTO review_history (review_id, event, from_state, to_state, reason, actor_type, actor_id,
			actor_name, detail, at) SELECT id, e.event, '', 'published', '', 'system', '', 'system', '{}', created_at
			FROM reviews, (SELECT 'submitted' AS event UNION ALL SELECT 'published') e`)
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	start := time.Now()
	x, _, err := env.App.Exports.Start(ctx, &core.Actor{Via: core.ViaConsole, ID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	env.App.Exports.Wait()
	took := time.Since(start)
	close(stop)
	list, err := env.App.Exports.List(ctx)
	if err != nil || len(list) != 1 || list[0].State != "ready" || list[0].Counts["reviews"] != n {
		t.Fatalf("archive %s: %+v %v", x.ID, list, err)
	}
	t.Logf("%d reviews, %d history rows: archive %d bytes in %s; heap in use before %d MB, peak during the build %d MB",
		n, 2*n, list[0].Size, took.Round(time.Millisecond), base.HeapInuse>>20, peak.Load()>>20)
}
