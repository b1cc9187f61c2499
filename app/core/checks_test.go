package core_test

import (
	"context"
	"encoding/json"
	"reviewd/app"
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/channels"
	"reviewd/app/core/checks"
	"reviewd/app/core/orders"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/store"
	"reviewd/store/storetest"
)

// TestTextFindings: what each check finds, and ordinary review text it leaves alone.
func TestTextFindings(t *testing.T) {
	terms := []store.Term{{ID: 7, Pattern: `rakip\s*marka`}}
	cases := []struct {
		name, lang, title, body, author string
		want                            []string // kind/field/value
	}{
		{"email", "en", "", "Write me at ayse.yilmaz@example.com please", "", []string{"personal_data/body/email"}},
		{"email spelled", "en", "", "contact: ayse (at) example.com", "", []string{"personal_data/body/email"}},
		{"phone tr", "tr", "", "Bilgi için 0532 123 45 67", "", []string{"personal_data/body/phone"}},
		{"phone intl", "en", "", "call +44 20 7946 0958", "", []string{"personal_data/body/phone"}},
		{"email in name", "en", "", "Fine.", "me@example.org", []string{"personal_data/author_name/email"}},
		{"url", "en", "", "see https://example.com/x", "", []string{"link/body/url"}},
		{"www", "en", "www.example.net is cheaper", "", "", []string{"link/title/url"}},
		{"bare domain", "tr", "", "trendyol.com'da daha ucuz", "", []string{"link/body/url"}},
		{"profanity en", "en", "", "This is SHIT quality", "", []string{"profanity/body/shit"}},
		{"profanity en prefix", "en", "", "fucking awful", "", []string{"profanity/body/fuck*"}},
		{"profanity tr", "tr", "", "SİKTİR git", "", []string{"profanity/body/siktir*"}},
		{"profanity tr ascii", "tr", "", "tam bir serefsizlik", "", []string{"profanity/body/serefsiz*"}},
		{"health en", "en", "", "It cured my arthritis", "", []string{"health_claim/body/cured"}},
		{"health phrase en", "en", "", "great for weight loss", "", []string{"health_claim/body/weight loss"}},
		{"health tr", "tr", "", "Kolesterolümü düşürdü", "", []string{"health_claim/body/kolesterol*"}},
		{"health tr phrase", "tr", "", "Bu çay kilo verdiriyor", "", []string{"health_claim/body/kilo ver*"}},
		{"brand term", "tr", "", "RAKIP   MARKA daha iyi", "", []string{"brand_term/body/term_7"}},
		{"clean tr", "tr", "Çok güzel", "Sık sık kullanıyorum, götürüp getirmesi kolay. Boksör çorabı gibi rahat. 4.5 kg, 3 yıl garanti.", "Ayşe Yılmaz", nil},
		{"clean en", "en", "Got it", "I got it yesterday; it treats my feet well, a great treat. Class act, 2.5 kg.", "Dick Smith", nil},
		{"clean numbers", "en", "", "Order 2024-05-12, size 38, 120 x 80 cm", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, err := checks.TextFindings(checks.CheckText{Title: c.title, Body: c.body, AuthorName: c.author, Language: c.lang}, terms)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				got = append(got, f.Kind+"/"+f.Field+"/"+f.Value)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestBodyHash: short texts are not compared; case, spacing and punctuation do not
// matter.
func TestBodyHash(t *testing.T) {
	if checks.BodyHash("Çok güzel, tavsiye ederim.", "tr") != "" {
		t.Fatal("short text hashed")
	}
	a := checks.BodyHash("The handle broke after two weeks of daily use, sadly.", "en")
	b := checks.BodyHash("the handle broke after two weeks   of daily use sadly", "en")
	if a == "" || a != b {
		t.Fatalf("%q %q", a, b)
	}
}

// TestPublishDecision: THE publishing rule.
func TestPublishDecision(t *testing.T) {
	for _, c := range []struct {
		method            string
		verified, flagged bool
		want              string
	}{
		{"automatic", true, false, "published"},
		{"automatic", false, false, "published"},
		{"automatic", true, true, "pending"},
		{"hybrid", true, false, "published"},
		{"hybrid", false, false, "pending"},
		{"hybrid", true, true, "pending"},
		{"manual", true, false, "pending"},
		{"", true, false, "pending"},
	} {
		if got := core.PublishDecision(c.method, c.verified, c.flagged); got != c.want {
			t.Errorf("%+v: %s", c, got)
		}
	}
}

// reviewEnv is a core over a real database with a TR channel web and one delivered,
// paid order R-1 with lines 1 and 2.
type reviewEnv struct {
	c     *kernel
	d     domain
	rv    *reviews.Service
	clock *storetest.Clock
	site  store.Channel
}

func newReviewEnv(t *testing.T) *reviewEnv {
	t.Helper()
	ctx := context.Background()
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	db := storetest.Open(t, clock)
	keys, err := core.NewKeyring(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	c := newKernel(db, keys, "http://reviewd.test")
	d := newDomain(c, app.Parts{MediaDir: t.TempDir()})
	ch, err := d.channels.CreateChannel(ctx, core.Console(), channels.NewChannel{Code: "web", Market: "TR", Language: "tr",
		Label: "Web", BrandName: "Acme", LandingURL: "https://shop.example/review#old"})
	if err != nil {
		t.Fatal(err)
	}
	line := func(ref string) orders.LineInput {
		return orders.LineInput{LineReference: ref, VariantKey: "SKU-" + ref, Title: "Product " + ref,
			FulfilmentState: "delivered", DeliveredAt: "2026-05-30T10:00:00Z"}
	}
	if _, err := d.orders.IngestOrders(ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{Channel: "web",
		ExternalID: "R-1", PaymentState: "paid", PlacedAt: "2026-05-20T10:00:00Z", CustomerEmail: "ayse@example.com",
		Items: []orders.LineInput{line("1"), line("2")}}}}); err != nil {
		t.Fatal(err)
	}
	return &reviewEnv{c: c, d: d, rv: d.reviews, clock: clock, site: ch}
}

func (e *reviewEnv) write(t *testing.T, kind string, body string, refs ...string) []reviews.WrittenReview {
	t.Helper()
	ctx := context.Background()
	var tok string
	err := e.c.DB.WithTx(ctx, func(tx *store.Tx) error {
		o, err := tx.OrderByExternalID(ctx, "R-1")
		if err != nil {
			return err
		}
		lines, _ := tx.LinesOfOrder(ctx, o.ID)
		var ids []int64
		for _, l := range lines {
			ids = append(ids, l.ID)
		}
		tok, _, err = buyer.IssueToken(ctx, tx, kind, o, ids, e.clock.T.Add(time.Hour), 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows []reviews.ReviewInput
	for _, r := range refs {
		rows = append(rows, reviews.ReviewInput{LineReference: r, Rating: json.RawMessage("4"), Body: body})
	}
	out, err := e.rv.WriteReviews(ctx, core.Console(), e.site, reviews.WriteInput{Token: tok, Reviews: rows})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNotifyRejection: a rejection queues the rejection notice with a correction
// link that opens the review for correction.
func TestNotifyRejection(t *testing.T) {
	ctx := context.Background()
	e := newReviewEnv(t)
	w := e.write(t, buyer.TokenInvitation, "Fine mug.", "1")
	r, _ := e.c.DB.Read().ReviewByPublicID(ctx, w[0].ID)
	var noticeID int64
	err := e.c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := storetest.SetReviewState(ctx, tx, r.ID, core.ReviewRejected); err != nil {
			return err
		}
		var err error
		noticeID, err = e.rv.NotifyRejection(ctx, tx, r.ID, "personal_data", "Your review contained a phone number.")
		return err
	})
	if err != nil || noticeID == 0 {
		t.Fatalf("notice %d: %v", noticeID, err)
	}
	inv, err := e.c.DB.Read().InvitationByID(ctx, noticeID)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := e.c.Keys.Decrypt(inv.PayloadEnc)
	var p struct {
		CorrectionURL string `json:"correction_url"`
		Token         string `json:"token"`
		ReasonText    string `json:"reason_text"`
	}
	_ = json.Unmarshal(raw, &p)
	if inv.Kind != "rejection" || inv.TemplateKey != "rejection:personal_data" || inv.Address != "ayse@example.com" ||
		p.CorrectionURL != "https://shop.example/review#review_token="+p.Token || p.ReasonText == "" {
		t.Fatalf("notice %+v %+v", inv, p)
	}
	view, err := e.d.buyer.OpenToken(ctx, e.site, p.Token, "")
	if err != nil || view.Mode != "revise" || view.Review.ID != r.PublicID {
		t.Fatalf("correction link: %+v %v", view, err)
	}
	// The link lasts one TR review window (180 days).
	if want := e.clock.T.AddDate(0, 0, 180); !view.ExpiresAt.Equal(want) {
		t.Fatalf("expires %v", view.ExpiresAt)
	}
}

// TestMarkReturned: product reviews of a returned line get the Returned mark once,
// with a history entry and fresh checks; process reviews get none.
func TestMarkReturned(t *testing.T) {
	ctx := context.Background()
	e := newReviewEnv(t)
	w := e.write(t, buyer.TokenInvitation, "Fine mug.", "1", "2")
	r1, _ := e.c.DB.Read().ReviewByPublicID(ctx, w[0].ID)
	r2, _ := e.c.DB.Read().ReviewByPublicID(ctx, w[1].ID)
	mark := func(lineID int64) {
		if err := e.c.DB.WithTx(ctx, func(tx *store.Tx) error {
			return e.rv.MarkReturned(ctx, tx, core.System("test"), r1.OrderID, lineID)
		}); err != nil {
			t.Fatal(err)
		}
	}
	mark(r1.LineID)
	mark(0)
	mark(0)
	for _, r := range []store.Review{r1, r2} {
		got, _ := e.c.DB.Read().ReviewByID(ctx, r.ID)
		ev, _ := e.c.DB.Read().ReviewEvents(ctx, r.ID)
		found, _ := e.c.DB.Read().ReviewChecks(ctx, r.ID)
		if got.ReturnedAt.IsZero() || len(ev) != 2 || ev[1].Event != "returned" || len(found) != 2*len(checks.CheckKinds) {
			t.Fatalf("review %d: %+v %d events %d checks", r.ID, got.ReturnedAt, len(ev), len(found))
		}
	}
}

// TestTemplateTopicsLocked: the topics of a list that reviews carry values of
// cannot change (template_assigned); its name can.
func TestTemplateTopicsLocked(t *testing.T) {
	ctx := context.Background()
	e := newReviewEnv(t)
	name := "Mugs"
	aspects := []brand.AspectDef{{Key: "handle", Kind: brand.AspectRating, Scale: 5,
		Label: map[string]string{"tr": "Kulp", "en": "Handle"},
		Steps: map[string][]string{"tr": {"1", "2", "3", "4", "5"}, "en": {"1", "2", "3", "4", "5"}}}}
	def := true
	tpl, err := e.d.brand.SaveAspectTemplate(ctx, core.Console(), brand.AspectTemplateInput{Name: &name, Aspects: &aspects, Default: &def})
	if err != nil {
		t.Fatal(err)
	}
	e.write(t, buyer.TokenInvitation, "Fine mug.", "1")
	changed := append([]brand.AspectDef(nil), aspects...)
	changed[0].Scale = 3
	changed[0].Steps = map[string][]string{"tr": {"1", "2", "3"}, "en": {"1", "2", "3"}}
	_, err = e.d.brand.SaveAspectTemplate(ctx, core.Console(), brand.AspectTemplateInput{Key: tpl.Key, Aspects: &changed})
	if ce, ok := err.(*core.Error); !ok || ce.Detail != "template_assigned" || ce.Status != 409 {
		t.Fatalf("got %v", err)
	}
	renamed := "Cups"
	if got, err := e.d.brand.SaveAspectTemplate(ctx, core.Console(), brand.AspectTemplateInput{Key: tpl.Key, Name: &renamed}); err != nil || got.Name != "Cups" || got.Reviews != 1 {
		t.Fatalf("rename: %+v %v", got, err)
	}
}

// TestMediaItemVideo: a video's item plays the MP4 and offers its poster sizes.
func TestMediaItemVideo(t *testing.T) {
	files, _ := json.Marshal(readmodel.MediaFiles{Main: "video.mp4", Poster: "video-poster.jpg", PosterWidth: 720,
		PosterRenditions: []readmodel.Rendition{{Width: 320, Name: "video-poster-320.jpg"}, {Width: 640, Name: "video-poster-640.jpg"}}})
	m := store.Media{PublicID: "m_abcdefghijklmnopqrst", Kind: "video", State: "ready", Width: 720, Height: 1280, Files: string(files)}
	item, ok := readmodel.MediaItem(m, "https://x.test/media/m_abcdefghijklmnopqrst/")
	b := "https://x.test/media/m_abcdefghijklmnopqrst/"
	if !ok || item.URL != b+"video.mp4" || item.PosterURL != b+"video-poster.jpg" ||
		item.Srcset != b+"video-poster-320.jpg 320w, "+b+"video-poster-640.jpg 640w, "+b+"video-poster.jpg 720w" {
		t.Fatalf("%+v", item)
	}
	m.State = "processing"
	if _, ok := readmodel.MediaItem(m, b); ok {
		t.Fatal("item of an unprocessed file")
	}
}

func TestDisplayAuthor(t *testing.T) {
	for _, c := range []struct {
		name string
		hide bool
		want string
	}{{"Ayşe Yılmaz", true, "A*** Y***"}, {"ömer", true, "Ö***"}, {"Ayşe Yılmaz", false, "Ayşe Yılmaz"}, {"", true, ""}} {
		if got := core.DisplayAuthor(c.name, c.hide); got != c.want {
			t.Errorf("%q %v: %q", c.name, c.hide, got)
		}
	}
}
