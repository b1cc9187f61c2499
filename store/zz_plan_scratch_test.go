package store_test

import (
	"context"
	"testing"

	"reviewd/store/storetest"
)

func TestZZPlan(t *testing.T) {
	db := storetest.Open(t, nil)
	ctx := context.Background()
	for _, q := range []string{
		`EXPLAIN QUERY PLAN SELECT id FROM reviews JOIN (SELECT review_id AS lid, published_at AS lpub, rating AS lrat, helpful AS lhelp, (market != 'TR') AS lsyn FROM review_listing WHERE variant_key = 'x' AND market = 'TR' ORDER BY published_at DESC, review_id DESC LIMIT 10 OFFSET 0) ON id = lid ORDER BY lpub DESC, lid DESC`,
		`EXPLAIN QUERY PLAN SELECT review_id FROM review_listing WHERE variant_key = 'x' AND market = 'TR' ORDER BY helpful DESC, published_at DESC, review_id DESC LIMIT 10`,
		`EXPLAIN QUERY PLAN SELECT review_id FROM review_listing WHERE group_key = 'x' AND group_key != '' AND market = 'TR' ORDER BY rating DESC, published_at DESC, review_id DESC LIMIT 10`,
		`EXPLAIN QUERY PLAN SELECT review_id FROM review_listing WHERE variant_key = 'x' AND market = 'TR' AND review_id IN (SELECT rowid FROM review_search WHERE review_search MATCH 'a') ORDER BY published_at DESC, review_id DESC LIMIT 10`,
		`EXPLAIN QUERY PLAN SELECT review_id FROM review_listing WHERE variant_key = 'x' AND (market = 'TR' OR syndicable = 1) ORDER BY published_at DESC, review_id DESC LIMIT 10`,
		`EXPLAIN QUERY PLAN SELECT word FROM product_words WHERE scope = 'v' AND product_key = 'x' AND market = 'TR' AND reviews >= 2 ORDER BY reviews DESC, word LIMIT 5`,
	} {
		rows, err := db.Read().QueryForPlan(ctx, q)
		t.Log(rows, err)
	}
}
