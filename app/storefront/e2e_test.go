package storefront_test

import (
	"testing"
	"time"

	"reviewd/app/core"
)

// TestEndToEnd: an order arrives through the ingest endpoint, is delivered, the
// customer passes the order check, uploads a photo and writes a review; the media
// job prepares the photo. With the automatic method the review and its photo are
// public; with the manual method the review waits and the photo stays private.
func TestEndToEnd(t *testing.T) {
	for _, c := range []struct{ method, want string }{{"automatic", "published"}, {"manual", "pending"}} {
		t.Run(c.method, func(t *testing.T) {
			f := newFx(t)
			api := f.Key("api", "", "read", "write")
			res := f.Do("POST", "/admin/v1/settings", map[string]any{"publishing_method": c.method},
				map[string]string{"Authorization": "Api-Key " + api})
			if res.Status != 200 {
				t.Fatalf("settings: want 200, got %s", res)
			}
			server := map[string]string{"Authorization": "Bearer " + f.server}
			res = f.Do("POST", "/v1/ingest/orders", map[string]any{"channel": "web", "external_id": "ORD-77",
				"payment_state": "paid", "placed_at": "2026-05-25T12:00:00+03:00", "customer_email": "ayse@example.com",
				"items": []any{map[string]any{"line_reference": "L1", "variant_key": "MUG-RED", "group_key": "MUG",
					"title": "Red mug", "fulfilment_state": "shipped"}}}, server)
			if res.Status >= 300 {
				t.Fatalf("order: want a 2xx answer, got %s", res)
			}
			// Not delivered yet: one general refusal.
			wantCode(t, f.post("/v1/eligibility", map[string]any{"order": "ORD-77", "email": "ayse@example.com"}), 403, "token_refused / not_eligible")
			res = f.Do("POST", "/v1/ingest/deliveries", map[string]any{"deliveries": []any{map[string]any{
				"external_id": "ORD-77", "line_reference": "L1", "state": "delivered",
				"observed_at": f.Clock.T.Add(-time.Hour).Format(time.RFC3339), "source": "carrier", "confidence": "verified"}}}, server)
			if res.Status >= 300 {
				t.Fatalf("delivery: want a 2xx answer, got %s", res)
			}
			res = f.post("/v1/eligibility", map[string]any{"order": "ORD-77", "email": "Ayse@Example.com"})
			if res.Status != 200 {
				t.Fatalf("eligibility: want 200, got %s", res)
			}
			tok := res.JSON["token"].(string)
			res = f.post("/v1/eligibility/token", map[string]any{"token": tok})
			if res.Status != 200 || res.JSON["mode"] != "write" {
				t.Fatalf("token: want 200, got %s", res)
			}
			mid := f.mustUpload(tok, "L1", withGPS(testJPEG(t, 800, 600)))
			id, state := f.mustWrite(tok, row("L1", map[string]any{"media": []string{mid}, "author_name": "Ayşe"}))
			if state != c.want {
				t.Fatalf("state %s", state)
			}
			if _, err := f.App.Reviews.ProcessMedia(ctx, f.Clock.T, 10); err != nil {
				t.Fatal(err)
			}
			r := f.review(id)
			if r.State != c.want || r.VariantKey != "MUG-RED" || r.GroupKey != "MUG" || r.ProductName != "Red mug" ||
				r.VerificationMethod != core.VerifiedByOrderCheck {
				t.Fatalf("review %+v", r)
			}
			status := f.Do("GET", "/media/"+mid+"/image-640.jpg", nil, nil).Status
			if (c.want == "published") != (status == 200) {
				t.Fatalf("media status %d for a %s review", status, c.want)
			}
		})
	}
}
