// Package cdn names the storefront's public answers for a CDN (cache tags) and
// sends the purges that make a CDN drop them when they change (docs/cdn.md).
//
// A change of a product's public answers is queued in the database, in the
// transaction that makes it (triggers on product_stats, questions, answers and
// read_generation fill cdn_purges); Drainer sends the queue out by the configured
// route, batched and retried with backoff, off the request path, through the
// SSRF-safe outbound client.
package cdn

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Tag format (docs/cdn.md): every tagged answer carries AllTag, the product's tag
// and the channel's tag, in Cache-Tag (comma-separated, Cloudflare) and
// Surrogate-Key (space-separated, Fastly and most others).
const (
	// AllTag is on every tagged answer; it is purged when the read generation
	// moves (keys, channels, domains, settings, rules, method statements).
	AllTag = "reviewd"
	// productPrefix + 20 hex digits of SHA-256(scope NUL product key).
	productPrefix = "reviewd-p-"
	// channelPrefix + the channel code (or 20 hex digits of its SHA-256 when the
	// code holds characters outside [a-z0-9_-]).
	channelPrefix = "reviewd-c-"
)

// ScopeVariant is the default scope of a product parameter.
const ScopeVariant = "variant"

// ProductTag is the tag of a product's answers in one scope ("" is variant).
func ProductTag(scope, key string) string {
	if scope == "" {
		scope = ScopeVariant
	}
	sum := sha256.Sum256([]byte(scope + "\x00" + key))
	return productPrefix + hex.EncodeToString(sum[:10])
}

var plainCode = regexp.MustCompile(`^[a-z0-9_-]{1,40}$`)

// ChannelTag is the tag of a channel's answers.
func ChannelTag(code string) string {
	if plainCode.MatchString(code) {
		return channelPrefix + code
	}
	sum := sha256.Sum256([]byte(code))
	return channelPrefix + hex.EncodeToString(sum[:10])
}

// Tags are the tag header values of one answer, built once.
type Tags struct {
	CacheTag, SurrogateKey []string
}

// NewTags is the header values naming tags.
func NewTags(tags ...string) Tags {
	return Tags{CacheTag: []string{strings.Join(tags, ",")}, SurrogateKey: []string{strings.Join(tags, " ")}}
}

// Purge route kinds (cdn.purge.kind).
const (
	KindCloudflare = "cloudflare"
	KindFastly     = "fastly"
	KindWebhook    = "webhook"
)

// Config is the cdn block of the configuration (cdn.* keys).
type Config struct {
	Purge PurgeConfig `mapstructure:"purge"`
}

// PurgeConfig says where purges go; an empty Kind sends none.
type PurgeConfig struct {
	// Kind is "", cloudflare, fastly or webhook.
	Kind string `mapstructure:"kind"`
	// ZoneID and APIToken: Cloudflare (a token with the Cache Purge permission).
	ZoneID   string `mapstructure:"zone_id"`
	APIToken string `mapstructure:"api_token"`
	// ServiceID and APIKey: Fastly (a token with the purge_select scope).
	ServiceID string `mapstructure:"service_id"`
	APIKey    string `mapstructure:"api_key"`
	// URL and Secret: a signed generic webhook (https).
	URL    string `mapstructure:"url"`
	Secret string `mapstructure:"secret"`
	// Interval is how often the queue is looked at.
	Interval time.Duration `mapstructure:"interval"`
}

// DefaultInterval is cdn.purge.interval's default.
const DefaultInterval = time.Second

// MinWebhookSecret is the shortest cdn.purge.secret accepted.
const MinWebhookSecret = 16

var plainID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Validate reports every problem of the block at once, each prefixed with its key.
func (c Config) Validate() error {
	p := c.Purge
	var errs []error
	switch p.Kind {
	case "":
	case KindCloudflare:
		if !plainID.MatchString(p.ZoneID) {
			errs = append(errs, fmt.Errorf("cdn.purge.zone_id: %q is not a zone id", p.ZoneID))
		}
		if p.APIToken == "" {
			errs = append(errs, errors.New("cdn.purge.api_token: empty"))
		}
	case KindFastly:
		if !plainID.MatchString(p.ServiceID) {
			errs = append(errs, fmt.Errorf("cdn.purge.service_id: %q is not a service id", p.ServiceID))
		}
		if p.APIKey == "" {
			errs = append(errs, errors.New("cdn.purge.api_key: empty"))
		}
	case KindWebhook:
		if u, err := url.Parse(p.URL); err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, fmt.Errorf("cdn.purge.url: %q is not an https address", p.URL))
		}
		if len(p.Secret) < MinWebhookSecret {
			errs = append(errs, fmt.Errorf("cdn.purge.secret: shorter than %d characters", MinWebhookSecret))
		}
	default:
		errs = append(errs, fmt.Errorf("cdn.purge.kind: %q is not cloudflare, fastly or webhook", p.Kind))
	}
	if p.Interval < 100*time.Millisecond {
		errs = append(errs, fmt.Errorf("cdn.purge.interval: %s is below 100ms", p.Interval))
	}
	return errors.Join(errs...)
}
