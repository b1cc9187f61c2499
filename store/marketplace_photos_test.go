package store_test

import (
	"context"
	"testing"

	"reviewd/store"
)

// TestPhotoStateFollowsPosition: a photo address seen again at another position
// takes the state its new position gives when the position decides it (pending ↔
// refused too_many_items); a fetched photo and one refused for another reason keep
// theirs.
func TestPhotoStateFollowsPosition(t *testing.T) {
	ctx := context.Background()
	db, _, r := publishedReview(t, "imported")
	add := func(url string, pos int, state, errText string) {
		t.Helper()
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			return tx.AddMarketplacePhoto(ctx, store.MarketplacePhoto{ReviewID: r.ID, SourceID: 1, URL: url, Position: pos,
				State: state, Error: errText})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	states := func() map[string]string {
		t.Helper()
		list, err := db.Read().MarketplacePhotosOf(ctx, []int64{r.ID})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, p := range list {
			out[p.URL] = p.State + "/" + p.Error
		}
		return out
	}
	add("https://a", 0, store.PhotoPending, "")
	add("https://b", 6, store.PhotoRefused, store.PhotoTooMany)
	add("https://c", 1, store.PhotoPending, "")
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `UPDATE marketplace_photos SET state = 'fetched' WHERE url = 'https://c'`)
	}); err != nil {
		t.Fatal(err)
	}
	add("https://d", 2, store.PhotoRefused, "virus_found")

	// The row is read again in another order: a past the limit, b within it.
	add("https://a", 6, store.PhotoRefused, store.PhotoTooMany)
	add("https://b", 0, store.PhotoPending, "")
	add("https://c", 7, store.PhotoRefused, store.PhotoTooMany)
	add("https://d", 1, store.PhotoPending, "")
	got := states()
	want := map[string]string{"https://a": "refused/too_many_items", "https://b": "pending/", "https://c": "fetched/",
		"https://d": "refused/virus_found"}
	for u, w := range want {
		if got[u] != w {
			t.Fatalf("%s: %s, want %s (all: %v)", u, got[u], w, got)
		}
	}
}
