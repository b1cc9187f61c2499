package ingest_test

import (
	"context"
	"testing"

	"reviewd/app/core"
	"reviewd/app/core/access"
)

// TestIngestOfInactiveBrand: a frozen or closed brand takes no orders, deliveries or
// products, by key or by signature: an authenticated caller gets 403 refused /
// tenant_inactive and nothing is saved; credentials are still checked first (401).
// The dry run and the figures answer brand_inactive like every management route.
// Reopening takes transfers again.
func TestIngestOfInactiveBrand(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id, secret := f.Password("signing", "web")
	admin := f.admin()
	set := func(state string) {
		t.Helper()
		if err := f.App.Access.SetBrandState(ctx, core.Console(), state); err != nil {
			t.Fatal(err)
		}
	}
	expect(t, f.orders(order("B-1")), 200, "")

	for _, state := range []string{access.BrandFrozen, access.BrandClosed} {
		set(state)
		expect(t, f.orders(order("B-2")), 403, "refused / tenant_inactive")
		expect(t, f.deliveries(map[string]any{"deliveries": []any{delivery("B-1", "1", "delivered", "2026-05-30T12:00:00Z")}}),
			403, "refused / tenant_inactive")
		expect(t, f.Do("POST", "/v1/ingest/products", map[string]any{"variant_key": "MUG-RED"}, bearer(f.key)), 403, "refused / tenant_inactive")
		body := jsonBytes(order("B-3"))
		expect(t, f.Do("POST", "/v1/ingest/orders", body, f.signed(id, secret, body)), 403, "refused / tenant_inactive")
		// Credentials are checked before the brand's state.
		expect(t, f.Do("POST", "/v1/ingest/orders", order("B-2"), bearer("rvd_srv_unknown")), 401, "")
		expect(t, f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "order", "body": order("B-2")}, admin), 403, "forbidden / brand_inactive")
		expect(t, f.Do("GET", "/admin/v1/ingest/stats", nil, admin), 403, "forbidden / brand_inactive")
		for _, ext := range []string{"B-2", "B-3"} {
			if _, ok := f.storedOrder(ext); ok {
				t.Fatalf("%s brand saved order %s", state, ext)
			}
		}
		if _, err := f.App.DB.Read().ProductByVariant(ctx, "MUG-RED"); err == nil {
			t.Fatalf("%s brand saved a product", state)
		}
	}
	set(access.BrandActive)
	expect(t, f.orders(order("B-2")), 200, "")
	expect(t, f.Do("POST", "/v1/ingest/products", map[string]any{"variant_key": "MUG-RED"}, bearer(f.key)), 200, "")
	expect(t, f.Do("GET", "/admin/v1/ingest/stats", nil, admin), 200, "")
}
