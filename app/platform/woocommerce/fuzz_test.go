package woocommerce_test

import (
	"context"
	"errors"
	"testing"

	"reviewd/app/core/orders"
	"reviewd/app/platform/platformtest"
	"reviewd/app/platform/woocommerce"
)

// FuzzWooCommerceAnswers: whatever the store answers to the orders request, a read
// never panics and fails only with a *orders.ReadFailure.
func FuzzWooCommerceAnswers(f *testing.F) {
	s := platformtest.StartCanned(f, platformtest.WooHost)
	list := func(orders []map[string]any) any { return orders }
	f.Add(platformtest.FixtureJSON(f, platformtest.WooCommerceFixture, 3, list))
	f.Add(platformtest.FixtureJSON(f, platformtest.WooCommerceFixture, 2, list))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"code": "woocommerce_rest_cannot_view", "message": "Sorry, you cannot list resources.", "data": {"status": 401}}`))
	read := func(t testing.TB, body []byte) (int, error) {
		s.Set("/shop"+woocommerce.OrdersPath, body)
		pages := 0
		err := woocommerce.Reader{}.Read(context.Background(), orders.PlatformRead{Client: s.Client, BaseURL: platformtest.WooBase,
			Credentials: map[string]string{"consumer_key": "ck_fuzz", "consumer_secret": "cs_fuzz"}, Since: since, PageSize: 2},
			func(orders.PlatformPage) (bool, error) { pages++; return pages < 3, nil })
		var rf *orders.ReadFailure
		if err != nil && !errors.As(err, &rf) {
			t.Fatalf("read failed with %T %v, want a *orders.ReadFailure", err, err)
		}
		return pages, err
	}
	// The harness reaches the mapping: a recorded page is read.
	if n, err := read(f, platformtest.FixtureJSON(f, platformtest.WooCommerceFixture, 2, list)); n == 0 || err != nil {
		f.Fatalf("recorded page: %d pages, %v", n, err)
	}
	f.Fuzz(func(t *testing.T, body []byte) { _, _ = read(t, body) })
}
