package storefront_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/web"
	"reviewd/store"
)

// TestListThroughput is a load measurement, not a CI test: with REVIEWD_BENCH_LIST=1
// it seeds REVIEWD_BENCH_SEED published reviews (default 1,000,000) over 20,000
// products, the hottest (SKU-HOT) holding 20,000, builds the product figures, and
// then runs 64 concurrent clients over loopback against the real server for
// REVIEWD_BENCH_SECONDS (default 10) per phase: GET /healthz (a trivial JSON route
// behind the same middleware), GET /v1/reviews/list of the hottest product (site
// key), and GET /v1/ssr of it with If-None-Match (server key, 304 answers). It
// reports requests per second and p50/p99 latency of each. Targets on a 2-core
// machine: list >= 4,000/s, p99 < 25 ms and >= 40% of /healthz; ssr 304 >= 8,000/s.
// The per-key limit (600 requests per 5 minutes) is raised for the measurement;
// the limiter still runs on every request.
//
//	REVIEWD_BENCH_LIST=1 go test -run TestListThroughput -v -timeout 60m ./app/storefront/
func TestListThroughput(t *testing.T) {
	if os.Getenv("REVIEWD_BENCH_LIST") != "1" {
		t.Skip("set REVIEWD_BENCH_LIST=1 to run the list load measurement")
	}
	seed := benchEnvInt("REVIEWD_BENCH_SEED", 1_000_000)
	seconds := benchEnvInt("REVIEWD_BENCH_SECONDS", 10)
	const clients, products, hottest = 64, 20000, 20000

	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	ctx := context.Background()
	ch, err := env.App.DB.Read().ChannelByCode(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = env.App.DB.SeedReviews(ctx, ch.ID, seed, "BR-", func(i int) store.SeedReview {
		return benchReview(i, seed, products, hottest)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d reviews in %s", seed, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	n, err := env.App.Core.RebuildProductStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built listing, search index and figures of %d reviews in %s", n, time.Since(start).Round(time.Millisecond))

	site, server := env.Key("site", "web"), env.Key("server", "web")
	env.Server.Limits.Keys = web.NewLimiter(1<<30, time.Second, env.App.Core.Now)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients}}
	listURL := env.URL + "/v1/reviews/list?key=" + url.QueryEscape(site) + "&product=SKU-HOT"
	ssrURL := env.URL + "/v1/ssr?channel=web&product=SKU-HOT&name=Hot+mug"

	// The answers are right before they are fast.
	res := env.Do("GET", strings.TrimPrefix(listURL, env.URL), nil, map[string]string{"Origin": "https://shop.example"})
	if res.Status != 200 || num(res.JSON["total"]) != hottest || len(res.JSON["reviews"].([]any)) != 10 {
		t.Fatalf("list: %d %.300s", res.Status, res.Body)
	}
	t.Logf("list answer: %d bytes", len(res.Body))
	res = env.Do("GET", strings.TrimPrefix(ssrURL, env.URL), nil, map[string]string{"Authorization": "Bearer " + server})
	etag := res.Header.Get("ETag")
	if res.Status != 200 || etag == "" {
		t.Fatalf("ssr: %d %.300s", res.Status, res.Body)
	}

	phases := []struct {
		name, url string
		hdr       map[string]string
		want      int
	}{
		{"healthz", env.URL + "/healthz", nil, 200},
		{"list", listURL, map[string]string{"Origin": "https://shop.example"}, 200},
		{"ssr-304", ssrURL, map[string]string{"Authorization": "Bearer " + server, "If-None-Match": etag}, 304},
	}
	rates := map[string]float64{}
	for _, p := range phases {
		benchPhase(t, client, p.url, p.hdr, p.want, clients, time.Second) // warm-up
		rate, p50, p99, fails := benchPhase(t, client, p.url, p.hdr, p.want, clients, time.Duration(seconds)*time.Second)
		rates[p.name] = rate
		t.Logf("%-8s %7.0f req/s  p50 %6s  p99 %6s  failures %d", p.name, rate, p50.Round(10*time.Microsecond),
			p99.Round(10*time.Microsecond), fails)
		if fails > 0 {
			t.Errorf("%s: %d requests failed", p.name, fails)
		}
	}
	t.Logf("list / healthz = %.0f%%", 100*rates["list"]/rates["healthz"])
}

// benchPhase runs clients goroutines against one address for d and returns the
// rate, p50, p99 and the number of failed requests.
func benchPhase(t *testing.T, client *http.Client, u string, hdr map[string]string, want, clients int, d time.Duration) (float64, time.Duration, time.Duration, int64) {
	var (
		mu    sync.Mutex
		lats  []time.Duration
		fails atomic.Int64
		wg    sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	began := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 1<<14)
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest("GET", u, nil)
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				t0 := time.Now()
				res, err := client.Do(req)
				if err != nil {
					fails.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != want {
					if fails.Add(1) < 3 {
						t.Logf("status %d", res.StatusCode)
					}
					continue
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lats = append(lats, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	pct := func(p float64) time.Duration {
		if len(lats) == 0 {
			return 0
		}
		return lats[int(float64(len(lats)-1)*p)]
	}
	return float64(len(lats)) / elapsed.Seconds(), pct(0.50), pct(0.99), fails.Load()
}

var benchWords = strings.Fields(`kupa renk kalite kargo paketleme fiyat boyut sap seramik parlak mat kırmızı mavi
	yeşil beyaz sağlam hafif ağır sıcak soğuk çay kahve bulaşık makinesi dayanıklı şık hediye kutu teslimat hızlı
	yavaş kırık çizik desen baskı ölçü litre dolu boş tutma rahat kaygan yüzey cila sır fırın mikrodalga`)

// benchReview describes review i: the first `hottest` reviews are of SKU-HOT, the
// rest spread over the other products; ratings lean to 4 and 5; texts of 12 to 40
// words from a small vocabulary.
func benchReview(i, seed, products, hottest int) store.SeedReview {
	x := uint64(i)*6364136223846793005 + 1442695040888963407
	next := func(n int) int {
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x ^= x >> 33
		return int(x % uint64(n))
	}
	variant, group := "SKU-HOT", "G-HOT"
	if i > hottest {
		p := 1 + (i-hottest)%(products-1)
		variant, group = "SKU-"+strconv.Itoa(p), "G-"+strconv.Itoa(p/10)
	}
	ratings := []int{5, 5, 5, 5, 4, 4, 4, 3, 2, 1}
	words := make([]string, 12+next(29))
	for j := range words {
		words[j] = benchWords[next(len(benchWords))]
	}
	return store.SeedReview{VariantKey: variant, GroupKey: group, Rating: ratings[next(10)],
		Title: fmt.Sprintf("%s %s", words[0], words[1]), Body: strings.Join(words, " ")}
}

func benchEnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
