package storefront_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/readmodel"
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
// reports requests per second and p50/p99 latency of each. The phases run in
// REVIEWD_BENCH_ROUNDS (default 5) interleaved rounds. Targets on a 2-core
// machine: list >= 4,000/s, p99 < 25 ms and >= 40% of /healthz; ssr 304 >= 8,000/s.
// Then it measures building answers that are not cached (list and SSR of the
// hottest product, pages 1..50).
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
	n, err := env.App.Read.RebuildProductStats(ctx)
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

	phases := []benchTarget{
		{"healthz", env.URL + "/healthz", nil, 200},
		{"list", listURL, map[string]string{"Origin": "https://shop.example"}, 200},
		{"ssr-304", ssrURL, map[string]string{"Authorization": "Bearer " + server, "If-None-Match": etag}, 304},
	}
	// REVIEWD_BENCH_REPEAT (default 1) repeats the measurement over the same data, to
	// see how much a busy machine moves it.
	for rep := benchEnvInt("REVIEWD_BENCH_REPEAT", 1); rep > 0; rep-- {
		benchHTTP(t, client, phases, clients, seconds)
	}

	// Answers not in the cache: building one (the basis read, one page of the hottest
	// product through the listing index, its media, the JSON; for SSR also the HTML and
	// structured data), pages 1..REVIEWD_BENCH_PAGES (default 50) in turn, on every
	// core for `seconds`. Deep pages cost more: the listing index is walked up to the
	// page's offset.
	buildPages := benchEnvInt("REVIEWD_BENCH_PAGES", 50)
	for _, build := range []struct {
		name string
		fn   func(page int) error
	}{
		{"list-build", func(page int) error {
			l, err := env.App.Read.ReviewList(ctx, ch, readmodel.ListInput{Product: "SKU-HOT", Page: strconv.Itoa(page)})
			if err == nil {
				_, err = json.Marshal(l)
			}
			return err
		}},
		{"ssr-build", func(page int) error {
			_, err := env.App.Read.RenderSSR(ctx, ch, readmodel.SSRInput{ListInput: readmodel.ListInput{Product: "SKU-HOT"},
				Name: "Hot mug " + strconv.Itoa(page)})
			return err
		}},
	} {
		var n atomic.Int64
		var wg sync.WaitGroup
		deadline := time.Now().Add(time.Duration(seconds) * time.Second)
		began := time.Now()
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := w; time.Now().Before(deadline); i += runtime.GOMAXPROCS(0) {
					if err := build.fn(1 + i%buildPages); err != nil {
						t.Error(err)
						return
					}
					n.Add(1)
				}
			}(w)
		}
		wg.Wait()
		rate := float64(n.Load()) / time.Since(began).Seconds()
		t.Logf("%-10s %7.0f answers/s (%.2f ms of CPU each)", build.name, rate, 1000*float64(runtime.GOMAXPROCS(0))/rate)
	}
}

// benchTarget is one measured address.
type benchTarget struct {
	name, url string
	hdr       map[string]string
	want      int
}

// benchHTTP runs the phases in interleaved rounds and reports each.
func benchHTTP(t *testing.T, client *http.Client, phases []benchTarget, clients, seconds int) {
	// The phases run in interleaved rounds so a passing load on the machine weighs on
	// all of them alike; each phase gets `seconds` in all.
	rounds := benchEnvInt("REVIEWD_BENCH_ROUNDS", 5)
	for _, p := range phases {
		benchPhase(t, client, p.url, p.hdr, p.want, clients, time.Second) // warm-up
	}
	type total struct {
		n     int
		d     time.Duration
		lats  []time.Duration
		fails int64
	}
	totals := make([]total, len(phases))
	for r := 0; r < rounds; r++ {
		for i, p := range phases {
			lats, d, fails := benchPhase(t, client, p.url, p.hdr, p.want, clients, time.Duration(seconds)*time.Second/time.Duration(rounds))
			totals[i].n += len(lats)
			totals[i].d += d
			totals[i].lats = append(totals[i].lats, lats...)
			totals[i].fails += fails
		}
	}
	rates := map[string]float64{}
	for i, p := range phases {
		tt := totals[i]
		sort.Slice(tt.lats, func(a, b int) bool { return tt.lats[a] < tt.lats[b] })
		pct := func(q float64) time.Duration {
			if len(tt.lats) == 0 {
				return 0
			}
			return tt.lats[int(float64(len(tt.lats)-1)*q)]
		}
		rates[p.name] = float64(tt.n) / tt.d.Seconds()
		t.Logf("%-8s %7.0f req/s  p50 %7s  p99 %7s  failures %d", p.name, rates[p.name], pct(0.50).Round(10*time.Microsecond),
			pct(0.99).Round(10*time.Microsecond), tt.fails)
		if tt.fails > 0 {
			t.Errorf("%s: %d requests failed", p.name, tt.fails)
		}
	}
	t.Logf("list / healthz = %.0f%%", 100*rates["list"]/rates["healthz"])

}

// benchPhase runs clients goroutines against one address for d and returns the
// latencies of the successful requests, the time taken and the failures.
func benchPhase(t *testing.T, client *http.Client, u string, hdr map[string]string, want, clients int, d time.Duration) ([]time.Duration, time.Duration, int64) {
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
			local := make([]time.Duration, 0, 1<<12)
			req, _ := http.NewRequest("GET", u, nil)
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			for time.Now().Before(deadline) {
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
	return lats, time.Since(began), fails.Load()
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
