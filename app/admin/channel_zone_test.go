package admin_test

import "testing"

// TestChannelTimeZone: time_zone is an optional IANA zone of a channel (POST and
// PATCH /admin/v1/channels); the row shows it only when set, an unknown zone is
// invalid / time_zone, and "" returns to the brand's time_zone.
func TestChannelTimeZone(t *testing.T) {
	p := newChannelPanel(t)
	if row := p.channelRow(t, "web"); row["time_zone"] != nil {
		t.Fatalf("a channel without a zone shows time_zone: %v", row)
	}
	res := p.do("POST", "/admin/v1/channels", map[string]any{"code": "uk", "label": "UK store", "market": "GB", "language": "en",
		"brand_name": "Acme", "time_zone": "Europe/London"})
	expect(t, res, 201, "")
	if res.JSON["time_zone"] != "Europe/London" {
		t.Fatalf("created row: %s", res)
	}
	expect(t, p.do("POST", "/admin/v1/channels", map[string]any{"code": "uk2", "label": "UK", "market": "GB", "language": "en",
		"brand_name": "Acme", "time_zone": "Europe/Atlantis"}), 400, "invalid / time_zone")
	res = p.do("PATCH", "/admin/v1/channels/web", map[string]any{"time_zone": "Local"})
	expect(t, res, 400, "invalid / time_zone")
	expect(t, p.do("PATCH", "/admin/v1/channels/web", map[string]any{"time_zone": "Europe/Istanbul"}), 200, "")
	if row := p.channelRow(t, "web"); row["time_zone"] != "Europe/Istanbul" {
		t.Fatalf("after PATCH: %v", row)
	}
	res = p.do("PATCH", "/admin/v1/channels/uk", map[string]any{"time_zone": ""})
	if _, ok := res.JSON["time_zone"]; res.Status != 200 || ok {
		t.Fatalf("cleared: %s", res)
	}
}
