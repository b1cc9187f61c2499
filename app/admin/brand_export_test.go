package admin_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/media"
	"reviewd/jobs"
	"reviewd/store"
)

// TestBrandExport builds the whole-brand archive through HTTP with an owner's
// panel session: refused with a key, built in the background, export_not_ready
// while building, downloaded as a zip with the brand's data (CSV, JSON Lines,
// media, manifest) and no customer addresses, still served to a frozen brand, and
// gone after its expiry once the cleanup job ran.
func TestBrandExport(t *testing.T) {
	o := newOwnerEnv(t)
	env, ctx := o.env, context.Background()
	m := &modEnv{t: t, env: env, ctx: ctx}
	id, _ := m.write(review{channel: "web-tr", email: "ayse@mail.example", author: "Ayşe Yılmaz", title: "=Harika çaydanlık",
		body: "Çok hızlı kaynatıyor.", variant: "SKU-E", product: "Çaydanlık"})
	m.setState(id, "published")
	mod := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "moderate", "export")}
	apptest.Expect(t, env.Do("POST", "/admin/v1/reviews/"+id+"/seller-response", map[string]any{"body": "Teşekkür ederiz!"}, mod), 201, "")
	// A processed photo of the review in the media store.
	r := m.get(id)
	photo := bytes.Repeat([]byte{0xff, 0xd8, 0xff}, 100)
	if err := env.App.Reviews.Media.Put(ctx, media.Key("m_exportphoto0000000000", "image-640.jpg"), bytes.NewReader(photo), int64(len(photo))); err != nil {
		t.Fatal(err)
	}
	m.tx(func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `INSERT INTO review_media (public_id, review_id, order_id, line_id, kind, type, state, position, files,
			created_at, updated_at) VALUES ('m_exportphoto0000000000', ?, ?, ?, 'image', 'image/jpeg', 'ready', 0, '{}', 0, 0)`,
			r.ID, r.OrderID, r.LineID)
	})
	// A tab or carriage return leads a formula as well as = + - @ (as in the audit
	// files): the seller response and the product name start with one.
	m.tx(func(tx *store.Tx) error {
		if err := tx.ExecForTest(ctx, `UPDATE seller_responses SET body = char(9) || '=1+2 Teşekkür ederiz!'`); err != nil {
			return err
		}
		return tx.ExecForTest(ctx, `UPDATE order_lines SET variant_key = char(13) || '@SKU-E'`)
	})

	res := o.owner.do("GET", "/admin/v1/brand-export", nil, false)
	expect(t, res, 200, "")
	if items := res.JSON["items"].([]any); len(items) != 0 {
		t.Fatalf("list before = %s", res)
	}
	expect(t, env.Do("POST", "/admin/v1/brand-export", nil, o.export), 403, "forbidden / scope_missing")
	started := o.owner.do("POST", "/admin/v1/brand-export", nil, true)
	expect(t, started, 202, "")
	xid := started.JSON["id"].(string)
	if !strings.HasPrefix(xid, "bx_") || started.JSON["expires_at"] == nil {
		t.Fatalf("started = %s", started)
	}
	var ready map[string]any
	apptest.Eventually(t, "the archive to be ready", 20*time.Second, func() (bool, string) {
		res := o.owner.do("GET", "/admin/v1/brand-export", nil, false)
		items, _ := res.JSON["items"].([]any)
		if len(items) == 1 && items[0].(map[string]any)["state"] == "ready" {
			ready = items[0].(map[string]any)
			return true, ""
		}
		return false, string(res.Body)
	})
	if ready["download_url"] != "/admin/v1/brand-export/"+xid+"/download" || ready["size"].(float64) <= 0 {
		t.Fatalf("ready = %v", ready)
	}

	dl := o.owner.do("GET", "/admin/v1/brand-export/"+xid+"/download", nil, false)
	expect(t, dl, 200, "")
	sum := sha256.Sum256(dl.Body)
	if dl.Header.Get("Content-Type") != "application/zip" || dl.Header.Get("X-Service-Fingerprint") != hex.EncodeToString(sum[:]) ||
		!strings.Contains(dl.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("download headers = %v", dl.Header)
	}
	zr, err := zip.NewReader(bytes.NewReader(dl.Body), int64(len(dl.Body)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	var man struct {
		Format   string `json:"format"`
		Datasets []struct {
			Name string `json:"name"`
			Rows int    `json:"rows"`
		} `json:"datasets"`
		MediaFiles int `json:"media_files"`
	}
	if err := json.Unmarshal([]byte(files["manifest.json"]), &man); err != nil || man.Format != "reviewd-brand-export" || man.MediaFiles != 1 {
		t.Fatalf("manifest = %s (%v)", files["manifest.json"], err)
	}
	if !strings.Contains(files["csv/reviews.csv"], "'=Harika çaydanlık") || !strings.Contains(files["csv/reviews.csv"], "Ayşe Yılmaz") ||
		!strings.Contains(files["json/reviews.jsonl"], `"title":"=Harika çaydanlık"`) ||
		!strings.Contains(files["csv/seller_responses.csv"], "'\t=1+2 Teşekkür ederiz!") || !strings.Contains(files["csv/order_lines.csv"], "'\r@SKU-E") || !strings.Contains(files["csv/channels.csv"], "web-tr") ||
		files["media/"+id+"/m_exportphoto0000000000/image-640.jpg"] != string(photo) ||
		!strings.Contains(files["csv/review_history.csv"], "seller_response_published") {
		var names []string
		for n := range files {
			names = append(names, n)
		}
		t.Fatalf("archive content: %v\nreviews.csv: %s", names, files["csv/reviews.csv"])
	}
	if bytes.Contains(dl.Body, []byte("ayse@mail.example")) {
		t.Fatal("the archive carries the customer's e-mail address")
	}
	if n := len(activityEntries(t, env, "brand_export.downloaded")); n != 1 {
		t.Fatalf("brand_export.downloaded entries = %d", n)
	}

	// A frozen brand is refused everything but signing in and the export.
	if err := env.App.Access.SetBrandState(ctx, core.Console(), "frozen"); err != nil {
		t.Fatal(err)
	}
	expect(t, o.owner.do("GET", "/admin/v1/reviews", nil, false), 403, "forbidden / brand_inactive")
	expect(t, o.owner.do("GET", "/admin/v1/brand-export/"+xid+"/download", nil, false), 200, "")

	// Not ready while building; unknown ids are not found.
	var building store.BrandExport
	m.tx(func(tx *store.Tx) error {
		var err error
		building, err = tx.CreateBrandExport(ctx, "", tx.Now.Add(time.Hour))
		return err
	})
	expect(t, o.owner.do("GET", "/admin/v1/brand-export/bx_"+strconv.FormatInt(building.ID, 10)+"/download", nil, false), 404, "not_found / export_not_ready")
	expect(t, o.owner.do("GET", "/admin/v1/brand-export/bx_999/download", nil, false), 404, "not_found / not_found")

	// Expired after 7 days; the cleanup job deletes the file and the record.
	file := filepath.Join(env.App.Config.DataDir, "exports", xid+".zip")
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	later := env.Clock.T.Add(7*24*time.Hour + time.Minute)
	env.Clock.T = later
	expect(t, o.owner.signIn("omer", ownerPassword), 200, "") // the session ended meanwhile; a frozen brand still signs in
	expect(t, o.owner.do("GET", "/admin/v1/brand-export/"+xid+"/download", nil, false), 404, "not_found / export_not_ready")
	if _, err := (jobs.Cleanup{DB: env.App.DB, Exports: env.App.Exports}).Run(ctx, later); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("expired archive still on disk: %v", err)
	}
	expect(t, o.owner.do("GET", "/admin/v1/brand-export/"+xid+"/download", nil, false), 404, "not_found / not_found")
}
