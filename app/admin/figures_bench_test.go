package admin_test

import (
	"context"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/store"
)

// TestFiguresBench measures GET /admin/v1/metrics, /admin/v1/insights and
// /admin/v1/overview over HTTP with an API key on a data folder holding
// REVIEWD_BENCH_SEED reviews (default 1,000,000) over two years, three channels in
// three markets and 20,000 products, with 40 % as many sent invitations, photos on a
// fifth of the published reviews, product words for the topics and transfer
// requests. The rows go in through SQL, so the triggers build the figures exactly as
// the product's writes do. Skipped unless REVIEWD_BENCH_INSIGHTS=1:
//
//	REVIEWD_BENCH_INSIGHTS=1 go test -count=1 -run TestFiguresBench -v -timeout 30m ./app/admin/
func TestFiguresBench(t *testing.T) {
	if os.Getenv("REVIEWD_BENCH_INSIGHTS") != "1" {
		t.Skip("set REVIEWD_BENCH_INSIGHTS=1 to measure the figures endpoints")
	}
	n := 1000000
	if v, err := strconv.Atoi(os.Getenv("REVIEWD_BENCH_SEED")); err == nil && v > 0 {
		n = v
	}
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web-tr", "TR", "tr")
	env.Channel("web-gb", "GB", "en")
	env.Channel("web-de", "DE", "en")
	env.NoLimits()
	ctx := context.Background()
	now := env.Clock.T
	start := now.Add(-730 * 24 * time.Hour)
	span := now.Sub(start).Milliseconds()
	began := time.Now()
	const batch = 50000
	exec := func(query string, args ...any) {
		t.Helper()
		if err := env.App.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.ExecForTest(ctx, query, args...) }); err != nil {
			t.Fatal(err)
		}
	}
	for from := 0; from < n; from += batch {
		to := min(from+batch, n)
		// Reviews: i-th submitted at an even step over two years; 85 % published,
		// 5 % pending, the rest rejected or hidden; a tenth imported.
		exec(`WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?)
			INSERT INTO reviews (public_id, channel_id, market, language, variant_key, group_key, product_name, experience, origin, state,
				rating, title, body, submitted_at, published_at, created_at, updated_at)
			SELECT 'r_bench' || i, 1 + i % 3, CASE i % 3 WHEN 0 THEN 'TR' WHEN 1 THEN 'GB' ELSE 'DE' END, 'en', 'SKU-' || (i % 20000), '',
				'Product ' || (i % 20000), CASE WHEN i % 50 = 0 THEN 'process' ELSE 'product' END,
				CASE WHEN i % 10 = 0 THEN 'imported' ELSE 'own' END,
				CASE WHEN i % 20 < 17 THEN 'published' WHEN i % 20 = 17 THEN 'pending' WHEN i % 20 = 18 THEN 'rejected' ELSE 'hidden' END,
				1 + (i * 7) % 5, '', 'Bench review', ? + i * ? / ?, ? + i * ? / ? + 3600000, ? + i * ? / ?, ? + i * ? / ? + 3600000
			FROM s`, from, to, store.Ms(start), span, n, store.Ms(start), span, n, store.Ms(start), span, n, store.Ms(start), span, n)
		// Photos on a fifth of the published reviews (the listing rows the read
		// model keeps for published reviews).
		exec(`INSERT INTO review_listing (review_id, variant_key, group_key, market, rating, verified, syndicable, has_media, helpful,
				published_at, contribution)
			SELECT id, variant_key, '', market, rating, 1, 0, id % 5 = 0, 0, published_at, '{}' FROM reviews
			WHERE id > ? AND id <= ? AND state = 'published'`, from, to)
	}
	// Moderation decisions: a moderator's approval of a twentieth of the published
	// reviews, some hours after submission (pending then published).
	exec(`UPDATE reviews SET state = 'pending' WHERE id % 40 = 1 AND state = 'published'`)
	exec(`UPDATE reviews SET state = 'published', updated_at = submitted_at + (id % 72) * 3600000 WHERE id % 40 = 1 AND state = 'pending'`)
	// Invitations: 40 % as many as reviews, sent over the same two years; a third
	// opened, a fifth reviewed.
	inv := n * 4 / 10
	for from := 0; from < inv; from += batch {
		to := min(from+batch, inv)
		exec(`WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?)
			INSERT INTO invitations (kind, channel_id, language, state, sent_at, created_at, updated_at)
			SELECT 'invitation', 1 + i % 3, 'en', 'sent', ? + i * ? / ?, ? + i * ? / ?, ? + i * ? / ? FROM s`,
			from, to, store.Ms(start), span, inv, store.Ms(start), span, inv, store.Ms(start), span, inv)
		exec(`INSERT INTO invite_marks (invitation_id, opened, reviewed) SELECT id, 1, id % 5 = 0 FROM invitations
			WHERE id > ? AND id <= ? AND (id % 3 = 0 OR id % 5 = 0)`, from, to)
	}
	// Product figures and words (the read model's rows) for top products and topics.
	exec(`INSERT INTO product_stats (scope, product_key, market, reviews, rating_sum, product_name, updated_at)
		SELECT 'variant', variant_key, market, count(*), sum(rating), min(product_name), 0 FROM reviews WHERE state = 'published'
		GROUP BY variant_key, market`)
	exec(`WITH RECURSIVE w(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM w WHERE j < 39)
		INSERT INTO product_words (scope, product_key, market, word, form, reviews)
		SELECT 'variant', product_key, market, 'word' || ((j * 7 + length(product_key)) % 500), 'word' || ((j * 7 + length(product_key)) % 500), 1 + reviews / (j + 1)
		FROM product_stats, w WHERE scope = 'variant' ON CONFLICT DO NOTHING`)
	// Store transfers: 100,000 over the last 30 days, 2 % refused.
	exec(`WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 99999)
		INSERT INTO ingest_requests (at, channel, kind, status) SELECT ? + i * 25920, CASE i % 3 WHEN 0 THEN 'web-tr' WHEN 1 THEN 'web-gb' ELSE 'web-de' END,
			'order', CASE WHEN i % 50 = 0 THEN 400 ELSE 200 END FROM s`, store.Ms(now.Add(-30*24*time.Hour)))
	var rows int
	_ = env.App.DB.Read().QueryRowForTest(ctx, `SELECT (SELECT count(*) FROM review_figures) + (SELECT count(*) FROM invite_figures)`, &rows)
	t.Logf("seeded %d reviews, %d invitations in %s (%d figure rows)", n, inv, time.Since(began).Round(time.Second), rows)
	env.Clock.T = now

	if os.Getenv("REVIEWD_BENCH_PARTS") == "1" {
		q := env.App.DB.Read()
		d1, d0 := now.UnixMilli()/store.DayMs, now.Add(-365*24*time.Hour).UnixMilli()/store.DayMs
		cut := make([]int64, 0, 52)
		for d := d0; d < d1; d += 7 {
			cut = append(cut, d)
		}
		for _, p := range []struct {
			name string
			fn   func() error
		}{
			{"review days, 1 year", func() error { _, err := q.ReviewDays(ctx, store.FigureScope{}, d0, d1); return err }},
			{"review hours, 52 days", func() error { _, err := q.ReviewHoursOf(ctx, store.FigureScope{}, cut); return err }},
			{"invite days, 1 year", func() error { _, err := q.InviteDays(ctx, store.FigureScope{}, d0, d1); return err }},
			{"waiting", func() error { _, err := q.WaitingReviews(ctx, store.FigureScope{}, now); return err }},
			{"waiting, channel", func() error { _, err := q.WaitingReviews(ctx, store.FigureScope{ChannelID: 1}, now); return err }},
			{"top products", func() error { _, err := q.TopProducts(ctx, "", 10); return err }},
			{"top products, market", func() error { _, err := q.TopProducts(ctx, "GB", 10); return err }},
			{"topics", func() error { _, err := q.TopTopics(ctx, "", 10); return err }},
		} {
			t0 := time.Now()
			for i := 0; i < 5; i++ {
				if err := p.fn(); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("part %-24s %6.1f ms", p.name, ms(time.Since(t0))/5)
		}
	}
	key := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read")}
	const runs = 30
	for _, c := range []struct{ name, path string }{
		{"metrics, 30 days by day", "/admin/v1/metrics"},
		{"metrics, 30 days, one channel", "/admin/v1/metrics?channel=web-tr"},
		{"metrics, 1 year by month", "/admin/v1/metrics?period=month&from=2025-06-02&to=2026-06-01"},
		{"metrics, 2 years by week", "/admin/v1/metrics?period=week&from=2024-06-02&to=2026-06-01"},
		{"insights, 30 days", "/admin/v1/insights"},
		{"insights, 1 year, market", "/admin/v1/insights?market=GB&from=2025-06-02&to=2026-06-01"},
		{"overview", "/admin/v1/overview"},
	} {
		var took []time.Duration
		for i := 0; i < runs; i++ {
			t0 := time.Now()
			res := env.Do("GET", c.path, nil, key)
			took = append(took, time.Since(t0))
			if res.Status != 200 {
				t.Fatalf("%s: %s", c.name, res)
			}
		}
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		t.Logf("%-34s p50 %6.1f ms  p90 %6.1f ms  max %6.1f ms", c.name, ms(took[runs/2]), ms(took[runs*9/10]), ms(took[runs-1]))
		if took[runs/2] > 50*time.Millisecond {
			t.Errorf("%s: p50 %s over 50 ms", c.name, took[runs/2])
		}
	}
}
