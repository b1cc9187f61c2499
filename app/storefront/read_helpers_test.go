package storefront_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/store"
	"reviewd/store/storetest"
)

// seedRev is a review stored directly (with its order for own reviews) and passed
// through the review-state hook, as the writing flow and moderation do. Zero
// values: market TR, variant SKU-1, rating 5, own product review, published an hour
// before the clock.
type seedRev struct {
	market, variant, group    string
	rating                    int
	title, body, author, lang string
	hide                      bool
	imported                  bool
	source, sourceURL         string
	process                   bool
	state                     string
	ago                       time.Duration
	aspects, template         string
	noProof                   bool
	incentive                 bool
}

var seedSerial atomic.Int64

// seed stores reviews and returns their public ids.
func (f *fx) seed(rs ...seedRev) []string {
	f.T.Helper()
	var ids []string
	err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		for _, s := range rs {
			if s.market == "" {
				s.market = "TR"
			}
			if s.variant == "" {
				s.variant = "SKU-1"
			}
			if s.rating == 0 {
				s.rating = 5
			}
			if s.state == "" {
				s.state = core.ReviewPublished
			}
			if s.ago == 0 {
				s.ago = time.Hour
			}
			if s.lang == "" {
				s.lang = "tr"
			}
			chans, err := tx.ListChannels(ctx)
			if err != nil {
				return err
			}
			var ch store.Channel
			for _, c := range chans {
				if c.Market == s.market {
					ch = c
				}
			}
			if ch.ID == 0 {
				return fmt.Errorf("no channel of market %s", s.market)
			}
			at := f.Clock.T.Add(-s.ago)
			r := storetest.Review(ch, reviews.NewReviewID(), s.state, at)
			r.Market, r.Language = s.market, s.lang
			r.VariantKey, r.GroupKey, r.ProductName = s.variant, s.group, "Product "+s.variant
			r.Experience, r.Origin, r.Rating, r.Title, r.Body = core.ExperienceProduct, core.OriginOwn, s.rating, s.title, s.body
			r.AuthorName, r.HideName, r.Aspects, r.AspectTemplate = s.author, s.hide, s.aspects, s.template
			r.Incentivized = s.incentive
			if s.process {
				r.Experience = core.ExperienceProcess
			}
			if s.imported {
				r.Origin, r.SourcePlatform, r.SourceName, r.SourceURL = core.OriginImported, "trendyol", s.source, s.sourceURL
			} else {
				n := seedSerial.Add(1)
				os, err := tx.UpsertOrders(ctx, []store.Order{{ChannelID: ch.ID, ExternalID: fmt.Sprintf("SEED-%d", n),
					Market: s.market, Language: s.lang, PaymentState: "paid", PlacedAt: at.Add(-72 * time.Hour),
					CustomerEmail: fmt.Sprintf("c%d@example.com", n), PaymentChangedAt: at}})
				if err != nil {
					return err
				}
				ls, err := tx.UpsertLines(ctx, []store.OrderLine{{OrderID: os[0].ID, LineReference: "1",
					VariantKey: s.variant, GroupKey: s.group, Title: r.ProductName, Quantity: 1,
					FulfilmentState: "delivered", DeliveredAt: at.Add(-24 * time.Hour), StateChangedAt: at}})
				if err != nil {
					return err
				}
				r.OrderID, r.LineID = os[0].ID, ls[0].ID
				if !s.noProof {
					r.VerificationMethod = core.VerifiedByInvite
				}
			}
			r, err = tx.CreateReview(ctx, r)
			if err != nil {
				return err
			}
			if err := f.App.Reviews.AfterReviewStateChange(ctx, tx, r.ID); err != nil {
				return err
			}
			ids = append(ids, r.PublicID)
		}
		return nil
	})
	if err != nil {
		f.T.Fatalf("seed: %v", err)
	}
	return ids
}

// moderate moves a review to state through the review-state hook, as moderation
// does.
func (f *fx) moderate(id, state string) {
	f.T.Helper()
	r := f.review(id)
	err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := storetest.SetReviewState(ctx, tx, r.ID, state); err != nil {
			return err
		}
		return f.App.Reviews.AfterReviewStateChange(ctx, tx, r.ID)
	})
	if err != nil {
		f.T.Fatal(err)
	}
}

// list calls GET /v1/reviews/list from the store page with the site key and the
// given parameters ("product=SKU-1&rating=5").
func (f *fx) list(query string) apptest.Response {
	f.T.Helper()
	return f.Do("GET", "/v1/reviews/list?key="+url.QueryEscape(f.site)+"&"+query, nil,
		map[string]string{"Origin": "https://shop.example"})
}

// mustList is list with a 200 answer.
func (f *fx) mustList(query string) map[string]any {
	f.T.Helper()
	res := f.list(query)
	if res.Status != 200 {
		f.T.Fatalf("list %s: %d %s", query, res.Status, res.Body)
	}
	return res.JSON
}

// ids lists the review ids of a list answer in order.
func ids(list map[string]any) []string {
	var out []string
	for _, r := range list["reviews"].([]any) {
		out = append(out, r.(map[string]any)["id"].(string))
	}
	return out
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func wantIDs(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("ids %v, want %v", got, want)
	}
}

// channel adds a channel of market with a site key for shop.example and returns the
// key.
func (f *fx) channel(code, market, lang string) string {
	f.T.Helper()
	f.Channel(code, market, lang)
	return f.Key("site", code)
}

// listWith calls GET /v1/reviews/list with another site key.
func (f *fx) listWith(site, query string) map[string]any {
	f.T.Helper()
	res := f.Do("GET", "/v1/reviews/list?key="+url.QueryEscape(site)+"&"+query, nil,
		map[string]string{"Origin": "https://shop.example"})
	if res.Status != 200 {
		f.T.Fatalf("list %s: %d %s", query, res.Status, res.Body)
	}
	return res.JSON
}

// settings changes brand settings.
func (f *fx) settings(fields map[string]any) {
	f.T.Helper()
	raw := map[string]json.RawMessage{}
	for k, v := range fields {
		b, _ := json.Marshal(v)
		raw[k] = b
	}
	if _, err := f.App.Brand.UpdateSettings(ctx, core.Console(), raw); err != nil {
		f.T.Fatal(err)
	}
}

// addMedia attaches a ready photo (or a media item in another state) to a review
// and runs the review-state hook, as the media job does; it returns the media id.
func (f *fx) addMedia(reviewID, state string) string {
	f.T.Helper()
	r := f.review(reviewID)
	id := reviews.NewMediaID()
	files := `{"main":"image.jpg","renditions":[{"w":320,"name":"image-320.jpg"},{"w":640,"name":"image-640.jpg"}]}`
	err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.CreateMedia(ctx, store.Media{PublicID: id, ReviewID: r.ID, OrderID: r.OrderID, LineID: r.LineID,
			Kind: "image", Type: "jpeg", State: state, Width: 1000, Height: 800, Files: files, AltText: "Mug"}); err != nil {
			return err
		}
		return f.App.Reviews.AfterReviewStateChange(ctx, tx, r.ID)
	})
	if err != nil {
		f.T.Fatal(err)
	}
	return id
}

// voteFrom posts a helpful vote from a visitor at address ip.
func (f *fx) voteFrom(ip, id string, body any) apptest.Response {
	f.T.Helper()
	h := f.browser()
	h["X-Forwarded-For"] = ip
	return f.Do("POST", "/v1/reviews/"+id+"/helpful", body, h)
}

// vote posts a helpful vote from the store page.
func (f *fx) vote(id string, body any) apptest.Response {
	f.T.Helper()
	return f.post("/v1/reviews/"+id+"/helpful", body)
}
