package woocommerce_test

import (
	"net/http"
	"testing"

	"reviewd/app/core/orders"
	"reviewd/app/platform/platformtest"
)

// TestPageOfEmptyObjects: a 19 MB order page of empty objects is refused as
// answer_invalid before it is decoded, holding little memory (the check is in
// orders.PlatformCall, shared by every platform reader).
func TestPageOfEmptyObjects(t *testing.T) {
	srv := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		platformtest.WriteRepeated(w, `[`, `{}`, true, 19<<20, `]`)
	}), platformtest.WooHost)
	var err error
	peak, alloc := platformtest.MemUse(t, func() {
		_, err = read(t, srv.Client, platformtest.WooBase, map[string]string{"consumer_key": "ck", "consumer_secret": "cs"}, 100)
	})
	t.Logf("19 MB page of empty objects: heap peak +%d MB, allocated %d MB", peak>>20, alloc>>20)
	if orders.FailureCode(err) != orders.FailAnswerInvalid {
		t.Fatalf("read: %v", err)
	}
	if peak > 64<<20 {
		t.Fatalf("heap grew by %d MB during the read", peak>>20)
	}
}
