package shopify_test

import (
	"context"
	"errors"
	"testing"

	"reviewd/app/core/orders"
	"reviewd/app/platform/platformtest"
	"reviewd/app/platform/shopify"
)

// FuzzShopifyAnswers: whatever the store answers to the token request and the
// orders query, a read never panics and fails only with a *orders.ReadFailure.
func FuzzShopifyAnswers(f *testing.F) {
	s := platformtest.StartCanned(f, platformtest.ShopifyHost)
	const tokenPath, ordersPath = "/admin/oauth/access_token", "/admin/api/" + shopify.APIVersion + "/graphql.json"
	token := []byte(`{"access_token": "shpat_fuzz", "scope": "read_orders", "expires_in": 86399}`)
	page := func(next bool) func([]map[string]any) any {
		return func(orders []map[string]any) any {
			return map[string]any{"data": map[string]any{"orders": map[string]any{"nodes": orders,
				"pageInfo": map[string]any{"hasNextPage": next, "endCursor": "c1"}}},
				"extensions": map[string]any{"cost": map[string]any{"requestedQueryCost": 52, "actualQueryCost": 40}}}
		}
	}
	f.Add(false, platformtest.FixtureJSON(f, platformtest.ShopifyFixture, 3, page(false)))
	f.Add(false, platformtest.FixtureJSON(f, platformtest.ShopifyFixture, 1, page(true)))
	f.Add(false, []byte(`{"errors": [{"message": "Query cost is 1200, which exceeds the single query max cost limit (1000).", "extensions": {"code": "MAX_COST_EXCEEDED", "cost": 1200, "maxCost": 1000}}]}`))
	f.Add(false, []byte(`{"errors": [{"message": "Throttled", "extensions": {"code": "THROTTLED"}}]}`))
	f.Add(true, token)
	f.Add(true, []byte(`{"access_token": "x", "scope": "read_products"}`))
	read := func(t testing.TB, toToken bool, body []byte) (int, error) {
		s.Set(tokenPath, token)
		s.Set(ordersPath, []byte(`{"data": {"orders": {"nodes": [], "pageInfo": {"hasNextPage": false}}}}`))
		if toToken {
			s.Set(tokenPath, body)
		} else {
			s.Set(ordersPath, body)
		}
		pages := 0
		err := shopify.Reader{}.Read(context.Background(), orders.PlatformRead{Client: s.Client, BaseURL: "https://" + platformtest.ShopifyHost,
			Credentials: map[string]string{"client_id": "id", "client_secret": "secret"}, Since: since, PageSize: 25},
			func(orders.PlatformPage) (bool, error) { pages++; return pages < 3, nil })
		var rf *orders.ReadFailure
		if err != nil && !errors.As(err, &rf) {
			t.Fatalf("read failed with %T %v, want a *orders.ReadFailure", err, err)
		}
		return pages, err
	}
	// The harness reaches the mapping: a recorded page is read.
	if n, err := read(f, false, platformtest.FixtureJSON(f, platformtest.ShopifyFixture, 2, page(false))); n == 0 || err != nil {
		f.Fatalf("recorded page: %d pages, %v", n, err)
	}
	f.Fuzz(func(t *testing.T, toToken bool, body []byte) { _, _ = read(t, toToken, body) })
}
