package storefront_test

import (
	"strings"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/channels"
)

// TestSSRDatesInTheChannelTimeZone: a review published at 22:05 UTC is dated in
// the channel's time zone (PATCH /admin/v1/channels/<code> time_zone): the day
// before in Europe/London, the next day in Europe/Istanbul. Without a channel zone
// the brand's time_zone applies and the list answer carries no time_zone field;
// with one the list answer names it for the page script.
func TestSSRDatesInTheChannelTimeZone(t *testing.T) {
	f := newFx(t)
	// The clock is 2026-06-01 10:00 UTC: 11h55m before is 2026-05-31 22:05 UTC.
	f.seed(seedRev{ago: 11*time.Hour + 55*time.Minute})
	date := func(want, iso string) {
		t.Helper()
		html, _ := f.mustSSR("product=SKU-1").JSON["html"].(string)
		if !strings.Contains(html, `<time datetime="`+iso+`">`+want+`</time>`) {
			t.Fatalf("SSR date is not %s (%s):\n%s", want, iso, html)
		}
	}
	zoneField := func() any {
		t.Helper()
		res := f.Do("GET", "/v1/reviews/list?channel=web&product=SKU-1", nil, map[string]string{"Authorization": "Bearer " + f.server})
		if res.Status != 200 {
			t.Fatalf("list: %s", res)
		}
		return res.JSON["time_zone"]
	}
	setZone := func(zone string) {
		t.Helper()
		if _, err := f.App.Channels.UpdateChannel(ctx, core.Console(), "web", channels.Change{TimeZone: &zone}); err != nil {
			t.Fatal(err)
		}
	}

	// The brand's time_zone (Europe/Istanbul by default); no field in the answer.
	date("1 Haziran 2026", "2026-06-01")
	if z := zoneField(); z != nil {
		t.Fatalf("list answer without a channel zone carries time_zone %v", z)
	}
	setZone("Europe/London")
	date("31 Mayıs 2026", "2026-05-31")
	if z := zoneField(); z != "Europe/London" {
		t.Fatalf("list answer time_zone %v", z)
	}
	setZone("Europe/Istanbul")
	date("1 Haziran 2026", "2026-06-01")
	setZone("")
	date("1 Haziran 2026", "2026-06-01")
	if z := zoneField(); z != nil {
		t.Fatalf("list answer after the zone was cleared carries time_zone %v", z)
	}
}
