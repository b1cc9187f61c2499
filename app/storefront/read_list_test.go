package storefront_test

import (
	"testing"
)

func TestListSmoke(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{title: "Kırmızı kupa", body: "KIRMIZI renk çok güzel, kırmızı"}, seedRev{rating: 3, body: "kırmızı ama küçük", ago: 2 * 3600e9})
	res := f.list("product=SKU-1")
	t.Logf("%d %s", res.Status, res.Body)
}
