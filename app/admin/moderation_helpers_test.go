package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"mime/multipart"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/store"
	"reviewd/store/storetest"
)

// modEnv is an installation with the manual publishing method (written reviews
// wait for a moderator), channels web (TR) and web-gb (GB), and API keys with the
// moderate, read, export and moderate+export scopes.
type modEnv struct {
	t      *testing.T
	env    *apptest.Env
	ctx    context.Context
	mod    map[string]string
	read   map[string]string
	export map[string]string
	all    map[string]string
	n      int
}

func newModEnv(t *testing.T) *modEnv {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	env.Channel("web-gb", "GB", "en")
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

// review describes a review written through an order.
type review struct {
	channel, email, title, body, author, variant, product string
	hide                                                  bool
	media                                                 []string
}

// order ingests a paid order of one delivered line L1 and returns its number.
func (m *modEnv) order(rv review) string {
	m.t.Helper()
	m.n++
	ext := fmt.Sprintf("MO-%03d", m.n)
	now := m.env.Clock.T
	_, err := m.env.App.Orders.IngestOrders(m.ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{
		Channel: rv.channel, ExternalID: ext, PaymentState: "paid", PlacedAt: now.Add(-10 * 24 * time.Hour).Format(time.RFC3339),
		CustomerEmail: rv.email, Items: []orders.LineInput{{LineReference: "L1", VariantKey: rv.variant, GroupKey: "G-" + rv.variant,
			Title: rv.product, FulfilmentState: "delivered", DeliveredAt: now.Add(-48 * time.Hour).Format(time.RFC3339)}}}}})
	if err != nil {
		m.t.Fatal(err)
	}
	return ext
}

// token issues a product-invitation token for line L1 of order ext (link form).
func (m *modEnv) token(ext string) string {
	m.t.Helper()
	var tok string
	err := m.env.App.DB.WithTx(m.ctx, func(tx *store.Tx) error {
		o, err := tx.OrderByExternalID(m.ctx, ext)
		if err != nil {
			return err
		}
		lines, err := tx.LinesOfOrder(m.ctx, o.ID)
		if err != nil {
			return err
		}
		plain, _, err := buyer.IssueToken(m.ctx, tx, buyer.TokenInvitation, o, []int64{lines[0].ID}, m.env.Clock.T.Add(30*24*time.Hour), 0)
		tok = m.env.App.Buyer.TagToken(plain)
		return err
	})
	if err != nil {
		m.t.Fatal(err)
	}
	return tok
}

// write writes a review of a new order and returns its id and order number.
func (m *modEnv) write(rv review) (string, string) {
	m.t.Helper()
	if rv.channel == "" {
		rv.channel = "web"
	}
	if rv.email == "" {
		rv.email = "buyer@mail.example"
	}
	if rv.variant == "" {
		rv.variant = "SKU-1"
	}
	if rv.product == "" {
		rv.product = "Kettle"
	}
	if rv.body == "" {
		rv.body = "Boils water fast."
	}
	ext := m.order(rv)
	return m.writeFor(ext, rv), ext
}

func (m *modEnv) writeFor(ext string, rv review) string {
	m.t.Helper()
	site := m.channel(rv.channel)
	in := reviews.ReviewInput{LineReference: "L1", Rating: json.RawMessage("4"), Title: rv.title, Body: rv.body, Media: rv.media}
	if rv.author != "" {
		in.AuthorName = &rv.author
	}
	if rv.hide {
		in.HideName = json.RawMessage("true")
	}
	out, err := m.env.App.Reviews.WriteReviews(m.ctx, &core.Actor{Via: core.ViaSiteKey}, site, reviews.WriteInput{Token: m.token(ext),
		Reviews: []reviews.ReviewInput{in}})
	if err != nil {
		m.t.Fatal(err)
	}
	return out[0].ID
}

func (m *modEnv) channel(code string) store.Channel {
	m.t.Helper()
	ch, err := m.env.App.DB.Read().ChannelByCode(m.ctx, code)
	if err != nil {
		m.t.Fatal(err)
	}
	return ch
}

// raw stores a review directly (no order): for bulk and imported fixtures.
func (m *modEnv) raw(channel, state string, mods ...func(*store.Review)) string {
	m.t.Helper()
	ch := m.channel(channel)
	r := storetest.Review(ch, reviews.NewReviewID(), state, m.env.Clock.T)
	r.VariantKey, r.ProductName, r.Experience, r.Origin = "SKU-RAW", "Raw product", core.ExperienceProduct, core.OriginOwn
	r.Rating, r.Body, r.AuthorName = 3, "Stored directly.", "Raw Author"
	for _, f := range mods {
		f(&r)
	}
	return storetest.CreateReview(m.t, m.env.App.DB, r).PublicID
}

func (m *modEnv) get(id string) store.Review {
	m.t.Helper()
	r, err := m.env.App.DB.Read().ReviewByPublicID(m.ctx, id)
	if err != nil {
		m.t.Fatalf("review %s: %v", id, err)
	}
	return r
}

// tx runs fn in a write transaction.
func (m *modEnv) tx(fn func(tx *store.Tx) error) {
	m.t.Helper()
	if err := m.env.App.DB.WithTx(m.ctx, fn); err != nil {
		m.t.Fatal(err)
	}
}

// setState moves a review directly.
func (m *modEnv) setState(id, state string) {
	m.t.Helper()
	r := m.get(id)
	m.tx(func(tx *store.Tx) error { return storetest.SetReviewState(m.ctx, tx, r.ID, state) })
}

// anonymize marks a review as erased (as a personal-data request does).
func (m *modEnv) anonymize(id string) {
	m.t.Helper()
	m.tx(func(tx *store.Tx) error {
		return tx.ExecForTest(m.ctx, `UPDATE reviews SET anonymized_at = ? WHERE public_id = ?`, store.Ms(tx.Now), id)
	})
}

// report adds an open visitor report.
func (m *modEnv) report(id, reason, visitor string) {
	m.t.Helper()
	r := m.get(id)
	m.tx(func(tx *store.Tx) error {
		_, err := tx.CreateReport(m.ctx, store.Report{PublicID: "rep_" + visitor + r.PublicID[2:8], ReviewID: r.ID,
			ChannelID: r.ChannelID, Reason: reason, Visitor: visitor})
		return err
	})
}

func (m *modEnv) do(method, path string, body any, h map[string]string) apptest.Response {
	m.t.Helper()
	return m.env.Do(method, path, body, h)
}

func (m *modEnv) transition(id, event, reason string) apptest.Response {
	m.t.Helper()
	return m.do("POST", "/admin/v1/reviews/"+id+"/transition", map[string]any{"event": event, "reason": reason}, m.mod)
}

func (m *modEnv) history(id string) []store.ReviewEvent {
	m.t.Helper()
	ev, err := m.env.App.DB.Read().ReviewEvents(m.ctx, m.get(id).ID)
	if err != nil {
		m.t.Fatal(err)
	}
	return ev
}

func (m *modEnv) accessLog(action string) []store.Access {
	m.t.Helper()
	list, _, err := m.env.App.DB.Read().ListAccess(m.ctx, store.AccessFilter{Action: action})
	if err != nil {
		m.t.Fatal(err)
	}
	return list
}

// upload posts a photo for line L1 of order ext through the storefront and
// returns the media id.
func (m *modEnv) upload(ext string, photo []byte) string {
	m.t.Helper()
	return m.uploadWith(m.token(ext), m.env.Key("site", "web"), photo)
}

// uploadWith posts a photo for line L1 with a writing token and a site key.
func (m *modEnv) uploadWith(token, site string, photo []byte) string {
	m.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("token", token)
	_ = mw.WriteField("line_reference", "L1")
	w, _ := mw.CreateFormFile("file", "photo.jpg")
	_, _ = w.Write(photo)
	_ = mw.Close()
	res := m.do("POST", "/v1/media", buf.Bytes(), map[string]string{"X-Service-Site-Key": site, "Origin": "https://shop.example",
		"Content-Type": mw.FormDataContentType()})
	if res.Status != 201 {
		m.t.Fatalf("upload: want 201, got %s", res)
	}
	return res.JSON["id"].(string)
}

func (m *modEnv) runMedia() {
	m.t.Helper()
	if _, err := m.env.App.Reviews.ProcessMedia(m.ctx, m.env.Clock.T, 50); err != nil {
		m.t.Fatal(err)
	}
}

// photo encodes a w x h JPEG.
func photo(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func items(res apptest.Response) []map[string]any {
	var out []map[string]any
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func strs(v any) []string {
	out := []string{}
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
