package ingest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"reviewd/store"
)

// TestProductIngest: one product or a batch of up to 100 with the order ingest's
// authentication; a bad row refuses the whole batch; later posts fill or replace
// fields and keep the rest; order lines fill gaps and match barcodes.
func TestProductIngest(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	res := f.Do("POST", "/v1/ingest/products", map[string]any{"variant_key": "MUG-BLUE", "name": "Blue mug", "gtin": "8690000000011"}, bearer(f.key))
	if res.Status != 200 || res.JSON["accepted"] != float64(1) {
		t.Fatalf("one product: %s", res)
	}
	// Whole batch refused on one bad row.
	res = f.Do("POST", "/v1/ingest/products", map[string]any{"products": []any{
		map[string]any{"variant_key": "LAMP", "name": "Lamp"},
		map[string]any{"variant_key": "BAD", "gtin": "12AB"},
	}}, bearer(f.key))
	if res.Status != 400 || res.Code() != "invalid / field_invalid: products[1].gtin" {
		t.Fatalf("bad gtin: %s", res)
	}
	if _, err := f.App.DB.Read().ProductByVariant(ctx, "LAMP"); err != store.ErrNotFound {
		t.Fatalf("refused batch left LAMP: %v", err)
	}
	for _, c := range []struct {
		body any
		code string
	}{
		{map[string]any{"products": []any{map[string]any{"name": "x"}}}, "invalid / field_missing: products[0].variant_key"},
		{map[string]any{"products": []any{}}, "invalid / field_missing: products"},
		{map[string]any{"name": "x"}, "invalid / field_missing: variant_key"},
		{map[string]any{"variant_key": "A", "url": "javascript:alert(1)"}, "invalid / field_invalid: url"},
		{map[string]any{"variant_key": strings.Repeat("k", 256)}, "invalid / field_too_long: variant_key"},
	} {
		if res := f.Do("POST", "/v1/ingest/products", c.body, bearer(f.key)); res.Status != 400 || res.Code() != c.code {
			t.Fatalf("want %s, got %s", c.code, res)
		}
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = map[string]any{"variant_key": fmt.Sprintf("V-%d", i)}
	}
	if res := f.Do("POST", "/v1/ingest/products", map[string]any{"products": many}, bearer(f.key)); res.Code() != "invalid / batch_too_large: 100" {
		t.Fatalf("101 products: %s", res)
	}
	if res := f.Do("POST", "/v1/ingest/products", map[string]any{"variant_key": "A"}, nil); res.Status != 401 {
		t.Fatalf("no key: %s", res)
	}
	// Signed bodies work as for orders.
	id, secret := f.Password("signing", "web")
	body := []byte(`{"variant_key": "MUG-BLUE", "brand": "Acme"}`)
	h := f.signed(id, secret, body)
	h["Content-Type"] = "application/json"
	if res := f.Do("POST", "/v1/ingest/products", body, h); res.Status != 200 {
		t.Fatalf("signed: %s", res)
	}
	p, err := f.App.DB.Read().ProductByVariant(ctx, "MUG-BLUE")
	if err != nil || p.Name != "Blue mug" || p.Brand != "Acme" || p.GTIN != "8690000000011" || p.Source != "ingest" {
		t.Fatalf("merged product: %+v %v", p, err)
	}
	// Order lines add missing variants and fill empty names and catalog ids.
	if res := f.orders(order("A-1", map[string]any{"items": []any{
		map[string]any{"line_reference": "1", "variant_key": "MUG-BLUE", "title": "Kupa", "catalog_id": "C-1"},
		map[string]any{"line_reference": "2", "variant_key": "PLATE", "group_key": "PLATES", "title": "Plate", "catalog_id": "C-PLATE"},
	}})); res.Status != 200 {
		t.Fatalf("order: %s", res)
	}
	if _, err := f.App.Catalogue.FillFromOrders(ctx); err != nil {
		t.Fatal(err)
	}
	q := f.App.DB.Read()
	if p, _ := q.ProductByVariant(ctx, "MUG-BLUE"); p.Name != "Blue mug" || p.CatalogID != "C-1" {
		t.Fatalf("posted name kept, catalog id filled: %+v", p)
	}
	if p, _ := q.ProductByVariant(ctx, "PLATE"); p.Name != "Plate" || p.GroupKey != "PLATES" || p.Source != "order" {
		t.Fatalf("variant from order lines: %+v", p)
	}
	if res := f.Do("POST", "/v1/ingest/products", map[string]any{"products": []any{
		map[string]any{"variant_key": "CUP-1", "gtin": "8690000000035"}, map[string]any{"variant_key": "CUP-2", "gtin": "8690000000035"},
	}}, bearer(f.key)); res.Status != 200 {
		t.Fatalf("cups: %s", res)
	}
	if _, reason, _ := f.App.Catalogue.Match(ctx, q, "8690000000035"); reason != "ambiguous" {
		t.Fatalf("two products with one gtin: %q", reason)
	}
	if _, reason, _ := f.App.Catalogue.Match(ctx, q, " "); reason != "no_barcode" {
		t.Fatalf("empty barcode: %q", reason)
	}
	for barcode, want := range map[string]string{"8690000000011": "MUG-BLUE", "C-PLATE": "PLATE", "PLATE": "PLATE", "none": ""} {
		p, reason, err := f.App.Catalogue.Match(ctx, q, barcode)
		if err != nil || p.VariantKey != want || (want == "" && reason != "no_product") {
			t.Fatalf("match %s: %+v %s %v", barcode, p, reason, err)
		}
	}
}
