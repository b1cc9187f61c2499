package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/store"
)

// TestIngestThroughput is a load measurement, not a CI test: with
// REVIEWD_BENCH_INGEST=1 it seeds a database with REVIEWD_BENCH_SEED orders
// (default 1,000,000; 3 lines each) and then posts 100-order batches (3 lines each,
// one in five re-sending a seeded order) over HTTP with 4 concurrent senders for
// REVIEWD_BENCH_SECONDS (default 20). It reports orders per second and the p50 and
// p99 request latency. Target on a 2-core machine: 5,000 orders/s, p99 < 250 ms.
// REVIEWD_BENCH_CACHE sets PRAGMA cache_size on the write connection (for example
// -65536 for 64 MB) to measure a larger page cache than the default.
//
//	REVIEWD_BENCH_INGEST=1 go test -run TestIngestThroughput -v -timeout 30m ./app/ingest/
func TestIngestThroughput(t *testing.T) {
	if os.Getenv("REVIEWD_BENCH_INGEST") != "1" {
		t.Skip("set REVIEWD_BENCH_INGEST=1 to run the ingest load measurement")
	}
	seed := envInt("REVIEWD_BENCH_SEED", 1_000_000)
	seconds := envInt("REVIEWD_BENCH_SECONDS", 20)
	const workers, batch, keysPerWorker = 4, 100, 8

	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	ch, err := env.App.DB.Read().ChannelByCode(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := env.App.DB.SeedOrders(context.Background(), ch.ID, seed, 3, "SEED-"); err != nil {
		t.Fatal(err)
	}
	if cs := os.Getenv("REVIEWD_BENCH_CACHE"); cs != "" {
		_ = env.App.DB.WithTx(context.Background(), func(tx *store.Tx) error {
			var x int
			return tx.QueryRowForTest(context.Background(), "PRAGMA cache_size = "+cs, &x)
		})
	}
	t.Logf("seeded %d orders (%d lines) in %s", seed, 3*seed, time.Since(start).Round(time.Millisecond))

	// The per-key limit (600 requests per 5 minutes, the clock stands still here) is
	// shared out over several keys per sender.
	keys := make([][]string, workers)
	for w := range keys {
		for k := 0; k < keysPerWorker; k++ {
			keys[w] = append(keys[w], env.Key("server", "web"))
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		accepted  atomic.Int64
		failures  atomic.Int64
		serial    atomic.Int64
	)
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	began := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				body := benchBatch(int(serial.Add(1)), batch, seed)
				req, _ := http.NewRequest("POST", env.URL+"/v1/ingest/orders", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+keys[w][i%keysPerWorker])
				t0 := time.Now()
				res, err := client.Do(req)
				if err != nil {
					failures.Add(1)
					continue
				}
				out, _ := io.ReadAll(res.Body)
				res.Body.Close()
				d := time.Since(t0)
				if res.StatusCode != 200 {
					if failures.Add(1) < 5 {
						t.Logf("status %d: %s", res.StatusCode, out)
					}
					continue
				}
				accepted.Add(batch)
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(began)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[int(float64(len(latencies)-1)*p)]
	}
	rate := float64(accepted.Load()) / elapsed.Seconds()
	t.Logf("seed=%d requests=%d failures=%d orders=%d elapsed=%s", seed, len(latencies), failures.Load(), accepted.Load(), elapsed.Round(time.Millisecond))
	t.Logf("throughput %.0f orders/s; latency p50 %s p99 %s max %s", rate, pct(0.50).Round(time.Millisecond),
		pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond))
	if failures.Load() > 0 {
		t.Errorf("%d requests failed", failures.Load())
	}
}

// benchBatch is batch orders of 3 lines; every fifth order re-sends a seeded one
// with a changed payment state. Written by hand: the sender shares the CPU with the
// server, and encoding maps would cost more than the server's own decoding.
func benchBatch(n, size, seed int) []byte {
	var b bytes.Buffer
	b.Grow(size * 900)
	b.WriteString(`{"channel":"web","orders":[`)
	for i := 0; i < size; i++ {
		ext := fmt.Sprintf("B%d-%d", n, i)
		pay := "paid"
		if i%5 == 4 && seed > 0 {
			ext = "SEED-" + strconv.Itoa(1+(n*size+i)*7919%seed)
			pay = "partially_refunded"
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"external_id":%q,"payment_state":%q,"placed_at":"2026-05-20T09:00:00+03:00",`+
			`"customer_email":"%x@example.com","customer_key":"c%x","customer_phone":"+90 555 000 00 00","items":[`+
			`{"line_reference":"1","variant_key":"SKU-%d","group_key":"G-1","title":"Ceramic mug, 350 ml","quantity":1,"fulfilment_state":"delivered","delivered_at":"2026-05-28T15:00:00+03:00"},`+
			`{"line_reference":"2","variant_key":"SKU-%d","title":"Tea towel","quantity":2,"fulfilment_state":"shipped"},`+
			`{"line_reference":"3","variant_key":"SKU-%d","title":"Coaster set"}]}`,
			ext, pay, mix(n, i), mix(i, n), (n*7+i)%20000, (n*11+i)%20000, (n*13+i)%20000)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// mix spreads (a, b) like real customer addresses spread over the index.
func mix(a, b int) uint64 {
	x := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F
	x ^= x >> 31
	return x * 0x94D049BB133111EB
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}
