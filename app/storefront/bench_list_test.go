package storefront_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/store"
)

// TestListThroughput is a load measurement, not a CI test (docs/benchmarks.md).
// With REVIEWD_BENCH_LIST=1 it prepares a data folder of REVIEWD_BENCH_SEED
// published reviews (default 1,000,000) over 20,000 products, the hottest (SKU-HOT)
// holding 20,000, with the product figures built; the folder is kept in
// REVIEWD_BENCH_CACHE (default <temp>/reviewd-bench-<seed>) and reused by later
// runs. It builds the binary, starts `reviewd serve` on that folder (jobs off, and
// the per-key limits lifted by the benchmark-only switch app.BenchKeyLimitsEnv, so
// one key can send every request) and reports its ready time. Then 64 concurrent
// clients over loopback measure, for REVIEWD_BENCH_SECONDS (default 10) per phase
// in REVIEWD_BENCH_ROUNDS (default 5) interleaved rounds: the floor (an unknown
// route's JSON 404 through the same middleware), GET /v1/reviews/list of the
// hottest product (site key) full and with If-None-Match (304), and GET /v1/ssr of
// it (server key) full and 304. It reports requests per second, p50/p99, each as a
// share of the floor, the CPU time per request of the server and of the clients
// (this process) with the shares of the floor they give, and the server's resident
// memory (largest sample during the load, and its peak).
//
//	REVIEWD_BENCH_LIST=1 go test -count=1 -run TestListThroughput -v -timeout 60m ./app/storefront/
func TestListThroughput(t *testing.T) {
	if os.Getenv("REVIEWD_BENCH_LIST") != "1" {
		t.Skip("set REVIEWD_BENCH_LIST=1 to run the list load measurement")
	}
	seed := benchEnvInt("REVIEWD_BENCH_SEED", 1_000_000)
	seconds := benchEnvInt("REVIEWD_BENCH_SECONDS", 10)
	const clients = 64
	data, keys := benchData(t, seed)
	bin := benchBinary(t)
	srv := benchServe(t, bin, data)
	t.Logf("serve ready in %s on %s (%d reviews)", srv.ready.Round(time.Millisecond), data, seed)

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients}}
	base := "http://" + srv.addr
	site := map[string]string{"Origin": "https://shop.example"}
	server := map[string]string{"Authorization": "Bearer " + keys.Server}
	listURL := base + "/v1/reviews/list?key=" + url.QueryEscape(keys.Site) + "&product=SKU-HOT"
	ssrURL := base + "/v1/ssr?channel=web&product=SKU-HOT&name=Hot+mug"

	// The answers are right before they are fast.
	list := benchGet(t, client, listURL, site)
	if list.StatusCode != 200 || list.Header.Get("ETag") == "" {
		t.Fatalf("list: %d", list.StatusCode)
	}
	ssr := benchGet(t, client, ssrURL, server)
	if ssr.StatusCode != 200 || ssr.Header.Get("ETag") == "" {
		t.Fatalf("ssr: %d", ssr.StatusCode)
	}
	with := func(h map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range h {
			out[a] = b
		}
		return out
	}
	phases := []benchTarget{
		{"floor", base + "/v1/no-such-route", nil, 404},
		{"list", listURL, site, 200},
		{"list-304", listURL, with(site, "If-None-Match", list.Header.Get("ETag")), 304},
		{"ssr", ssrURL, server, 200},
		{"ssr-304", ssrURL, with(server, "If-None-Match", ssr.Header.Get("ETag")), 304},
	}
	// REVIEWD_BENCH_REPEAT (default 1) repeats the measurement over the same data, to
	// see how much a busy machine moves it.
	for rep := benchEnvInt("REVIEWD_BENCH_REPEAT", 1); rep > 0; rep-- {
		stop := srv.sampleRSS()
		res := benchHTTP(t, srv, client, phases, clients, seconds)
		maxRSS := stop()
		floor := res["floor"]
		for _, p := range phases[1:] {
			r := res[p.name]
			t.Logf("%-8s %5.0f%% of the floor, p99 %s; by CPU time per request: server %3.0f%%, server and client %3.0f%%",
				p.name, 100*r.rate/floor.rate, r.p99.Round(10*time.Microsecond), 100*floor.serverCPU/r.serverCPU,
				100*(floor.serverCPU+floor.clientCPU)/(r.serverCPU+r.clientCPU))
		}
		t.Logf("server RSS: largest sample during the load %d MB, peak since start %d MB", maxRSS>>20, srv.peakRSS()>>20)
	}
}

// benchKeys are the secrets of the benchmark folder's keys.
type benchKeys struct {
	Site, Server string
}

// benchData returns the data folder of the measurement, built once and cached: a
// channel "web" (TR, verified domain shop.example), a site and a server key, and
// seed published reviews with their listing, search index and figures.
func benchData(t *testing.T, seed int) (string, benchKeys) {
	t.Helper()
	cache := os.Getenv("REVIEWD_BENCH_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), fmt.Sprintf("reviewd-bench-%d", seed))
	}
	var keys benchKeys
	if b, err := os.ReadFile(filepath.Join(cache, "keys.json")); err == nil && json.Unmarshal(b, &keys) == nil {
		t.Logf("reusing the data folder %s", cache)
		return filepath.Join(cache, "data"), keys
	}
	const products, hottest = 20000, 20000
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
	keys = benchKeys{Site: env.Key("site", "web"), Server: env.Key("server", "web")}

	// The folder is written next to the cache and renamed into place when complete.
	tmp, err := os.MkdirTemp(filepath.Dir(cache), filepath.Base(cache)+".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Join(tmp, "data"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := env.App.DB.SnapshotTo(ctx, filepath.Join(tmp, "data", app.DBFile)); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(env.App.Config.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries { // the master key and any other small files, not the database
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), app.DBFile) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(env.App.Config.DataDir, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(tmp, "data", e.Name()), b, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(keys)
	if err := os.WriteFile(filepath.Join(tmp, "keys.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, cache); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(cache, "data"), keys
}

// benchBinary builds the reviewd binary into a temporary folder.
func benchBinary(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(t.TempDir(), "reviewd")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// benchServer is a running `reviewd serve`.
type benchServer struct {
	cmd   *exec.Cmd
	addr  string
	ready time.Duration
}

// benchServe starts `reviewd serve` on the data folder and waits until /healthz
// answers; ready is the time from the start of the process.
func benchServe(t *testing.T, bin, data string) *benchServer {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "REVIEWD_JOBS_ENABLED=false", "REVIEWD_LOG_LEVEL=error",
		"REVIEWD_PUBLIC_URL=http://reviewd.test", app.BenchKeyLimitsEnv+"=off")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "reviewd listening on "); ok {
				addr, _, _ := strings.Cut(rest, " ")
				addrc <- addr
			}
		}
	}()
	s := &benchServer{cmd: cmd}
	select {
	case s.addr = <-addrc:
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not report an address within 2 minutes\n%s", stderr.String())
	}
	for deadline := time.Now().Add(time.Minute); ; {
		res, err := http.Get("http://" + s.addr + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer /healthz: %v", err)
		}
	}
	s.ready = time.Since(began)
	return s
}

// rss reads a field (VmRSS, VmHWM) of the server's /proc status in bytes.
func (s *benchServer) rss(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cpu is the CPU time (user and system) the server used so far, from /proc (in
// clock ticks of 10 ms).
func (s *benchServer) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command name: state is field 3, utime 14, stime 15.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// selfCPU is the CPU time (user and system) this process used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the server's largest resident memory since it started.
func (s *benchServer) peakRSS() int64 { return s.rss("VmHWM") }

// sampleRSS samples the server's resident memory every 100 ms until the returned
// function is called, which returns the largest sample.
func (s *benchServer) sampleRSS() func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if v := s.rss("VmRSS"); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 { close(done); <-stopped; return peak.Load() }
}

// benchGet sends one request and reads its body.
func benchGet(t *testing.T, client *http.Client, u string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// benchTarget is one measured address.
type benchTarget struct {
	name, url string
	hdr       map[string]string
	want      int
}

// benchResult is the measure of one phase: requests per second, p99, and the CPU
// time per request of the server and of this process (the clients), in µs. CPU
// time per request depends much less than the rates on what else the machine runs.
type benchResult struct {
	rate                 float64
	p99                  time.Duration
	serverCPU, clientCPU float64
}

// benchHTTP runs the phases in interleaved rounds and reports each.
func benchHTTP(t *testing.T, srv *benchServer, client *http.Client, phases []benchTarget, clients, seconds int) map[string]benchResult {
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
		// CPU time of the server and of this process
		server, client time.Duration
	}
	totals := make([]total, len(phases))
	for r := 0; r < rounds; r++ {
		for i, p := range phases {
			serverAt, clientAt := srv.cpu(), selfCPU()
			lats, d, fails := benchPhase(t, client, p.url, p.hdr, p.want, clients, time.Duration(seconds)*time.Second/time.Duration(rounds))
			totals[i].server += srv.cpu() - serverAt
			totals[i].client += selfCPU() - clientAt
			totals[i].n += len(lats)
			totals[i].d += d
			totals[i].lats = append(totals[i].lats, lats...)
			totals[i].fails += fails
		}
	}
	out := map[string]benchResult{}
	for i, p := range phases {
		tt := totals[i]
		sort.Slice(tt.lats, func(a, b int) bool { return tt.lats[a] < tt.lats[b] })
		pct := func(q float64) time.Duration {
			if len(tt.lats) == 0 {
				return 0
			}
			return tt.lats[int(float64(len(tt.lats)-1)*q)]
		}
		perReq := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(max(tt.n, 1)) }
		out[p.name] = benchResult{rate: float64(tt.n) / tt.d.Seconds(), p99: pct(0.99), serverCPU: perReq(tt.server),
			clientCPU: perReq(tt.client)}
		t.Logf("%-8s %7.0f req/s  p50 %7s  p99 %7s  failures %d  CPU per request: server %5.1f µs, client %5.1f µs",
			p.name, out[p.name].rate, pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), tt.fails,
			out[p.name].serverCPU, out[p.name].clientCPU)
		if tt.fails > 0 {
			t.Errorf("%s: %d requests failed", p.name, tt.fails)
		}
	}
	return out
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
