package cdn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/outbound"
)

// Purger sends one purge of up to Batch() tags.
type Purger interface {
	Purge(ctx context.Context, tags []string) error
	Batch() int
}

// Batch sizes: Cloudflare takes up to 100 operations (tags) per purge call on
// every plan (developers.cloudflare.com/cache/how-to/purge-cache, 2026; it was 30
// before mid-2025); Fastly up to 256 surrogate keys per call.
const (
	CloudflareBatch = 100
	FastlyBatch     = 256
	WebhookBatch    = 100
)

const (
	purgeTimeout  = 15 * time.Second
	purgeMaxBytes = 64 << 10
	userAgent     = "reviewd-cdn-purge"
)

// NewPurger is the purger of cfg's route; nil when no route is configured.
func NewPurger(cfg PurgeConfig, out *outbound.Client) Purger {
	switch cfg.Kind {
	case KindCloudflare:
		return &Cloudflare{Out: out, ZoneID: cfg.ZoneID, Token: cfg.APIToken}
	case KindFastly:
		return &Fastly{Out: out, ServiceID: cfg.ServiceID, Key: cfg.APIKey}
	case KindWebhook:
		return &Webhook{Out: out, URL: cfg.URL, Secret: []byte(cfg.Secret)}
	}
	return nil
}

// Cloudflare purges by cache tag: POST /client/v4/zones/{zone}/purge_cache with
// {"tags":[...]} and a bearer token.
type Cloudflare struct {
	Out    *outbound.Client
	ZoneID string
	Token  string
}

// Batch is the largest number of tags of one call.
func (c *Cloudflare) Batch() int { return CloudflareBatch }

// Purge sends one purge call; an answer other than 2xx with "success": true is
// an error.
func (c *Cloudflare) Purge(ctx context.Context, tags []string) error {
	body, _ := json.Marshal(map[string][]string{"tags": tags})
	h := http.Header{}
	h.Set("Authorization", "Bearer "+c.Token)
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	res, err := c.Out.Do(outbound.WithTarget(ctx, "cdn"), outbound.Request{Method: http.MethodPost,
		URL:    "https://api.cloudflare.com/client/v4/zones/" + url.PathEscape(c.ZoneID) + "/purge_cache",
		Header: h, Body: body, Timeout: purgeTimeout, MaxBytes: purgeMaxBytes})
	if err != nil {
		return err
	}
	var ans struct {
		Success bool `json:"success"`
	}
	if res.Status/100 != 2 || json.Unmarshal(res.Body, &ans) != nil || !ans.Success {
		return fmt.Errorf("cdn: cloudflare purge: %d %s", res.Status, clip(res.Body))
	}
	return nil
}

// Fastly purges by surrogate key: POST /service/{id}/purge with the keys in a
// Surrogate-Key header and the API token in Fastly-Key.
type Fastly struct {
	Out       *outbound.Client
	ServiceID string
	Key       string
}

// Batch is the largest number of keys of one call.
func (f *Fastly) Batch() int { return FastlyBatch }

// Purge sends one purge call; an answer other than 2xx is an error.
func (f *Fastly) Purge(ctx context.Context, tags []string) error {
	h := http.Header{}
	h.Set("Fastly-Key", f.Key)
	h.Set("Surrogate-Key", strings.Join(tags, " "))
	h.Set("Accept", "application/json")
	h.Set("User-Agent", userAgent)
	res, err := f.Out.Do(outbound.WithTarget(ctx, "cdn"), outbound.Request{Method: http.MethodPost,
		URL:    "https://api.fastly.com/service/" + url.PathEscape(f.ServiceID) + "/purge",
		Header: h, Timeout: purgeTimeout, MaxBytes: purgeMaxBytes})
	if err != nil {
		return err
	}
	if res.Status/100 != 2 {
		return fmt.Errorf("cdn: fastly purge: %d %s", res.Status, clip(res.Body))
	}
	return nil
}

// Webhook posts {"tags":[...]} to the operator's address, signed as reviewd's
// other notices: X-Service-Timestamp, X-Service-Event-Id and X-Service-Signature
// = hex HMAC-SHA256(secret, timestamp + "." + body).
type Webhook struct {
	Out    *outbound.Client
	URL    string
	Secret []byte
	// Now is the clock of the timestamp (time.Now when nil).
	Now func() time.Time
}

// Batch is the largest number of tags of one call.
func (w *Webhook) Batch() int { return WebhookBatch }

// Purge sends one signed notice; an answer other than 2xx is an error.
func (w *Webhook) Purge(ctx context.Context, tags []string) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	body, _ := json.Marshal(map[string][]string{"tags": tags})
	ts := now().UTC().Format(time.RFC3339)
	var id [12]byte
	_, _ = rand.Read(id[:])
	n := outbound.Notice{URL: w.URL, UserAgent: userAgent, Timestamp: ts, EventID: "cdn_" + hex.EncodeToString(id[:]),
		Signature: core.Sign(w.Secret, ts, body), Body: body, Timeout: purgeTimeout, MaxBytes: purgeMaxBytes}
	res, err := w.Out.Do(outbound.WithTarget(ctx, "cdn"), n.Request())
	if err != nil {
		return err
	}
	if res.Status/100 != 2 {
		return fmt.Errorf("cdn: purge webhook: %d %s", res.Status, clip(res.Body))
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}
