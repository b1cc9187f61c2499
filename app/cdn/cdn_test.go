package cdn

import (
	"strings"
	"testing"
	"time"
)

// TestConfigValidate: each route needs its own keys; a webhook must be https with
// a long enough secret; an unknown kind is refused.
func TestConfigValidate(t *testing.T) {
	ok := func(p PurgeConfig) PurgeConfig { p.Interval = time.Second; return p }
	for _, c := range []struct {
		p    PurgeConfig
		want string
	}{
		{ok(PurgeConfig{}), ""},
		{ok(PurgeConfig{Kind: "cloudflare", ZoneID: "023e105f4ecef8ad9ca31a8372d0c353", APIToken: "t"}), ""},
		{ok(PurgeConfig{Kind: "cloudflare", ZoneID: "bad zone", APIToken: "t"}), "cdn.purge.zone_id"},
		{ok(PurgeConfig{Kind: "cloudflare", ZoneID: "z1"}), "cdn.purge.api_token"},
		{ok(PurgeConfig{Kind: "fastly", ServiceID: "SU1Z0isxPaozGVKXdv0eY", APIKey: "k"}), ""},
		{ok(PurgeConfig{Kind: "fastly", APIKey: "k"}), "cdn.purge.service_id"},
		{ok(PurgeConfig{Kind: "webhook", URL: "https://cdn.example/purge", Secret: strings.Repeat("s", 16)}), ""},
		{ok(PurgeConfig{Kind: "webhook", URL: "http://cdn.example/purge", Secret: strings.Repeat("s", 16)}), "cdn.purge.url"},
		{ok(PurgeConfig{Kind: "webhook", URL: "https://cdn.example/purge", Secret: "short"}), "cdn.purge.secret"},
		{ok(PurgeConfig{Kind: "akamai"}), "cdn.purge.kind"},
		{PurgeConfig{}, "cdn.purge.interval"},
	} {
		err := Config{Purge: c.p}.Validate()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
}

// TestTags: the tag format of docs/cdn.md.
func TestTags(t *testing.T) {
	if got := ProductTag("variant", "SKU-1"); got != "reviewd-p-e9eee3d251730999e30e" || ProductTag("", "SKU-1") != got {
		t.Errorf("product tag %q", got)
	}
	if got := ChannelTag("web"); got != "reviewd-c-web" {
		t.Errorf("channel tag %q", got)
	}
	if got := ChannelTag("Web Shop"); !strings.HasPrefix(got, "reviewd-c-") || len(got) != len("reviewd-c-")+20 {
		t.Errorf("hashed channel tag %q", got)
	}
	tg := NewTags(AllTag, "reviewd-p-x", "reviewd-c-web")
	if tg.CacheTag[0] != "reviewd,reviewd-p-x,reviewd-c-web" || tg.SurrogateKey[0] != "reviewd reviewd-p-x reviewd-c-web" {
		t.Errorf("tags %+v", tg)
	}
}
