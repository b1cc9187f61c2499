package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/superfly/ltx"

	"reviewd/app/apptest"
)

// listOn reads GET /v1/reviews/list of product on base with the site key, as the
// store page does.
func listOn(t *testing.T, base, site, product string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/reviews/list?key="+site+"&product="+product, nil)
	req.Header.Set("Origin", "https://shop.example")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, res.Header, out
}

func reviewsOf(list map[string]any) []map[string]any {
	var out []map[string]any
	rs, _ := list["reviews"].([]any)
	for _, r := range rs {
		out = append(out, r.(map[string]any))
	}
	return out
}

// TestFollower runs a primary and a follower as two real processes over one
// bucket: a review published on the primary is served by the follower within 5s
// with the primary's ETag; a helpful vote sent to the follower lands on the
// primary; after kill -9 of the primary the follower is stopped and promoted,
// and every review acknowledged before the replica's last sync is there.
func TestFollower(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
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
		"REVIEWD_REPLICA_SYNC_INTERVAL=200ms", "REVIEWD_REPLICA_MEDIA_INTERVAL=500ms", "REVIEWD_PUBLIC_URL=https://reviews.shop.example")}
	data := filepath.Join(t.TempDir(), "primary")
	servers, sites := e.setup(data, 2)
	primary := startServe(t, bin, e.env, "serve", "--listen", freeAddr(t), "--data", data)
	pbase := "http://" + primary.addr
	s := shopper{base: pbase, server: servers[0], site: sites[0], c: &http.Client{Timeout: 10 * time.Second}, visitor: "198.51.100.7"}
	write := func(ext string) string {
		t.Helper()
		email := "buyer." + strings.ToLower(ext) + "@example.com"
		if err := s.order(ext, email); err != nil {
			t.Fatal(err)
		}
		tok, err := s.token(ext, email)
		if err != nil {
			t.Fatal(err)
		}
		title := "Kettle " + ext + " boils fast"
		if err := s.review(tok, title, "Order "+ext+" arrived on time; the handle stays cool and the lid closes well."); err != nil {
			t.Fatal(err)
		}
		return title
	}
	write("F-000")
	e.waitCaughtUp(data, 0)

	fdata := filepath.Join(t.TempDir(), "follower")
	fenv := append(append([]string{}, e.env...), "REVIEWD_FOLLOWER_PRIMARY_URL="+pbase, "REVIEWD_LOG_LEVEL=info")
	follower := startServe(t, bin, fenv, "serve", "--follow", "--listen", freeAddr(t), "--data", fdata)
	fbase := "http://" + follower.addr
	defer func() {
		if t.Failed() {
			_ = follower.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-follower.done:
			case <-time.After(15 * time.Second):
			}
			t.Logf("follower stderr:\n%s", follower.stderr.String())
			txid, _ := os.ReadFile(filepath.Join(fdata, "reviewd.db-txid"))
			t.Logf("primary status %v; follower txid %s", e.status(data), txid)
		}
	}()

	// A review published on the primary is served by the follower within 5s, with
	// the same ETag as the primary's answer.
	write("F-001")
	if st, _, l := listOn(t, pbase, sites[0], "SKU-F-001"); st != 200 || len(reviewsOf(l)) != 1 {
		t.Fatalf("primary list: %d %v", st, l)
	}
	published := time.Now()
	apptest.Eventually(t, "the follower serves the new review", 5*time.Second, func() (bool, string) {
		st, hd, l := listOn(t, fbase, sites[0], "SKU-F-001")
		return st == 200 && len(reviewsOf(l)) == 1 && hd.Get("X-Service-Replica-Lag") != "", fmt.Sprintf("%d %v", st, l)
	})
	t.Logf("follower served the review %s after the primary's answer", time.Since(published).Round(time.Millisecond))
	_, ph, pl := listOn(t, pbase, sites[0], "SKU-F-001")
	_, fh, _ := listOn(t, fbase, sites[0], "SKU-F-001")
	if ph.Get("ETag") == "" || ph.Get("ETag") != fh.Get("ETag") {
		t.Errorf("ETag: primary %q, follower %q", ph.Get("ETag"), fh.Get("ETag"))
	}
	if lag, err := strconv.Atoi(fh.Get("X-Service-Replica-Lag")); err != nil || lag > 5 {
		t.Errorf("X-Service-Replica-Lag %q", fh.Get("X-Service-Replica-Lag"))
	}
	if res := get(t, fbase+"/healthz", ""); res.status != 200 {
		t.Errorf("follower healthz: %d %s", res.status, res.body)
	}

	// A helpful vote sent to the follower lands on the primary.
	id := reviewsOf(pl)[0]["id"].(string)
	fs := s
	fs.base = fbase
	out, err := fs.json("/v1/reviews/"+id+"/helpful", map[string]any{"vote": "up", "visitor_key": "visitor-follower-1"}, fs.page())
	if err != nil || out["counted"] != true {
		t.Fatalf("vote through the follower: %v %v", out, err)
	}
	if _, _, l := listOn(t, pbase, sites[0], "SKU-F-001"); reviewsOf(l)[0]["helpful_count"] != float64(1) {
		t.Fatalf("the primary does not hold the vote: %v", reviewsOf(l)[0])
	}
	apptest.Eventually(t, "the follower serves the vote", 5*time.Second, func() (bool, string) {
		_, _, l := listOn(t, fbase, sites[0], "SKU-F-001")
		rs := reviewsOf(l)
		return len(rs) == 1 && rs[0]["helpful_count"] == float64(1), fmt.Sprint(rs)
	})

	// While the follower runs, promotion is refused.
	if _, errOut, err := e.run(fdata, "promote", "--quiet", "1s"); err == nil || !strings.Contains(errOut, "the follower still runs") {
		t.Fatalf("promote while the follower runs: %v %s", err, errOut)
	}
	// A primary's data folder cannot serve as a follower.
	if _, errOut, err := (rpEnv{t: t, bin: bin, env: fenv}).run(data, "serve", "--follow", "--listen", freeAddr(t)); err == nil || !strings.Contains(errOut, "not a follower's copy") {
		t.Fatalf("serve --follow on a primary's folder: %v %s", err, errOut)
	}

	// While the primary writes, promotion is refused by its fence.
	stopW := make(chan struct{})
	wdone := make(chan struct{})
	bg := s
	bg.server = servers[1]
	go func() {
		defer close(wdone)
		tick := time.NewTicker(250 * time.Millisecond) // a steady writer, under the key's limit
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stopW:
				return
			case <-tick.C:
			}
			_ = bg.order(fmt.Sprintf("BG-%04d", i), fmt.Sprintf("bg.%d@example.com", i))
		}
	}()
	follower.stop(t)
	_, errOut, err := e.run(fdata, "promote", "--quiet", "1s")
	close(stopW)
	<-wdone
	if err == nil || !strings.Contains(errOut, "still writes to the replica") {
		t.Fatalf("promote while the primary writes: %v %s", err, errOut)
	}
	// The follower starts again from its position.
	follower = startServe(t, bin, fenv, "serve", "--follow", "--listen", freeAddr(t), "--data", fdata)
	fbase = "http://" + follower.addr
	fs.base = fbase

	// More reviews, wait until the replica holds them, then kill -9 the primary.
	var titles []string
	for i := 2; i < 6; i++ {
		titles = append(titles, write(fmt.Sprintf("F-%03d", i)))
	}
	e.waitCaughtUp(data, 0)
	if err := primary.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-primary.done
	// While the primary is gone, a write to the follower fails cleanly (502), and
	// its reads go on.
	if _, _, err := fs.do("POST", "/v1/reviews/"+id+"/helpful", "application/json",
		strings.NewReader(`{"vote":"up","visitor_key":"v2"}`), fs.page()); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("write with the primary gone: %v", err)
	}
	apptest.Eventually(t, "the follower holds the last review", 5*time.Second, func() (bool, string) {
		st, _, l := listOn(t, fbase, sites[0], "SKU-F-005")
		return st == 200 && len(reviewsOf(l)) == 1, fmt.Sprint(st)
	})
	follower.stop(t)

	// Promotion: the fence sees a still replica; the copy becomes a primary's.
	out2 := e.must(fdata, "promote", "--quiet", "1s", "--json")
	var pr map[string]any
	if err := json.Unmarshal([]byte(out2), &pr); err != nil || pr["txid"].(float64) <= 0 {
		t.Fatalf("promote: %s %v", out2, err)
	}
	// The promoted folder serves as a primary (on a new replica prefix) with every
	// acknowledged review.
	nenv := append(append([]string{}, e.env...), "REVIEWD_REPLICA_URL=s3://reviewd/shops/acme-2")
	promotedSrv := startServe(t, bin, nenv, "serve", "--listen", freeAddr(t), "--data", fdata)
	nbase := "http://" + promotedSrv.addr
	for i, title := range titles {
		_, _, l := listOn(t, nbase, sites[0], fmt.Sprintf("SKU-F-%03d", i+2))
		if rs := reviewsOf(l); len(rs) != 1 || rs[0]["title"] != title {
			t.Errorf("after promotion, review %d: %v", i+2, rs)
		}
	}
	ns := s
	ns.base = nbase
	if err := ns.order("F-100", "after@example.com"); err != nil {
		t.Errorf("the promoted primary refuses writes: %v", err)
	}
	promotedSrv.stop(t)
}

// ltxObjects lists the replica's LTX files of one level in the fake bucket.
func ltxObjects(t *testing.T, backend *s3mem.Backend, level int) (keys []string, maxTXID uint64) {
	t.Helper()
	list, err := backend.ListBucket("reviewd", &gofakes3.Prefix{HasPrefix: true, Prefix: "shops/acme/"}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list.Contents {
		if !strings.Contains(c.Key, fmt.Sprintf("/%04x/", level)) { // the S3 client's layout: <prefix>/<level>/<min>-<max>.ltx
			continue
		}
		keys = append(keys, c.Key)
		_, max, err := ltx.ParseFilename(filepath.Base(c.Key))
		if err == nil && uint64(max) > maxTXID {
			maxTXID = uint64(max)
		}
	}
	return keys, maxTXID
}

// TestFollowerBridgesCompactedGap: a follower stopped while the primary wrote,
// whose next transactions are gone from the replica's level 0 (compacted into
// level 1 and deleted), catches up from level 1 when it starts again.
func TestFollowerBridgesCompactedGap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; waits for a level-1 compaction (30s)")
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
		"REVIEWD_REPLICA_SYNC_INTERVAL=200ms", "REVIEWD_PUBLIC_URL=https://reviews.shop.example")}
	data := filepath.Join(t.TempDir(), "primary")
	servers, sites := e.setup(data, 1)
	primary := startServe(t, bin, e.env, "serve", "--listen", freeAddr(t), "--data", data)
	pbase := "http://" + primary.addr
	s := shopper{base: pbase, server: servers[0], site: sites[0], c: &http.Client{Timeout: 10 * time.Second}, visitor: "198.51.100.8"}
	write := func(ext string) {
		t.Helper()
		email := "buyer." + strings.ToLower(ext) + "@example.com"
		if err := s.order(ext, email); err != nil {
			t.Fatal(err)
		}
		tok, err := s.token(ext, email)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.review(tok, "Kettle "+ext+" boils fast", "Order "+ext+" arrived on time; the handle stays cool."); err != nil {
			t.Fatal(err)
		}
	}
	write("G-000")
	e.waitCaughtUp(data, 0)
	fdata := filepath.Join(t.TempDir(), "follower")
	fenv := append(append([]string{}, e.env...), "REVIEWD_FOLLOWER_PRIMARY_URL="+pbase)
	follower := startServe(t, bin, fenv, "serve", "--follow", "--listen", freeAddr(t), "--data", fdata)
	follower.stop(t)

	for i := 1; i < 4; i++ {
		write(fmt.Sprintf("G-%03d", i))
	}
	st := e.waitCaughtUp(data, 0)
	want := uint64(st["replica_txid"].(float64))
	apptest.Eventually(t, "level 1 holds the primary's last transaction", 90*time.Second, func() (bool, string) {
		_, max := ltxObjects(t, backend, 1)
		return max >= want, fmt.Sprintf("level 1 up to %d, want %d", max, want)
	})
	keys, _ := ltxObjects(t, backend, 0)
	if _, err := backend.DeleteMulti("reviewd", keys...); err != nil {
		t.Fatal(err)
	}

	follower = startServe(t, bin, fenv, "serve", "--follow", "--listen", freeAddr(t), "--data", fdata)
	fbase := "http://" + follower.addr
	apptest.Eventually(t, "the follower serves the reviews written while it was stopped", 10*time.Second, func() (bool, string) {
		st, _, l := listOn(t, fbase, sites[0], "SKU-G-003")
		return st == 200 && len(reviewsOf(l)) == 1, fmt.Sprint(st)
	})
	follower.stop(t)
}
