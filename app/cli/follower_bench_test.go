package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestFollowerBenchmark measures a follower (docs/high-availability.md,
// "Benchmark"): the lag of each review behind the primary while the primary
// ingests, and review-list reads on the follower against the primary. Not run
// in CI: REVIEWD_BENCH_FOLLOWER=1.
func TestFollowerBenchmark(t *testing.T) {
	if os.Getenv("REVIEWD_BENCH_FOLLOWER") == "" {
		t.Skip("benchmark: set REVIEWD_BENCH_FOLLOWER=1")
	}
	bin := buildBinary(t)
	backend := s3mem.New()
	if err := backend.CreateBucket("reviewd"); err != nil {
		t.Fatal(err)
	}
	s3srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer s3srv.Close()
	e := rpEnv{t: t, bin: bin, env: append(rpBaseEnv(), "REVIEWD_JOBS_ENABLED=false", "REVIEWD_LOG_LEVEL=warn",
		"REVIEWD_TRUSTED_PROXIES=127.0.0.1/32", "REVIEWD_REPLICA_URL=s3://reviewd/shops/acme", "REVIEWD_REPLICA_ENDPOINT="+s3srv.URL,
		"REVIEWD_REPLICA_ACCESS_KEY_ID=test-key", "REVIEWD_REPLICA_SECRET_ACCESS_KEY=test-secret",
		"REVIEWD_PUBLIC_URL=https://reviews.shop.example", "REVIEWD_BENCHMARK_ONLY_KEY_LIMITS=off")}
	data := filepath.Join(t.TempDir(), "primary")
	const writers = 4
	servers, sites := e.setup(data, writers)
	primary := startServe(t, bin, e.env, "serve", "--listen", freeAddr(t), "--data", data)
	pbase := "http://" + primary.addr
	e.waitCaughtUp(data, 0)
	fenv := append(append([]string{}, e.env...), "REVIEWD_FOLLOWER_PRIMARY_URL="+pbase)
	follower := startServe(t, bin, fenv, "serve", "--follow", "--listen", freeAddr(t), "--data", filepath.Join(t.TempDir(), "follower"))
	fbase := "http://" + follower.addr

	// Lag while the primary ingests: a background load of ingestRate orders a
	// second (batches of 100 every 50ms from a server key of its own), and beside
	// it the writers' orders and reviews; each acknowledged review is polled on
	// the follower every 10ms until it is served.
	var mu sync.Mutex
	var lags []time.Duration
	var watchers sync.WaitGroup
	var wg sync.WaitGroup
	stop := time.Now().Add(20 * time.Second)
	const ingestRate, batch = 2000, 100
	var ingested, ingestFailed int
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := shopper{base: pbase, server: servers[0], c: &http.Client{Timeout: 10 * time.Second}}
		tick := time.NewTicker(time.Second * batch / ingestRate)
		defer tick.Stop()
		for n := 0; time.Now().Before(stop); n++ {
			<-tick.C
			now := time.Now().UTC()
			orders := make([]any, batch)
			for i := range orders {
				ext := fmt.Sprintf("L%06d", n*batch+i)
				orders[i] = map[string]any{"external_id": ext, "payment_state": "paid",
					"placed_at": now.Add(-12 * 24 * time.Hour).Format(time.RFC3339), "customer_email": "l." + ext + "@example.com",
					"items": []any{map[string]any{"line_reference": "1", "variant_key": fmt.Sprintf("SKU-L%d", i%50), "title": "Kettle",
						"fulfilment_state": "delivered", "delivered_at": now.Add(-48 * time.Hour).Format(time.RFC3339)}}}
			}
			if _, err := s.json("/v1/ingest/orders", map[string]any{"channel": "web", "orders": orders},
				map[string]string{"Authorization": "Bearer " + s.server}); err != nil {
				ingestFailed += batch
				continue
			}
			ingested += batch
		}
	}()
	began := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := shopper{base: pbase, server: servers[w], site: sites[w], c: &http.Client{Timeout: 10 * time.Second},
				visitor: fmt.Sprintf("198.51.100.%d", w+1)}
			for i := 0; time.Now().Before(stop); i++ {
				ext := fmt.Sprintf("B%d-%04d", w, i)
				email := fmt.Sprintf("b.%d.%d@example.com", w, i)
				if s.order(ext, email) != nil {
					continue
				}
				tok, err := s.token(ext, email)
				if err != nil {
					continue
				}
				if s.review(tok, "Kettle "+ext+" boils", "Order "+ext+" arrived on time and the handle stays cool.") != nil {
					continue
				}
				acked := time.Now()
				watchers.Add(1)
				go func() {
					defer watchers.Done()
					for time.Since(acked) < 30*time.Second {
						if st, _, l := listOn(t, fbase, sites[w], "SKU-"+ext); st == 200 && len(reviewsOf(l)) == 1 {
							mu.Lock()
							lags = append(lags, time.Since(acked))
							mu.Unlock()
							return
						}
						time.Sleep(10 * time.Millisecond) // polling interval of the measure
					}
				}()
			}
		}()
	}
	wg.Wait()
	t.Logf("background ingest: %d orders in %s (%.0f orders/s, target %d), %d refused", ingested,
		time.Since(began).Round(time.Millisecond), float64(ingested)/time.Since(began).Seconds(), ingestRate, ingestFailed)
	watchers.Wait()
	slices.Sort(lags)
	pct := func(d []time.Duration, p float64) time.Duration {
		if len(d) == 0 {
			return 0
		}
		return d[min(len(d)-1, int(float64(len(d))*p))]
	}
	t.Logf("follower lag over %d reviews while the primary ingests: p50 %s, p99 %s, max %s",
		len(lags), pct(lags, .5).Round(time.Millisecond), pct(lags, .99).Round(time.Millisecond), pct(lags, 1).Round(time.Millisecond))

	// Reads: the same review lists on the follower and on the primary.
	for _, target := range []struct{ name, base string }{{"follower", fbase}, {"primary", pbase}} {
		const n, workers = 4000, 8
		var durs []time.Duration
		var dmu sync.Mutex
		start := time.Now()
		var rg sync.WaitGroup
		for w := range workers {
			rg.Add(1)
			go func() {
				defer rg.Done()
				c := &http.Client{Timeout: 10 * time.Second}
				for i := range n / workers {
					req, _ := http.NewRequest("GET", fmt.Sprintf("%s/v1/reviews/list?key=%s&product=SKU-B%d-%04d", target.base,
						sites[w%writers], w%writers, i%50), nil)
					req.Header.Set("Origin", "https://shop.example")
					t0 := time.Now()
					res, err := c.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					res.Body.Close()
					dmu.Lock()
					durs = append(durs, time.Since(t0))
					dmu.Unlock()
				}
			}()
		}
		rg.Wait()
		el := time.Since(start)
		slices.Sort(durs)
		t.Logf("%s: %d review lists in %s: %.0f/s, p50 %s, p99 %s", target.name, len(durs), el.Round(time.Millisecond),
			float64(len(durs))/el.Seconds(), pct(durs, .5).Round(10*time.Microsecond), pct(durs, .99).Round(10*time.Microsecond))
	}
}
