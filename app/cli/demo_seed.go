package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io/fs"
	"math"
	"strconv"
	"time"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orders"
	"reviewd/app/core/qa"
	"reviewd/app/core/reviews"
	"reviewd/app/core/votes"
	"reviewd/assets"
	"reviewd/jobs"
	"reviewd/store"
)

// The demo brand's content: products, delivered orders, reviews with photos and
// helpful votes, and questions with answers. Everything goes through the same core
// functions the HTTP endpoints call (order ingest, order check, media upload, review
// writing, the media job, votes, questions and answers), so the demo shows exactly
// what a real store would see. Review and answer times are the time of seeding: the
// write paths stamp them with the transaction clock.

// demoItem is one product variant the demo brand sells in every channel.
type demoItem struct {
	key, group string
	title      map[string]string // by language
	palette    [3]color.RGBA     // photo colours
}

// demoPage is one product page of the demo: a variant, or a group of variants.
type demoPage struct {
	code, scope string
	title       map[string]string
}

var demoItems = []demoItem{
	{key: "demo-mug-blue", title: bi("Mavi Sırlı Kupa", "Blue Glaze Mug"),
		palette: [3]color.RGBA{{24, 70, 150, 255}, {120, 190, 235, 255}, {250, 245, 235, 255}}},
	{key: "demo-mug-speckled", title: bi("Benekli Taş Kupa", "Speckled Stoneware Mug"),
		palette: [3]color.RGBA{{232, 220, 196, 255}, {150, 128, 104, 255}, {70, 60, 52, 255}}},
	{key: "demo-tshirt-s", group: "demo-tshirt", title: bi("Organik Pamuk Tişört, S beden", "Organic Cotton T-shirt, size S"),
		palette: [3]color.RGBA{{86, 110, 72, 255}, {214, 204, 150, 255}, {245, 240, 225, 255}}},
	{key: "demo-tshirt-m", group: "demo-tshirt", title: bi("Organik Pamuk Tişört, M beden", "Organic Cotton T-shirt, size M"),
		palette: [3]color.RGBA{{60, 66, 84, 255}, {160, 176, 200, 255}, {240, 240, 245, 255}}},
	{key: "demo-candle", title: bi("İncir ve Sedir Mum", "Fig & Cedar Candle"),
		palette: [3]color.RGBA{{110, 40, 36, 255}, {242, 170, 76, 255}, {255, 236, 180, 255}}},
}

var demoPages = []demoPage{
	{code: "demo-mug-blue", scope: store.ScopeVariant, title: bi("Mavi Sırlı Kupa", "Blue Glaze Mug")},
	{code: "demo-mug-speckled", scope: store.ScopeVariant, title: bi("Benekli Taş Kupa", "Speckled Stoneware Mug")},
	{code: "demo-tshirt", scope: store.ScopeGroup, title: bi("Organik Pamuk Tişört", "Organic Cotton T-shirt")},
	{code: "demo-candle", scope: store.ScopeVariant, title: bi("İncir ve Sedir Mum", "Fig & Cedar Candle")},
}

func bi(tr, en string) map[string]string { return map[string]string{"tr": tr, "en": en} }

func demoItemByKey(key string) demoItem {
	for _, it := range demoItems {
		if it.key == key {
			return it
		}
	}
	panic("demo: unknown item " + key)
}

// demoReview is one review a demo customer writes (assets/templates/demo/
// content.json). Name "" is an anonymous review; Photos is how many pictures the
// customer uploads; Votes how many visitors find it helpful; Aspects are the rating
// topics' values (fit 3 is true to size). A review whose text the automatic checks
// flag (a link) waits for a moderator.
type demoReview struct {
	Item          string
	Rating        int
	Title, Body   string
	Name          string
	Hide          bool
	Aspects       map[string]int
	Photos, Votes int
}

// demoQuestion is a visitor's question with the brand's and a buyer's answer (either
// may be empty). A question with a phone number waits for approval.
type demoQuestion struct {
	Product, Scope string
	Name           string
	Hide           bool
	Body           string
	Brand          string
	Buyer          string
	BuyerName      string
}

// demoContent is the demo's own content, read once at start from
// assets/templates/demo/content.json: the store's copy per product and language
// ({price, description}), the reviews and questions per language, and the reviews
// that wait in the moderation queue (written while publishing is manual).
var demoContent = func() (c struct {
	Copy             map[string]map[string][2]string
	Reviews, Waiting map[string][]demoReview
	Questions        map[string][]demoQuestion
}) {
	b, err := fs.ReadFile(assets.Templates(), "demo/content.json")
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		panic("demo: content.json: " + err.Error()) // embedded at build time
	}
	return c
}()

var (
	demoCopy      = demoContent.Copy
	demoReviews   = demoContent.Reviews
	demoWaiting   = demoContent.Waiting
	demoQuestions = demoContent.Questions
)

// demoProduct is one product page of the demo as demo.json keeps it.
type demoProduct struct {
	Code    string `json:"code"`
	Scope   string `json:"scope"`
	Channel string `json:"channel"`
	Market  string `json:"market"`
	Title   string `json:"title"`
}

// demoChannelState is what seeding one channel needs along the way.
type demoChannelState struct {
	dc        demoChannel
	ch        store.Channel
	site      *core.Actor
	tokens    map[string]string // order-check token by customer name (kept for answers)
	reviewIDs []string
}

// seedDemoContent fills the demo brand: settings, rating topics, then per channel
// delivered orders, reviews with photos, the media job, helpful votes, and questions
// with answers. It adds the product pages to info.
func seedDemoContent(ctx context.Context, a *app.App, info *demoInfo) error {
	c, console := a.Clock, core.Console()
	if _, err := a.Brand.UpdateSettings(ctx, console, map[string]json.RawMessage{
		"questions_enabled": json.RawMessage(`true`), "publishing_method": json.RawMessage(`"` + core.PublishAutomatic + `"`),
	}); err != nil {
		return demoErr("settings", err)
	}
	apparel := []brand.TemplateProduct{{Scope: store.ScopeGroup, Key: "demo-tshirt"}}
	if _, err := a.Brand.SaveAspectTemplate(ctx, console, brand.AspectTemplateInput{Key: "apparel", Products: &apparel}); err != nil {
		return demoErr("rating topics", err)
	}
	var states []*demoChannelState
	for i, dc := range info.Channels {
		st, err := seedDemoChannel(ctx, a, dc)
		if err != nil {
			return err
		}
		info.Channels[i].TryOrder, info.Channels[i].TryEmail = st.dc.TryOrder, st.dc.TryEmail
		states = append(states, st)
		for _, p := range demoPages {
			info.Catalog = append(info.Catalog, demoProduct{Code: p.code, Scope: p.scope, Channel: dc.Code, Market: dc.Market,
				Title: p.title[dc.Language]})
		}
	}
	// The media job prepares the photos (metadata-free JPEGs and renditions).
	summary, err := jobs.Media{Reviews: a.Reviews}.Run(ctx, c.Now())
	if err != nil {
		return demoErr("media", err)
	}
	a.Log.Info("demo photos processed", "result", summary)
	for _, st := range states {
		if err := seedDemoQuestions(ctx, a, st); err != nil {
			return err
		}
		if err := seedDemoWaiting(ctx, a, st); err != nil {
			return err
		}
	}
	return nil
}

// seedDemoChannel ingests the channel's delivered orders and writes their reviews
// with the order check, as a customer on the store page would.
func seedDemoChannel(ctx context.Context, a *app.App, dc demoChannel) (*demoChannelState, error) {
	c := a.Clock
	srv, _, err := a.Access.LookupKey(ctx, dc.ServerKey)
	if err != nil {
		return nil, demoErr("server key", err)
	}
	acc, err := a.Access.VerifySiteKey(ctx, dc.SiteKey, "http://localhost", "", true)
	if err != nil {
		return nil, demoErr("site key", err)
	}
	st := &demoChannelState{dc: dc, ch: acc.Channel, site: access.KeyActor(acc.Key, core.ViaSiteKey), tokens: map[string]string{}}
	reviews := demoReviews[dc.Language]
	now := c.Now()
	req := orders.OrderRequest{Channel: dc.Code, Batch: true}
	for i, r := range reviews {
		it := demoItemByKey(r.Item)
		delivered := now.Add(-time.Duration(2+(i*7)%26)*24*time.Hour - time.Duration(i%9)*time.Hour)
		req.Orders = append(req.Orders, orders.OrderInput{
			ExternalID: demoOrderID(dc, i), PaymentState: core.PaymentPaid, PlacedAt: delivered.Add(-72 * time.Hour).Format(time.RFC3339),
			CustomerEmail: demoEmail(dc, i), Language: dc.Language,
			Items: []orders.LineInput{{LineReference: "1", VariantKey: it.key, GroupKey: it.group, CatalogID: it.key,
				Title: it.title[dc.Language], FulfilmentState: core.LineDelivered, DeliveredAt: delivered.Format(time.RFC3339)}},
		})
	}
	// One more delivered order that gets no review: the order to try the writing flow with.
	try := demoItemByKey("demo-mug-speckled")
	st.dc.TryOrder, st.dc.TryEmail = demoOrderID(dc, len(reviews)), demoEmail(dc, len(reviews))
	delivered := now.Add(-24 * time.Hour)
	req.Orders = append(req.Orders, orders.OrderInput{
		ExternalID: st.dc.TryOrder, PaymentState: core.PaymentPaid, PlacedAt: delivered.Add(-72 * time.Hour).Format(time.RFC3339),
		CustomerEmail: st.dc.TryEmail, Language: dc.Language,
		Items: []orders.LineInput{{LineReference: "1", VariantKey: try.key, GroupKey: try.group, CatalogID: try.key,
			Title: try.title[dc.Language], FulfilmentState: core.LineDelivered, DeliveredAt: delivered.Format(time.RFC3339)}},
	})
	if _, err := a.Orders.IngestOrders(ctx, access.KeyActor(srv, core.ViaServerKey), req); err != nil {
		return nil, demoErr("orders", err)
	}
	for i, r := range reviews {
		id, err := seedDemoReview(ctx, a, st, i, r)
		if err != nil {
			return nil, err
		}
		st.reviewIDs = append(st.reviewIDs, id)
	}
	return st, nil
}

func demoOrderID(dc demoChannel, i int) string { return dc.Market + "-" + strconv.Itoa(10401+i*7) }

func demoEmail(dc demoChannel, i int) string {
	return fmt.Sprintf("customer%02d.%s@example.com", i+1, dc.Code)
}

// seedDemoReview writes review i of the channel: the order check, photo uploads,
// the review itself and its helpful votes (once published).
func seedDemoReview(ctx context.Context, a *app.App, st *demoChannelState, i int, r demoReview) (string, error) {
	el, err := a.Buyer.CheckEligibility(ctx, st.site, st.ch, buyer.EligibilityInput{Order: demoOrderID(st.dc, i),
		Email: demoEmail(st.dc, i), Language: st.dc.Language})
	if err != nil {
		return "", demoErr("order check", err)
	}
	if r.Name != "" {
		st.tokens[r.Name] = el.Token
	}
	var media []string
	for p := 0; p < r.Photos; p++ {
		id, err := demoUpload(ctx, a, st, el.Token, demoItemByKey(r.Item), i*3+p)
		if err != nil {
			return "", err
		}
		if id != "" {
			media = append(media, id)
		}
	}
	row := reviews.ReviewInput{LineReference: "1", Rating: json.RawMessage(strconv.Itoa(r.Rating)), Title: r.Title, Body: r.Body,
		Media: media, HideName: json.RawMessage(strconv.FormatBool(r.Hide)), Aspects: map[string]json.RawMessage{}}
	if r.Name != "" {
		name := r.Name
		row.AuthorName = &name
	}
	for k, v := range r.Aspects {
		row.Aspects[k] = json.RawMessage(strconv.Itoa(v))
	}
	out, err := a.Reviews.WriteReviews(ctx, st.site, st.ch, reviews.WriteInput{Token: el.Token, Language: st.dc.Language,
		Reviews: []reviews.ReviewInput{row}})
	if err != nil {
		return "", demoErr("review", err)
	}
	w := out[0]
	if w.State != core.ReviewPublished {
		return w.ID, nil
	}
	for v := 0; v < r.Votes; v++ {
		if _, err := a.Votes.VoteHelpful(ctx, st.site, st.ch, w.ID, votes.VoteInput{Vote: votes.VoteUp,
			VisitorKey: "demo-visitor-" + strconv.Itoa(v+1)}); err != nil {
			return "", demoErr("helpful vote", err)
		}
	}
	return w.ID, nil
}

// demoUpload uploads one generated photo for the order's line through the same
// functions as POST /v1/media. A refusal (a virus scanner that cannot be reached,
// for one) leaves the review without that photo.
func demoUpload(ctx context.Context, a *app.App, st *demoChannelState, token string, it demoItem, n int) (string, error) {
	file, err := a.Reviews.ReceiveUpload(bytes.NewReader(demoPhoto(it.palette, n)))
	if err != nil {
		return "", demoErr("photo", err)
	}
	up, err := a.Reviews.UploadMedia(ctx, st.site, st.ch, reviews.UploadInput{Token: token, LineReference: "1", File: file})
	var ce *core.Error
	if errors.As(err, &ce) {
		a.Log.Warn("demo photo not uploaded", "code", ce.Code, "detail", ce.Detail)
		return "", nil
	}
	if err != nil {
		return "", demoErr("photo", err)
	}
	return up.ID, nil
}

// seedDemoQuestions asks the channel's questions as visitors, then answers them as
// the brand (the panel's brand answer) and as buyers (with the order-check token of
// a customer who bought the product).
func seedDemoQuestions(ctx context.Context, a *app.App, st *demoChannelState) error {
	console := core.Console()
	for _, q := range demoQuestions[st.dc.Language] {
		asked, err := a.QA.AskQuestion(ctx, st.site, st.ch, qa.QuestionInput{Product: q.Product, Scope: q.Scope, Name: q.Name,
			Body: q.Body, HideName: json.RawMessage(strconv.FormatBool(q.Hide)), Language: st.dc.Language})
		if err != nil {
			return demoErr("question", err)
		}
		if asked.State != qa.QAPublished {
			continue // held by the checks: waits for a moderator
		}
		if q.Brand != "" {
			if _, err := a.QA.AnswerAsBrand(ctx, console, asked.ID, qa.BrandAnswerInput{Body: q.Brand}); err != nil {
				return demoErr("brand answer", err)
			}
		}
		if q.Buyer != "" {
			tok, ok := st.tokens[q.BuyerName]
			if !ok {
				return fmt.Errorf("demo: no order of %s", q.BuyerName)
			}
			if _, err := a.QA.AnswerQuestion(ctx, st.site, st.ch, asked.ID, tok, qa.AnswerInput{Body: q.Buyer,
				Name: q.BuyerName, HideName: json.RawMessage(`true`), Language: st.dc.Language}); err != nil {
				return demoErr("buyer answer", err)
			}
		}
	}
	return nil
}

// demoPhoto draws a 960x720 JPEG: a diagonal gradient between the product's first
// two colours with a soft disc of the third, placed differently for each n.
func demoPhoto(p [3]color.RGBA, n int) []byte {
	const w, h = 960, 720
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	cx := float64(w) * (0.3 + 0.4*float64((n*37)%10)/10)
	cy := float64(h) * (0.35 + 0.3*float64((n*53)%10)/10)
	radius := float64(h) * (0.22 + 0.05*float64(n%3))
	mix := func(a, b uint8, t float64) uint8 { return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t)) }
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			t := (float64(x)/w + float64(y)/h) / 2
			if n%2 == 1 {
				t = 1 - t
			}
			r, g, b := mix(p[0].R, p[1].R, t), mix(p[0].G, p[1].G, t), mix(p[0].B, p[1].B, t)
			d := math.Hypot(float64(x)-cx, float64(y)-cy) / radius
			if d < 1.15 {
				s := 0.85
				if d > 1 {
					s = 0.85 * (1.15 - d) / 0.15 // soft edge
				}
				r, g, b = mix(r, p[2].R, s), mix(g, p[2].G, s), mix(b, p[2].B, s)
			}
			img.SetRGBA(x, y, color.RGBA{r, g, b, 255})
		}
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
	return buf.Bytes()
}
