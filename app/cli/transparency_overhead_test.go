package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/reviews"
	"reviewd/app/core/transparency"
	"reviewd/store"
	"reviewd/store/storetest"
)

// noAppend is the transparency log without its append: receipts still work, no
// decision is logged. It exists only here, to measure what logging costs.
type noAppend struct{ *transparency.Service }

func (noAppend) Append(context.Context, *store.Tx, transparency.Decision) error { return nil }

// TestTransparencyOverhead measures what the log's append adds to a moderator's
// approval through the admin API and to writing reviews that the automatic
// publishing method publishes at once (POST /v1/reviews), over HTTP on a real
// server, with and without the append (docs/transparency.md; not run in CI):
//
//	REVIEWD_TRANSPARENCY_OVERHEAD=1 go test -count=1 -v -timeout 30m -run TestTransparencyOverhead ./app/cli/
//
// Requests alternate between the two, one with the log and one without, so that
// the load of a shared machine falls on both alike; the figures are the median
// time of a request and the median CPU time per request over rounds of 100
// (this process: server and client), which the load of other processes does not
// inflate.
func TestTransparencyOverhead(t *testing.T) {
	if os.Getenv("REVIEWD_TRANSPARENCY_OVERHEAD") != "1" {
		t.Skip("set REVIEWD_TRANSPARENCY_OVERHEAD=1 to measure the log's overhead")
	}
	const rounds, per = 40, 100
	f := newLogFx(t)
	f.NoLimits() // thousands of requests from one key and one address
	logged := f.App.Reviews.Decisions
	unlogged := noAppend{f.App.Transparency}
	mod := map[string]string{"Authorization": "Api-Key " + f.Key("api", "", "moderate")}
	server := f.Key("server", "web")
	site := f.Key("site", "web")
	if _, err := f.App.Brand.UpdateSettings(bg, core.Console(), map[string]json.RawMessage{
		"publishing_method": json.RawMessage(`"automatic"`)}); err != nil {
		t.Fatal(err)
	}

	// Pending reviews to approve and orders with tokens to write with, for every round.
	n := rounds * per
	var pending []string
	err := f.App.DB.WithTx(bg, func(tx *store.Tx) error {
		for i := range n {
			r := storetest.Review(f.ch, reviews.NewReviewID(), core.ReviewPending, tx.Now)
			r.Rating, r.VariantKey, r.Title, r.Body = 1+i%5, fmt.Sprintf("SKU-%d", i%50), "Fine", "Does the job."
			r.Experience, r.Origin = core.ExperienceProduct, core.OriginOwn
			r, err := tx.CreateReview(bg, r)
			if err != nil {
				return err
			}
			// Written through POST /v1/reviews, it got its salt with its receipt.
			if _, err := f.App.Transparency.Receipt(bg, tx, r.ID); err != nil {
				return err
			}
			pending = append(pending, r.PublicID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b < n/100; b++ {
		var orders []string
		for i := range 100 {
			orders = append(orders, fmt.Sprintf(`{"external_id":"O-%d","payment_state":"paid","placed_at":%q,"customer_email":"w%d@example.com",`+
				`"items":[{"line_reference":"1","variant_key":"SKU-%d","title":"Mug","fulfilment_state":"delivered","delivered_at":%q}]}`,
				b*100+i, f.Clock.T.Add(-12*24*time.Hour).Format(time.RFC3339), b*100+i, i%50, f.Clock.T.Add(-48*time.Hour).Format(time.RFC3339)))
		}
		res := f.Do("POST", "/v1/ingest/orders", json.RawMessage(`{"channel":"web","orders":[`+strings.Join(orders, ",")+`]}`),
			map[string]string{"Authorization": "Bearer " + server})
		if res.Status != 200 {
			t.Fatalf("ingest: %s", res)
		}
	}
	var tokens []string
	err = f.App.DB.WithTx(bg, func(tx *store.Tx) error {
		for i := range n {
			o, err := tx.OrderByExternalID(bg, fmt.Sprintf("O-%d", i))
			if err != nil {
				return err
			}
			lines, err := tx.LinesOfOrder(bg, o.ID)
			if err != nil {
				return err
			}
			tok, _, err := buyer.IssueToken(bg, tx, buyer.TokenInvitation, o, []int64{lines[0].ID}, f.Clock.T.Add(30*24*time.Hour), 0)
			if err != nil {
				return err
			}
			tokens = append(tokens, tok)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	approve := func(i int) {
		res := f.Do("POST", "/admin/v1/reviews/"+pending[i]+"/transition", map[string]any{"event": "approve"}, mod)
		if res.Status != 200 {
			t.Fatalf("approve: %s", res)
		}
	}
	write := func(i int) {
		res := f.Do("POST", "/v1/reviews", map[string]any{"token": tokens[i], "reviews": []any{map[string]any{"line_reference": "1",
			"rating": 1 + i%5, "title": "Nice", "body": "Does what it should."}}},
			map[string]string{"X-Service-Site-Key": site, "Origin": "https://shop.example"})
		if res.Status != 201 || !strings.Contains(string(res.Body), `"published"`) {
			t.Fatalf("write: %s", res)
		}
	}
	for _, c := range []struct {
		what string
		do   func(int)
	}{{"approval through the admin API", approve}, {"POST /v1/reviews, published automatically", write}} {
		var with, without, cpuWith, cpuWithout []time.Duration
		for r := range rounds {
			c0, c1 := time.Duration(0), time.Duration(0)
			for i := r * per; i < (r+1)*per; i++ {
				on := i%2 == 0
				if on {
					f.App.Reviews.Decisions = logged
				} else {
					f.App.Reviews.Decisions = unlogged
				}
				u0, t0 := cpuTime(), time.Now()
				c.do(i)
				d, u := time.Since(t0), cpuTime()-u0
				if on {
					with, c0 = append(with, d), c0+u
				} else {
					without, c1 = append(without, d), c1+u
				}
			}
			cpuWith, cpuWithout = append(cpuWith, c0/(per/2)), append(cpuWithout, c1/(per/2))
		}
		f.App.Reviews.Decisions = logged
		mw, mo := median(with), median(without)
		t.Logf("%s: median %s with the log, %s without: %+.1f %%", c.what, mw.Round(time.Microsecond), mo.Round(time.Microsecond),
			100*(float64(mw)-float64(mo))/float64(mo))
		cw, co := median(cpuWith), median(cpuWithout)
		t.Logf("%s: CPU of the process (server and client) per request, median of the rounds: %s with the log, %s without: %+.1f %%",
			c.what, cw.Round(time.Microsecond), co.Round(time.Microsecond), 100*(float64(cw)-float64(co))/float64(co))
	}
	if size, _ := f.App.DB.Read().TransparencySize(bg); size != int64(n) {
		t.Fatalf("log size %d, want %d (the logged half of each)", size, n)
	}
}

// cpuTime is the user and system CPU time this process has used: unlike the
// wall time of a request, it does not grow with the load of other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}
