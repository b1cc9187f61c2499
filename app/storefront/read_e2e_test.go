package storefront_test

import (
	"strings"
	"testing"
	"time"
)

// TestEndToEndListing: an order arrives through the ingest endpoint and is
// delivered; the customer passes the order check and writes a review with a photo;
// the media job prepares the photo. The published review is then in the list (with
// its figures, topics, search and gallery), in the server-rendered HTML and in the
// structured data.
func TestEndToEndListing(t *testing.T) {
	f := newFx(t)
	f.setMethod("automatic")
	server := map[string]string{"Authorization": "Bearer " + f.server}
	res := f.Do("POST", "/v1/ingest/orders", map[string]any{"channel": "web", "external_id": "E2E-1",
		"payment_state": "paid", "placed_at": "2026-05-25T12:00:00+03:00", "customer_email": "ayse@example.com",
		"items": []any{map[string]any{"line_reference": "L1", "variant_key": "MUG-RED", "group_key": "MUG",
			"title": "Kırmızı kupa", "fulfilment_state": "shipped"}}}, server)
	if res.Status >= 300 {
		t.Fatalf("order: want a 2xx answer, got %s", res)
	}
	res = f.Do("POST", "/v1/ingest/deliveries", map[string]any{"deliveries": []any{map[string]any{
		"external_id": "E2E-1", "line_reference": "L1", "state": "delivered",
		"observed_at": f.Clock.T.Add(-time.Hour).Format(time.RFC3339), "source": "carrier", "confidence": "verified"}}}, server)
	if res.Status >= 300 {
		t.Fatalf("delivery: want a 2xx answer, got %s", res)
	}
	res = f.post("/v1/eligibility", map[string]any{"order": "E2E-1", "email": "ayse@example.com"})
	if res.Status != 200 {
		t.Fatalf("eligibility: want 200, got %s", res)
	}
	tok := res.JSON["token"].(string)
	mid := f.mustUpload(tok, "L1", testJPEG(t, 800, 600))
	id, state := f.mustWrite(tok, row("L1", map[string]any{"media": []string{mid}, "author_name": "Ayşe Yılmaz",
		"hide_name": true, "title": "KIRMIZI ve şık", "body": "Rengi canlı, kulpu sağlam.", "rating": 4,
		"aspects": map[string]any{"quality": 5}}))
	if state != "published" {
		t.Fatalf("state %s", state)
	}
	// Before the photo is processed the review is listed without it.
	l := f.mustList("product=MUG-RED")
	wantIDs(t, ids(l), id)
	if num(l["media_reviews"]) != 0 || len(obj(l["reviews"].([]any)[0])["media"].([]any)) != 0 {
		t.Fatalf("unprocessed media listed: %v", l["media_reviews"])
	}
	if _, err := f.App.Reviews.ProcessMedia(ctx, f.Clock.T, 10); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"product=MUG-RED", "product=MUG&scope=group", "product=MUG-RED&q=kırmızı",
		"product=MUG-RED&q=kirmizi", "product=MUG-RED&topic=kulp", "product=MUG-RED&verified=1&media=1&rating=4"} {
		wantIDs(t, ids(f.mustList(q)), id)
	}
	l = f.mustList("product=MUG-RED")
	row := obj(l["reviews"].([]any)[0])
	agg := obj(l["aggregate"])
	if row["author"] != "A*** Y***" || row["verified"] != true || row["verification_method"] != "order_check" ||
		len(row["media"].([]any)) != 1 || num(agg["count"]) != 1 || agg["average"] != 4.0 || num(agg["verified_count"]) != 1 ||
		num(agg["structured_count"]) != 1 || num(l["media_reviews"]) != 1 || len(l["gallery"].([]any)) != 1 ||
		len(l["aspects"].([]any)) != 1 {
		t.Fatalf("list: row %v aggregate %v", row, agg)
	}
	// The photo is public while the review is published.
	media := obj(row["media"].([]any)[0])
	path := strings.TrimPrefix(media["url"].(string), "http://reviewd.test")
	if st := f.Do("GET", path, nil, nil).Status; st != 200 {
		t.Fatalf("photo %s: %d", path, st)
	}

	res = f.mustSSR("product=MUG-RED&name=K%C4%B1rm%C4%B1z%C4%B1+kupa")
	html := res.JSON["html"].(string)
	for _, want := range []string{`data-review-id="` + id + `"`, "KIRMIZI ve şık", "Rengi canlı, kulpu sağlam.", "A*** Y***",
		media["url"].(string)} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %s", want)
		}
	}
	sd := obj(res.JSON["structured_data"])
	checkProductJSONLD(t, sd)
	rv := obj(sd["review"].([]any)[0])
	if sd["name"] != "Kırmızı kupa" || obj(sd["aggregateRating"])["ratingValue"] != "4.0" ||
		obj(rv["author"])["name"] != "A*** Y***" || rv["name"] != "KIRMIZI ve şık" || rv["datePublished"] != "2026-06-01" {
		t.Fatalf("structured data %v", sd)
	}
	// Hidden by a moderator: gone from the list, the HTML and the structured data.
	f.moderate(id, "hidden")
	if l := f.mustList("product=MUG-RED"); num(l["total"]) != 0 || num(obj(l["aggregate"])["count"]) != 0 {
		t.Fatalf("hidden review still listed: %v", l["total"])
	}
	if res := f.mustSSR("product=MUG-RED&name=X"); strings.Contains(res.JSON["html"].(string), id) || res.JSON["structured_data"] != nil {
		t.Fatalf("hidden review rendered")
	}
}
