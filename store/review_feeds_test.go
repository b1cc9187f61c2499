package store_test

import (
	"strings"
	"testing"

	"reviewd/store"
	"reviewd/store/storetest"
)

// TestFeedPageWalksByID: a page of a review feed is read by walking reviews in id
// order from the last one served, not by reading every published review through
// the state index and sorting them again for each page.
func TestFeedPageWalksByID(t *testing.T) {
	db := storetest.Open(t, &storetest.Clock{})
	plan, err := store.QueryPlan(db, store.QFeedReviews, 0, 0, 0, "", "", 500)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	if !strings.Contains(plan[0], "SEARCH r USING INTEGER PRIMARY KEY (rowid>?)") || strings.Contains(text, "TEMP B-TREE") {
		t.Fatalf("feed page plan:\n%s", text)
	}
}
