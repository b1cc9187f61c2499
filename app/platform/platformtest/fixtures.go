package platformtest

import (
	"embed"
	"encoding/json"
	"testing"
)

//go:embed testdata/*.json
var fixtures embed.FS

// Fixture files: orders as each platform's API returns them, covering every mapping
// row, shipment rule and skip key (see the platform packages' tests for the
// expected result of each order).
const (
	ShopifyFixture     = "shopify_orders.json"
	WooCommerceFixture = "woocommerce_orders.json"
	MagentoFixture     = "magento_orders.json"
)

// Fixture reads a fixture file as a list of orders (fresh copies each call).
func Fixture(t testing.TB, name string) []map[string]any {
	t.Helper()
	raw, err := fixtures.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatalf("platformtest: fixture %s: %v", name, err)
	}
	var out []map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("platformtest: fixture %s: %v", name, err)
	}
	return out
}
