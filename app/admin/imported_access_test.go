package admin_test

import (
	"context"
	"testing"

	"reviewd/store"
)

// TestImportedReviewsAccessLogged (spec 3, access-log actions): listing imported
// marketplace reviews shows authors' names, so each list is in the access log as
// imported_reviews.listed under the member with the number of rows shown.
func TestImportedReviewsAccessLogged(t *testing.T) {
	f := newMarketFx(t)
	src := f.source("trendyol", "file", nil)
	expect(t, f.upload("/admin/v1/marketplace/sources/"+src+"/runs", "export.csv", csvFile(t, header("trendyol", true), marketRows("trendyol"), ','), nil), 202, "")
	if run := f.waitRun(src); run["state"] != "succeeded" {
		t.Fatalf("run: %v", run)
	}
	res := f.do("GET", "/admin/v1/marketplace/imported-reviews", nil)
	expect(t, res, 200, "")
	n := len(res.JSON["items"].([]any))
	got, _, err := f.env.App.DB.Read().ListAccess(context.Background(), store.AccessFilter{Action: "imported_reviews.listed"})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || len(got) != 1 || got[0].Via != "session" || got[0].ActorRole != "owner" || got[0].ActorID == "" || got[0].Count != n {
		t.Fatalf("access log of %d imported reviews: %+v", n, got)
	}
}
