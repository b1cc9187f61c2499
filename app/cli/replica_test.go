package cli_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	_ "modernc.org/sqlite"
)

// rpBaseEnv is the test's environment without AWS_CA_BUNDLE: Litestream's S3 client
// cannot combine it with its own HTTP client ("unable to add custom RootCAs").
func rpBaseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			out = append(out, kv)
		}
	}
	return out
}

// rpEnv runs the binary with one data folder and one replica configuration.
type rpEnv struct {
	t   *testing.T
	bin string
	env []string
}

func (e rpEnv) run(data string, args ...string) (string, string, error) {
	cmd := exec.Command(e.bin, append(args, "--data", data)...)
	cmd.Env = e.env
	cmd.Dir = e.t.TempDir()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func (e rpEnv) must(data string, args ...string) string {
	e.t.Helper()
	out, errOut, err := e.run(data, args...)
	if err != nil {
		e.t.Fatalf("reviewd %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

// status is `reviewd replica status --json`.
func (e rpEnv) status(data string) map[string]any {
	e.t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(e.must(data, "replica", "status", "--json")), &s); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// waitCaughtUp polls replica status until the replica holds every local
// transaction and media file, or fails after the deadline.
func (e rpEnv) waitCaughtUp(data string, wantMedia int) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := e.status(data)
		if s["local_txid"].(float64) > 0 && s["transactions_behind"].(float64) == 0 && s["wal_pending"] == false &&
			s["pending_media"].(float64) == 0 && s["replica_media"].(float64) >= float64(wantMedia) && s["key_present"] == true {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("waited 30s for the replica to hold every transaction and %d media files; last status %v", wantMedia, s)
		}
		time.Sleep(200 * time.Millisecond) // polling interval, not a wait for a state
	}
}

// setup creates the channel web (verified domain shop.example) and n server and
// site keys.
func (e rpEnv) setup(data string, n int) (servers, sites []string) {
	e.t.Helper()
	e.must(data, "channel", "create", "--code", "web", "--market", "TR", "--language", "tr", "--label", "Web",
		"--brand-name", "Acme", "--domain", "shop.example")
	for range n {
		var k struct{ Key string }
		_ = json.Unmarshal([]byte(e.must(data, "key", "create", "--kind", "server", "--channel", "web", "--json")), &k)
		servers = append(servers, k.Key)
		_ = json.Unmarshal([]byte(e.must(data, "key", "create", "--kind", "site", "--channel", "web", "--json")), &k)
		sites = append(sites, k.Key)
	}
	return servers, sites
}

// shopper drives one installation over HTTP with one server and one site key.
type shopper struct {
	base, server, site string
	c                  *http.Client
	// visitor is the shopper's address, sent as X-Forwarded-For (the server trusts
	// loopback as a proxy), so writers are limited as separate visitors would be.
	visitor string
}

func (s shopper) do(method, path, ctype string, body io.Reader, hdr map[string]string) (int, map[string]any, error) {
	req, err := http.NewRequest(method, s.base+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", ctype)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := s.c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if res.StatusCode >= 300 {
		return res.StatusCode, out, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return res.StatusCode, out, nil
}

func (s shopper) json(path string, body any, hdr map[string]string) (map[string]any, error) {
	b, _ := json.Marshal(body)
	_, out, err := s.do("POST", path, "application/json", bytes.NewReader(b), hdr)
	return out, err
}

func (s shopper) page() map[string]string {
	h := map[string]string{"X-Service-Site-Key": s.site, "Origin": "https://shop.example"}
	if s.visitor != "" {
		h["X-Forwarded-For"] = s.visitor
	}
	return h
}

// order ingests one paid order with one delivered line.
func (s shopper) order(ext, email string) error {
	now := time.Now().UTC()
	_, err := s.json("/v1/ingest/orders", map[string]any{"channel": "web", "external_id": ext, "payment_state": "paid",
		"placed_at": now.Add(-12 * 24 * time.Hour).Format(time.RFC3339), "customer_email": email,
		"items": []any{map[string]any{"line_reference": "1", "variant_key": "SKU-" + ext, "title": "Kettle " + ext,
			"fulfilment_state": "delivered", "delivered_at": now.Add(-48 * time.Hour).Format(time.RFC3339)}}},
		map[string]string{"Authorization": "Bearer " + s.server})
	return err
}

// token asks for a writing token as the store page does.
func (s shopper) token(ext, email string) (string, error) {
	out, err := s.json("/v1/eligibility", map[string]any{"order": ext, "email": email}, s.page())
	if err != nil {
		return "", err
	}
	tok, _ := out["token"].(string)
	return tok, nil
}

// review writes the review of line 1.
func (s shopper) review(tok, title, body string) error {
	_, err := s.json("/v1/reviews", map[string]any{"token": tok, "reviews": []any{map[string]any{
		"line_reference": "1", "rating": 4, "title": title, "body": body}}}, s.page())
	return err
}

// photo uploads a small JPEG for line 1.
func (s shopper) photo(tok string, seed int) error {
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for x := range 96 {
		for y := range 64 {
			img.Set(x, y, color.RGBA{uint8(x * seed), uint8(y + seed), uint8(seed * 7), 255})
		}
	}
	var pic bytes.Buffer
	_ = jpeg.Encode(&pic, img, &jpeg.Options{Quality: 85})
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("token", tok)
	_ = mw.WriteField("line_reference", "1")
	fw, _ := mw.CreateFormFile("file", "photo.jpg")
	_, _ = fw.Write(pic.Bytes())
	_ = mw.Close()
	_, _, err := s.do("POST", "/v1/media", mw.FormDataContentType(), &b, s.page())
	return err
}

// ack is one acknowledged write.
type ack struct {
	email, title, body string
	at                 time.Time
	phase              int
}

// TestReplicaRestore streams a real `reviewd serve` to an in-process S3-compatible
// server while four writers place orders and write reviews, kills the server with
// SIGKILL, restores a fresh data folder with `reviewd restore --from-replica` and
// compares every acknowledged order and review. It reports the restore time and the
// gap between the last acknowledged write and the restored state.
func TestReplicaRestore(t *testing.T) {
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
		"REVIEWD_REPLICA_MEDIA_INTERVAL=500ms")}
	data := filepath.Join(t.TempDir(), "data")
	const writers = 4
	servers, sites := e.setup(data, writers)
	srv := startServe(t, bin, e.env, "serve", "--listen", freeAddr(t), "--data", data)

	var (
		mu     sync.Mutex
		acks   = map[string]ack{} // by order number; title empty: no review acknowledged
		sent   = map[string]bool{}
		photos int
	)
	load := func(phase int, d time.Duration, withPhotos bool) {
		var wg sync.WaitGroup
		stop := time.Now().Add(d)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := shopper{base: "http://" + srv.addr, server: servers[w], site: sites[w], c: &http.Client{Timeout: 10 * time.Second},
					visitor: fmt.Sprintf("198.51.100.%d", w+1)}
				for i := 0; time.Now().Before(stop) && i < 100; i++ {
					ext := fmt.Sprintf("P%d-W%d-%03d", phase, w, i)
					email := fmt.Sprintf("buyer.%d.%d.%d@example.com", phase, w, i)
					mu.Lock()
					sent[ext] = true
					mu.Unlock()
					if err := s.order(ext, email); err != nil {
						if phase == 2 {
							return // the server is being killed
						}
						t.Errorf("order %s: %v", ext, err)
						return
					}
					mu.Lock()
					acks[ext] = ack{email: email, at: time.Now(), phase: phase}
					mu.Unlock()
					tok, err := s.token(ext, email)
					if err != nil {
						if phase == 2 {
							return
						}
						t.Errorf("token %s: %v", ext, err)
						return
					}
					if withPhotos && i%5 == 0 {
						if err := s.photo(tok, i+w); err != nil {
							t.Errorf("photo %s: %v", ext, err)
							return
						}
						mu.Lock()
						photos++
						mu.Unlock()
					}
					title := fmt.Sprintf("Kettle %s boils fast", ext)
					body := fmt.Sprintf("Order %s arrived on time; writer %d says the handle stays cool, try number %d.", ext, w, i)
					if err := s.review(tok, title, body); err != nil {
						if phase == 2 {
							return
						}
						t.Errorf("review %s: %v", ext, err)
						return
					}
					mu.Lock()
					acks[ext] = ack{email: email, title: title, body: body, at: time.Now(), phase: phase}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}

	// Phase 1: load with photos, then wait until the replica holds all of it.
	load(1, 5*time.Second, true)
	if t.Failed() {
		t.FailNow()
	}
	e.waitCaughtUp(data, photos)
	media := mediaFiles(t, data)

	// Phase 2: load again and kill the server in the middle of it.
	done := make(chan struct{})
	go func() { load(2, 20*time.Second, false); close(done) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := 0
		for _, a := range acks {
			if a.phase == 2 && a.title != "" {
				n++
			}
		}
		mu.Unlock()
		if n >= 40 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("phase 2 acknowledged %d reviews in 20s", n)
		}
		time.Sleep(50 * time.Millisecond) // polling interval
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()
	<-done
	<-srv.done

	// Restore on a fresh folder: the old one counts as lost.
	fresh := filepath.Join(t.TempDir(), "restored")
	began := time.Now()
	var res struct {
		TXID  uint64
		Media int
	}
	if err := json.Unmarshal([]byte(e.must(fresh, "restore", "--from-replica", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	restoreTime := time.Since(began)

	// Every restored order and review is exactly what was acknowledged (or sent
	// just before the kill); every acknowledged write of phase 1 is there.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(fresh, "reviewd.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type row struct{ email, title, body string }
	got := map[string]row{}
	rows, err := db.Query(`SELECT o.external_id, o.customer_email, COALESCE(r.title, ''), COALESCE(r.body, '')
		FROM orders o LEFT JOIN reviews r ON r.order_id = o.id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ext string
		var r row
		if err := rows.Scan(&ext, &r.email, &r.title, &r.body); err != nil {
			t.Fatal(err)
		}
		got[ext] = r
	}
	rows.Close()
	var newestRestored, newestAck time.Time
	missing := map[int]int{}
	for ext, a := range acks {
		if a.at.After(newestAck) {
			newestAck = a.at
		}
		r, ok := got[ext]
		full := ok && (a.title == "" || r.title == a.title)
		if !full {
			missing[a.phase]++
			continue
		}
		if r.email != a.email || (a.title != "" && r.body != a.body) {
			t.Errorf("order %s restored as %+v, acknowledged %+v", ext, r, a)
		}
		if a.at.After(newestRestored) {
			newestRestored = a.at
		}
	}
	for ext := range got {
		if !sent[ext] {
			t.Errorf("restored order %s was never sent", ext)
		}
	}
	if missing[1] > 0 {
		t.Errorf("%d acknowledged writes of phase 1 (confirmed replicated) are missing", missing[1])
	}
	gap := newestAck.Sub(newestRestored)
	t.Logf("acknowledged orders %d, restored %d, acknowledged writes missing after SIGKILL %d; restore took %s (%d media files); "+
		"gap between the last acknowledged write and the restored state %s (kill %s after it)",
		len(acks), len(got), missing[2], restoreTime.Round(time.Millisecond), res.Media, gap.Round(time.Millisecond),
		killedAt.Sub(newestAck).Round(time.Millisecond))
	if gap > 10*time.Second {
		t.Errorf("the restored state is %s behind the last acknowledged write; replication promises seconds", gap)
	}

	// The media mirrored before the kill come back byte for byte.
	if res.Media < len(media) {
		t.Errorf("restored %d media files, %d were in the folder", res.Media, len(media))
	}
	for rel, want := range media {
		b, err := os.ReadFile(filepath.Join(fresh, "media", rel))
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("media %s not restored intact: %v", rel, err)
		}
	}
	key, _ := os.ReadFile(filepath.Join(data, "secret.key"))
	if b, err := os.ReadFile(filepath.Join(fresh, "secret.key")); err != nil || !bytes.Equal(b, key) {
		t.Errorf("master key not restored: %v", err)
	}

	// The restored folder serves: the keys from before the loss still work.
	srv2 := startServe(t, bin, e.env, "serve", "--listen", freeAddr(t), "--data", fresh)
	s := shopper{base: "http://" + srv2.addr, server: servers[0], site: sites[0], c: &http.Client{Timeout: 10 * time.Second}}
	if err := s.order("AFTER-RESTORE", "late@example.com"); err != nil {
		t.Errorf("order after restore: %v", err)
	}
	srv2.stop(t)
	// ... and keeps replicating into the same replica: a second restore has it.
	again := filepath.Join(t.TempDir(), "again")
	e.must(again, "restore", "--from-replica")
	db2, err := sql.Open("sqlite", "file:"+filepath.Join(again, "reviewd.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	var n int
	if err := db2.QueryRow(`SELECT count(*) FROM orders`).Scan(&n); err != nil || n != len(got)+1 {
		t.Errorf("second restore holds %d orders (%v), want the %d restored plus the one written after", n, err, len(got))
	}

	// A restore never writes into a folder that holds something.
	if _, errOut, err := e.run(fresh, "restore", "--from-replica"); err == nil || !strings.Contains(errOut, "not empty") {
		t.Errorf("restore into a used folder: %v %q", err, errOut)
	}
}

// TestReplicaFolder replicates to a local folder: a clean stop ships every
// acknowledged write, --timestamp restores an earlier state, and a second
// installation may not stream into the same replica.
func TestReplicaFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	rdir := filepath.Join(t.TempDir(), "replica")
	e := rpEnv{t: t, bin: bin, env: append(rpBaseEnv(), "REVIEWD_JOBS_ENABLED=false", "REVIEWD_LOG_LEVEL=warn",
		"REVIEWD_REPLICA_URL=file://"+rdir)}
	data := filepath.Join(t.TempDir(), "data")
	servers, sites := e.setup(data, 1)
	srv := startServe(t, bin, e.env, "serve", "--listen", freeAddr(t), "--data", data)
	s := shopper{base: "http://" + srv.addr, server: servers[0], site: sites[0], c: &http.Client{Timeout: 10 * time.Second}}
	for i := range 10 {
		if err := s.order(fmt.Sprintf("EARLY-%d", i), "a@example.com"); err != nil {
			t.Fatal(err)
		}
	}
	e.waitCaughtUp(data, 0)
	between := time.Now().UTC() // after the replica confirmed the early orders
	for i := range 10 {
		if err := s.order(fmt.Sprintf("LATE-%d", i), "b@example.com"); err != nil {
			t.Fatal(err)
		}
	}
	srv.stop(t)

	count := func(dir, like string) int {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "reviewd.db")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM orders WHERE external_id LIKE ?`, like).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	latest := filepath.Join(t.TempDir(), "latest")
	e.must(latest, "restore", "--from-replica")
	if early, late := count(latest, "EARLY-%"), count(latest, "LATE-%"); early != 10 || late != 10 {
		t.Errorf("after a clean stop the replica holds %d early and %d late orders, want 10 and 10", early, late)
	}
	earlier := filepath.Join(t.TempDir(), "earlier")
	e.must(earlier, "restore", "--from-replica", "--timestamp", between.Format(time.RFC3339Nano))
	if early, late := count(earlier, "EARLY-%"), count(earlier, "LATE-%"); early != 10 || late != 0 {
		t.Errorf("restore --timestamp: %d early and %d late orders, want 10 and 0", early, late)
	}

	// Another installation (another master key) is refused by the replica.
	other := filepath.Join(t.TempDir(), "other")
	e.must(other, "migrate")
	cmd := exec.Command(bin, "serve", "--listen", freeAddr(t), "--data", other)
	cmd.Env = e.env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another installation") {
		t.Errorf("serve of another installation into the same replica: %v %s", err, out)
	}
}

// mediaFiles reads every media file (not the uploads in progress) of a data folder.
func mediaFiles(t *testing.T, data string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	root := filepath.Join(data, "media")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
