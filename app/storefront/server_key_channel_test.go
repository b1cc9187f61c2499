package storefront_test

import (
	"testing"
)

// TestServerKeyServesOnlyItsChannel: a server key created for channel web answers
// for web; asking for another channel of the brand is 403 refused /
// unknown_channel, so it never hands out writing tokens for that channel's
// customers.
func TestServerKeyServesOnlyItsChannel(t *testing.T) {
	f := newFx(t)
	f.Channel("gb", "GB", "en")
	other := f.Key("server", "gb")
	f.order("A-1", "ayse@example.com", line{ref: "1"})

	own := map[string]string{"Authorization": "Bearer " + f.server, "X-Service-Customer": "ayse@example.com"}
	res := f.Do("GET", "/v1/viewer/order?channel=web&order=A-1", nil, own)
	if res.Status != 200 || res.JSON["token"] == "" {
		t.Fatalf("own channel: %d %s", res.Status, res.Body)
	}
	for _, path := range []string{
		"/v1/viewer/order?channel=gb&order=A-1",
		"/v1/viewer?channel=gb&product=SKU-1",
		"/v1/ssr?channel=gb&product=SKU-1",
	} {
		wantCode(t, f.Do("GET", path, nil, own), 403, "refused / unknown_channel")
	}
	// The gb key may not read web either.
	foreign := map[string]string{"Authorization": "Bearer " + other, "X-Service-Customer": "ayse@example.com"}
	wantCode(t, f.Do("GET", "/v1/viewer/order?channel=web&order=A-1", nil, foreign), 403, "refused / unknown_channel")
}
