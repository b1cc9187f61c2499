package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/readmodel"
	"reviewd/app/media"
	"reviewd/app/media/s3test"
	"reviewd/app/replica"
	"reviewd/jobs"
)

// storeCase is one media store the media flow runs against.
type storeCase struct {
	name string
	// config edits the configuration (nil: the default local store).
	config func(t *testing.T) (func(*app.Config), *s3test.Server)
}

var mediaStores = []storeCase{
	{name: "local", config: func(*testing.T) (func(*app.Config), *s3test.Server) { return nil, nil }},
	{name: "s3", config: func(t *testing.T) (func(*app.Config), *s3test.Server) {
		srv := s3test.Start(t, "shop-media")
		return func(c *app.Config) { c.Media = srv.Config("reviewd") }, srv
	}},
}

// newModEnvWith is newModEnv with the configuration changed by edit.
func newModEnvWith(t *testing.T, edit func(*app.Config)) *modEnv {
	t.Helper()
	env := apptest.NewWith(t, cli.TestSurfaces, edit)
	env.Channel("web", "TR", "tr")
	key := func(scopes ...string) map[string]string {
		return map[string]string{"Authorization": "Api-Key " + env.Key("api", "", scopes...)}
	}
	m := &modEnv{t: t, env: env, ctx: context.Background(), mod: key("moderate"), read: key("read"),
		export: key("export"), all: key("moderate", "export")}
	if _, err := env.App.Brand.UpdateSettings(m.ctx, core.Console(), map[string]json.RawMessage{
		"publishing_method": json.RawMessage(`"manual"`)}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMediaStoreFlow runs the whole media flow against the local store and the
// s3 store (an in-process S3 server) with the same assertions: upload, scan (when
// clamd is configured for the tests), process, publish, hide, unhide, unpublish,
// removal and erasure of a file, the admin route with Range, and the cleanup
// job's reconciliation after a crash. The public address is the one the API
// gives (reviewd's /media route for local, the bucket's public prefix for s3).
func TestMediaStoreFlow(t *testing.T) {
	for _, sc := range mediaStores {
		t.Run(sc.name, func(t *testing.T) {
			edit, srv := sc.config(t)
			clamd := os.Getenv("REVIEWD_TEST_CLAMD")
			m := newModEnvWith(t, func(c *app.Config) {
				if edit != nil {
					edit(c)
				}
				c.Clamd.Address = clamd
				c.FFmpeg = app.FFmpeg{FFmpeg: os.Getenv("REVIEWD_FFMPEG"), FFprobe: os.Getenv("REVIEWD_FFPROBE")}
			})
			a := m.env.App
			st := a.Reviews.Media
			if st.Kind() != sc.name {
				t.Fatalf("store %s, want %s", st.Kind(), sc.name)
			}
			ctx := m.ctx
			// stored lists the store's keys of a media item, sorted.
			stored := func(id string) []string {
				list, err := st.List(ctx, id+"/")
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, o := range list {
					out = append(out, o.Key)
				}
				slices.Sort(out)
				return out
			}
			// public fetches a public address as a browser or CDN would.
			public := func(url string) (int, []byte) {
				t.Helper()
				if p, ok := strings.CutPrefix(url, "http://reviewd.test"); ok {
					res := m.do("GET", p, nil, nil)
					return res.Status, res.Body
				}
				res, err := http.Get(url)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, b
			}
			gone := func(what, url string) {
				t.Helper()
				if s, _ := public(url); s != http.StatusNotFound && s != http.StatusForbidden {
					t.Fatalf("%s: public address %s answers %d, want 403 or 404", what, url, s)
				}
			}
			item := func(mid string) readmodel.MediaItemView {
				t.Helper()
				mm, err := a.DB.Read().MediaByPublicID(ctx, mid)
				if err != nil {
					t.Fatal(err)
				}
				it, ok := a.Read.PublicMediaItem(mm)
				if !ok {
					t.Fatalf("media %s not ready: %+v", mid, mm)
				}
				return it
			}
			urls := func(it readmodel.MediaItemView) []string {
				out := []string{it.URL}
				for _, part := range strings.Split(it.Srcset, ", ") {
					u, _, _ := strings.Cut(part, " ")
					out = append(out, u)
				}
				return out
			}
			stagingEmpty := func() {
				t.Helper()
				entries, _ := os.ReadDir(filepath.Join(a.MediaDir(), media.StagingDir))
				if len(entries) != 0 {
					var names []string
					for _, e := range entries {
						names = append(names, e.Name())
					}
					t.Fatalf("staging folder not empty: %v", names)
				}
			}

			// Upload, scan, process.
			ext := m.order(review{channel: "web", email: "a@mail.example", variant: "SKU-1", product: "Kettle"})
			mid := m.upload(ext, photo(t, 1500, 1000))
			vid := m.upload(ext, smallClip(t))
			id := m.writeFor(ext, review{channel: "web", body: "Look at this.", media: []string{mid, vid}})
			m.runMedia()
			stagingEmpty()
			it := item(mid)
			vit := item(vid)
			if vit.Kind != "video" || vit.PosterURL == "" || len(stored(vid)) < 2 {
				t.Fatalf("video item %+v stored %v", vit, stored(vid))
			}
			wantKeys := []string{mid + "/image-1280.jpg", mid + "/image-320.jpg", mid + "/image-640.jpg", mid + "/image.jpg"}
			if got := stored(mid); !slices.Equal(got, wantKeys) {
				t.Fatalf("stored %v, want %v", got, wantKeys)
			}
			if srv != nil && !strings.HasPrefix(it.URL, srv.URL+"/shop-media/reviewd/public/"+mid+"/") {
				t.Fatalf("url %s is not the bucket's public address", it.URL)
			}
			if srv == nil && it.URL != "http://reviewd.test/media/"+mid+"/image.jpg" {
				t.Fatalf("url %s", it.URL)
			}
			if len(urls(it)) != 5 { // url + 3 renditions + the original in srcset
				t.Fatalf("addresses %v", urls(it))
			}
			all := append(urls(it), vit.URL, vit.PosterURL)

			// Pending: not public; the admin route serves it with Range.
			for _, u := range all {
				gone("pending", u)
			}
			adminPath := "/admin/v1/reviews/" + id + "/media/" + mid + "/image.jpg"
			full := m.do("GET", adminPath, nil, m.read)
			if full.Status != 200 || full.Header.Get("Content-Type") != "image/jpeg" || len(full.Body) < 1000 {
				t.Fatalf("admin media: %d %v", full.Status, full.Header)
			}
			rng := m.do("GET", adminPath, nil, map[string]string{"Authorization": m.read["Authorization"], "Range": "bytes=100-199"})
			if rng.Status != 206 || !bytes.Equal(rng.Body, full.Body[100:200]) {
				t.Fatalf("admin range: %d %d bytes", rng.Status, len(rng.Body))
			}

			// Publish: every address serves the file the admin route serves.
			expect(t, m.transition(id, "approve", ""), 200, "")
			for _, u := range all {
				if s, b := public(u); s != 200 || len(b) == 0 {
					t.Fatalf("published %s: %d", u, s)
				}
			}
			if _, b := public(it.URL); !bytes.Equal(b, full.Body) {
				t.Fatal("the public file differs from the stored original")
			}
			// The video plays from its public address with Range.
			if srv != nil {
				req, _ := http.NewRequest("GET", vit.URL, nil)
				req.Header.Set("Range", "bytes=0-99")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != 206 || res.Header.Get("Content-Type") != "video/mp4" {
					t.Fatalf("video range at the bucket: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
				}
			}
			if res := m.do("GET", "/admin/v1/reviews/"+id+"/media/"+vid+"/video.mp4", nil,
				map[string]string{"Authorization": m.read["Authorization"], "Range": "bytes=10-19"}); res.Status != 206 || len(res.Body) != 10 {
				t.Fatalf("admin video range: %d", res.Status)
			}
			// reviewd's own route serves it too while published (Range included).
			res := m.do("GET", "/media/"+mid+"/image.jpg", nil, map[string]string{"Range": "bytes=0-9"})
			if res.Status != 206 || !bytes.Equal(res.Body, full.Body[:10]) {
				t.Fatalf("reviewd media route: %d", res.Status)
			}

			// A closed brand shows no media (the cleanup job removes the bucket's
			// public copies); reopened, the next run brings them back.
			cleanup := jobs.Cleanup{DB: a.DB, Reviews: a.Reviews}
			for _, c := range []struct {
				state string
				shown bool
			}{{"closed", false}, {"active", true}} {
				if err := a.Access.SetBrandState(ctx, core.Console(), c.state); err != nil {
					t.Fatal(err)
				}
				if _, err := cleanup.Run(ctx, time.Now()); err != nil {
					t.Fatal(err)
				}
				for _, u := range all {
					if c.shown {
						if s, _ := public(u); s != 200 {
							t.Fatalf("brand %s: %s answers %d", c.state, u, s)
						}
					} else {
						gone("closed brand", u)
					}
				}
			}

			// Hide, unhide, unpublish (reject).
			expect(t, m.transition(id, "hide", ""), 200, "")
			for _, u := range all {
				gone("hidden", u)
			}
			if s := m.do("GET", "/media/"+mid+"/image.jpg", nil, nil).Status; s != 404 {
				t.Fatalf("reviewd route of a hidden review: %d", s)
			}
			expect(t, m.transition(id, "unhide", ""), 200, "")
			if s, _ := public(it.URL); s != 200 {
				t.Fatalf("unhidden: %d", s)
			}
			expect(t, m.transition(id, "reject", "off_topic"), 200, "")
			for _, u := range all {
				gone("unpublished", u)
			}
			if got := stored(mid); !slices.Equal(got, wantKeys) {
				t.Fatalf("an unpublished review keeps its files; stored %v", got)
			}

			// Media removal: the address answers 404 and every file is gone.
			ext2 := m.order(review{channel: "web", email: "b@mail.example", variant: "SKU-1", product: "Kettle"})
			mid2 := m.upload(ext2, photo(t, 900, 700))
			mid3 := m.upload(ext2, photo(t, 800, 600))
			id2 := m.writeFor(ext2, review{channel: "web", body: "Two photos.", media: []string{mid2, mid3}})
			m.runMedia()
			expect(t, m.transition(id2, "approve", ""), 200, "")
			all2, all3 := urls(item(mid2)), urls(item(mid3))
			for _, u := range append(all2, all3...) {
				if s, _ := public(u); s != 200 {
					t.Fatalf("published %s: %d", u, s)
				}
			}
			res = m.do("DELETE", "/admin/v1/reviews/"+id2+"/media/"+mid2, map[string]any{"reason": "personal_data"}, m.mod)
			if res.Status != http.StatusNoContent {
				t.Fatalf("remove: %s", res)
			}
			for _, u := range all2 {
				gone("removed", u)
			}
			if got := stored(mid2); len(got) != 0 {
				t.Fatalf("removed file still stored: %v", got)
			}
			// Erasure (a data subject request): the same, and the other file stays.
			res = m.do("DELETE", "/admin/v1/reviews/"+id2+"/media/"+mid3, map[string]any{"reason": "data_subject_request"}, m.mod)
			if res.Status != http.StatusNoContent {
				t.Fatalf("erase: %s", res)
			}
			for _, u := range all3 {
				gone("erased", u)
			}
			if got := stored(mid3); len(got) != 0 {
				t.Fatalf("erased file still stored: %v", got)
			}
			if srv != nil {
				if keys := append(srv.KeysOf(t, mid2), srv.KeysOf(t, mid3)...); len(keys) != 0 {
					t.Fatalf("the bucket still holds %v", keys)
				}
			}
			if got := stored(mid); !slices.Equal(got, wantKeys) {
				t.Fatalf("another review's files changed: %v", got)
			}

			// A crash leaves an orphan (files stored, the row never written), a
			// staged upload nobody processes and, on s3, a public copy of an
			// unpublished review: the cleanup job puts the store right.
			orphan := "m_zzzzzzzzzzzzzzzzzzzz"
			if err := st.Put(ctx, media.Key(orphan, "image.jpg"), bytes.NewReader(full.Body), int64(len(full.Body))); err != nil {
				t.Fatal(err)
			}
			staged := filepath.Join(a.MediaDir(), media.StagingDir, orphan+".jpeg")
			if err := os.WriteFile(staged, []byte("half"), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := st.Publish(ctx, mid, []string{"image.jpg"}); err != nil {
				t.Fatal(err)
			}
			later := time.Now().Add(2 * time.Hour)
			out, err := jobs.Cleanup{DB: a.DB, Reviews: a.Reviews}.Run(ctx, later)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, "media_orphans=1 media_staged=1") || !strings.Contains(out, "media_missing=0") {
				t.Fatalf("cleanup: %s", out)
			}
			if got := stored(orphan); len(got) != 0 {
				t.Fatalf("orphan still stored: %v", got)
			}
			if _, err := os.Stat(staged); !os.IsNotExist(err) {
				t.Fatalf("staged orphan stays: %v", err)
			}
			gone("reconciled", it.URL)
			if got := stored(mid); !slices.Equal(got, wantKeys) {
				t.Fatalf("the cleanup removed a live item's files: %v", got)
			}
		})
	}
}

// smallClip encodes a one-second 160x120 H.264 MP4 with the test ffmpeg.
func smallClip(t *testing.T) []byte {
	t.Helper()
	bin := os.Getenv("REVIEWD_FFMPEG")
	if bin == "" {
		t.Skip("REVIEWD_FFMPEG not set")
	}
	out := filepath.Join(t.TempDir(), "clip.mp4")
	if b, err := exec.Command(bin, "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=15", "-t", "1",
		"-pix_fmt", "yuv420p", "-c:v", "libx264", out).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMediaMigrate moves the media of a running installation from the local store
// to the bucket and back: an interrupted run resumes (a file already copied is
// checked, a damaged copy is copied again), every copy is verified, the switched
// installation serves every file from the bucket (published ones at the public
// prefix, the others not), and nothing is lost on the way back.
func TestMediaMigrate(t *testing.T) {
	m := newModEnvWith(t, nil)
	a, ctx := m.env.App, m.ctx
	ext := m.order(review{channel: "web", email: "a@mail.example", variant: "SKU-1", product: "Kettle"})
	pub := m.upload(ext, photo(t, 1400, 900))
	id := m.writeFor(ext, review{channel: "web", body: "Published.", media: []string{pub}})
	ext2 := m.order(review{channel: "web", email: "b@mail.example", variant: "SKU-1", product: "Kettle"})
	pend := m.upload(ext2, photo(t, 700, 500))
	id2 := m.writeFor(ext2, review{channel: "web", body: "Pending.", media: []string{pend}})
	m.runMedia()
	expect(t, m.transition(id, "approve", ""), 200, "")
	local := a.Reviews.Media
	files, err := local.List(ctx, "")
	if err != nil || len(files) != 7 { // 4 of the 1400 px photo, 3 of the 700 px one
		t.Fatalf("local files %v %v", files, err)
	}

	srv := s3test.Start(t, "shop-media")
	cfg := srv.Config("reviewd")
	bucket, err := cfg.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	// An earlier run was interrupted: one file copied, one copy damaged.
	copyOf := func(key string) []byte {
		o, err := local.Open(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		b, _ := io.ReadAll(o)
		return b
	}
	good, bad := media.Key(pub, "image.jpg"), media.Key(pub, "image-320.jpg")
	if err := bucket.Put(ctx, good, bytes.NewReader(copyOf(good)), int64(len(copyOf(good)))); err != nil {
		t.Fatal(err)
	}
	damaged := copyOf(bad)
	damaged[len(damaged)/2] ^= 0xff
	if err := bucket.Put(ctx, bad, bytes.NewReader(damaged), int64(len(damaged))); err != nil {
		t.Fatal(err)
	}
	res, err := media.Migrate(ctx, local, bucket, nil)
	if err != nil || res.Copied != 6 || res.Present != 1 || len(res.Failed) != 0 {
		t.Fatalf("migrate: %+v %v", res, err)
	}
	if res, err := media.Migrate(ctx, local, bucket, nil); err != nil || res.Copied != 0 || res.Present != 7 {
		t.Fatalf("second run: %+v %v", res, err)
	}

	// Switch the installation to the bucket (media.store s3 and a restart) and
	// clear the local folder to be sure every answer comes from the bucket.
	a.Reviews.Media, a.Read.MediaPublicURL = bucket, cfg.PublicURL
	rec, err := a.Reviews.ReconcileMedia(ctx, time.Now())
	if err != nil || rec.Published != 1 || rec.Missing != 0 || rec.Orphans != 0 {
		t.Fatalf("reconcile after the switch: %+v %v", rec, err)
	}
	for _, id := range []string{pub, pend} {
		if err := os.RemoveAll(filepath.Join(a.MediaDir(), id)); err != nil {
			t.Fatal(err)
		}
	}
	mm, _ := a.DB.Read().MediaByPublicID(ctx, pub)
	it, _ := a.Read.PublicMediaItem(mm)
	get := func(url string) int {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if !strings.HasPrefix(it.URL, cfg.PublicURL) || get(it.URL) != 200 {
		t.Fatalf("published photo after the switch: %s", it.URL)
	}
	if s := get(cfg.PublicURL + "/" + pend + "/image.jpg"); s != 404 && s != 403 {
		t.Fatalf("a pending review's photo is public after the migration: %d", s)
	}
	for _, p := range []string{"/admin/v1/reviews/" + id + "/media/" + pub + "/image-640.jpg", "/admin/v1/reviews/" + id2 + "/media/" + pend + "/image.jpg"} {
		if res := m.do("GET", p, nil, m.read); res.Status != 200 || len(res.Body) < 100 {
			t.Fatalf("admin route after the switch %s: %d", p, res.Status)
		}
	}

	// And back into an empty folder.
	back := media.LocalStore(t.TempDir())
	if res, err := media.Migrate(ctx, bucket, back, nil); err != nil || res.Copied != 7 || len(res.Failed) != 0 {
		t.Fatalf("back to local: %+v %v", res, err)
	}
	o, err := back.Open(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(o)
	o.Close()
	if !bytes.Equal(b, readStored(t, bucket, good)) {
		t.Fatal("the file came back changed")
	}
}

func readStored(t *testing.T, s media.Store, key string) []byte {
	t.Helper()
	o, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	b, _ := io.ReadAll(o)
	return b
}

// TestMediaReplicaSharedBucket: the database replica and the media share one
// bucket under separate prefixes; a fresh machine restored from the replica with
// the same media settings shows every photo (public address, reviewd's route and
// the admin route), and the replica holds no copy of the processed files.
func TestMediaReplicaSharedBucket(t *testing.T) {
	// Litestream's S3 client cannot combine AWS_CA_BUNDLE with its own HTTP client.
	t.Setenv("AWS_CA_BUNDLE", "")
	os.Unsetenv("AWS_CA_BUNDLE")
	srv := s3test.Start(t, "shop")
	mcfg := srv.Config("reviewd")
	rcfg := replica.Defaults
	rcfg.URL, rcfg.Endpoint, rcfg.AccessKeyID, rcfg.SecretAccessKey = "s3://shop/db", srv.URL, "test-key", "test-secret"
	edit := func(c *app.Config) { c.Media, c.Replica = mcfg, rcfg }
	m := newModEnvWith(t, edit)
	a, ctx := m.env.App, m.ctx
	paths := func(dir string) replica.Paths {
		return replica.Paths{DB: filepath.Join(dir, app.DBFile), Media: filepath.Join(dir, app.MediaDir), Key: filepath.Join(dir, core.MasterKeyFile)}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rep, err := replica.Start(ctx, rcfg, paths(a.Config.DataDir), quiet)
	if err != nil {
		t.Fatal(err)
	}
	ext := m.order(review{channel: "web", email: "a@mail.example", variant: "SKU-1", product: "Kettle"})
	mid := m.upload(ext, photo(t, 1000, 800))
	id := m.writeFor(ext, review{channel: "web", body: "Shared bucket.", media: []string{mid}})
	m.runMedia()
	expect(t, m.transition(id, "approve", ""), 200, "")
	want := m.do("GET", "/admin/v1/reviews/"+id+"/media/"+mid+"/image.jpg", nil, m.read).Body
	if err := rep.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range srv.Keys(t, "db/") {
		if strings.Contains(k, mid) {
			t.Fatalf("the replica holds a processed file: %s", k)
		}
	}

	// A new machine: restore, then open with the same settings.
	fresh := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(fresh, 0o750); err != nil {
		t.Fatal(err)
	}
	if _, err := replica.Restore(ctx, rcfg, paths(fresh), time.Time{}, quiet); err != nil {
		t.Fatal(err)
	}
	env2 := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) { edit(c); c.DataDir = fresh })
	read2 := map[string]string{"Authorization": "Api-Key " + env2.Key("api", "", "read")}
	mm, err := env2.App.DB.Read().MediaByPublicID(ctx, mid)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := env2.App.Read.PublicMediaItem(mm)
	if !ok {
		t.Fatalf("restored media %+v", mm)
	}
	res, err := http.Get(it.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(got, want) {
		t.Fatalf("public address after the restore: %d, %d bytes", res.StatusCode, len(got))
	}
	if r := env2.Do("GET", "/media/"+mid+"/image-640.jpg", nil, nil); r.Status != 200 {
		t.Fatalf("reviewd's route after the restore: %d", r.Status)
	}
	if r := env2.Do("GET", "/admin/v1/reviews/"+id+"/media/"+mid+"/image.jpg", nil, read2); r.Status != 200 || !bytes.Equal(r.Body, want) {
		t.Fatalf("admin route after the restore: %d", r.Status)
	}
}

// TestMediaStoreOutage: while the bucket is unreachable an accepted upload stays
// staged and waits (the job run stops at the first refused write); once the
// bucket is back the next run stores it and the staging folder empties.
func TestMediaStoreOutage(t *testing.T) {
	srv := s3test.Start(t, "shop-media")
	m := newModEnvWith(t, func(c *app.Config) { c.Media = srv.Config("reviewd") })
	a, ctx := m.env.App, m.ctx
	ext := m.order(review{channel: "web", email: "a@mail.example", variant: "SKU-1", product: "Kettle"})
	mid := m.upload(ext, photo(t, 900, 600))
	id := m.writeFor(ext, review{channel: "web", body: "Outage.", media: []string{mid}})
	staged := filepath.Join(a.MediaDir(), media.StagingDir, mid+".jpeg")
	srv.Down(true)
	for range 2 {
		run, err := a.Reviews.ProcessMedia(ctx, m.env.Clock.T, 50)
		if err != nil || run.String() != "ready=0 failed=0 retried=0 store_failed" {
			t.Fatalf("run during the outage: %s %v", run, err)
		}
		if mm, _ := a.DB.Read().MediaByPublicID(ctx, mid); mm.State != "uploaded" {
			t.Fatalf("state during the outage: %s", mm.State)
		}
		if _, err := os.Stat(staged); err != nil {
			t.Fatalf("the staged upload is gone during the outage: %v", err)
		}
	}
	srv.Down(false)
	if run, err := a.Reviews.ProcessMedia(ctx, m.env.Clock.T, 50); err != nil || run.String() != "ready=1 failed=0 retried=0" {
		t.Fatalf("run after the outage: %s %v", run, err)
	}
	if keys := srv.KeysOf(t, mid); len(keys) != 3 { // image, 320 and 640 px
		t.Fatalf("bucket after the outage: %v", keys)
	}
	if entries, _ := os.ReadDir(filepath.Join(a.MediaDir(), media.StagingDir)); len(entries) != 0 {
		t.Fatalf("staging after the outage: %d entries", len(entries))
	}
	expect(t, m.transition(id, "approve", ""), 200, "")
}
