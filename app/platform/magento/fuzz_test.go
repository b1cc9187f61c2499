package magento_test

import (
	"context"
	"errors"
	"testing"

	"reviewd/app/core/orders"
	"reviewd/app/platform/magento"
	"reviewd/app/platform/platformtest"
)

// FuzzMagentoAnswers: whatever the store answers to the login and the orders
// search, a read never panics and fails only with a *orders.ReadFailure.
func FuzzMagentoAnswers(f *testing.F) {
	s := platformtest.StartCanned(f, platformtest.MagentoHost)
	token := []byte(`"eyJraWQiOiIxIiwiYWxnIjoiSFMyNTYifQ.000001.c2lnbmF0dXJl"`)
	list := func(orders []map[string]any) any {
		return map[string]any{"items": orders, "total_count": len(orders) + 5}
	}
	f.Add(false, platformtest.FixtureJSON(f, platformtest.MagentoFixture, 3, list))
	f.Add(false, []byte(`{"items": [], "total_count": 0, "search_criteria": {}}`))
	f.Add(false, []byte(`{"message": "The consumer isn't authorized to access %resources.", "parameters": {"resources": "Magento_Sales::actions_view"}}`))
	f.Add(true, token)
	f.Add(true, []byte(`{"message": "The account sign-in was incorrect."}`))
	read := func(t testing.TB, toToken bool, body []byte) (int, error) {
		s.Set(magento.TokenPath, token)
		s.Set(magento.OrdersPath, []byte(`{"items": [], "total_count": 0}`))
		if toToken {
			s.Set(magento.TokenPath, body)
		} else {
			s.Set(magento.OrdersPath, body)
		}
		pages := 0
		err := magento.Reader{}.Read(context.Background(), orders.PlatformRead{Client: s.Client, BaseURL: platformtest.MagentoBase,
			RemoteChannel: "1", Credentials: map[string]string{"username": "api", "password": "secret"}, Since: since, PageSize: 3},
			func(orders.PlatformPage) (bool, error) { pages++; return pages < 3, nil })
		var rf *orders.ReadFailure
		if err != nil && !errors.As(err, &rf) {
			t.Fatalf("read failed with %T %v, want a *orders.ReadFailure", err, err)
		}
		return pages, err
	}
	// The harness reaches the mapping: a recorded page is read.
	if n, err := read(f, false, platformtest.FixtureJSON(f, platformtest.MagentoFixture, 2, list)); n == 0 || err != nil {
		f.Fatalf("recorded page: %d pages, %v", n, err)
	}
	f.Fuzz(func(t *testing.T, toToken bool, body []byte) { _, _ = read(t, toToken, body) })
}
