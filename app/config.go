// Package app holds the configuration and the HTTP server that mounts every surface.
package app

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/viper"

	"reviewd/app/cdn"
	"reviewd/app/core/ai"
	"reviewd/app/media"
	"reviewd/app/replica"
	"reviewd/app/whatsapp"
)

// Config is every key of config.example.yaml.
type Config struct {
	Listen         string   `mapstructure:"listen"`
	PublicURL      string   `mapstructure:"public_url"`
	DataDir        string   `mapstructure:"data_dir"`
	SMTP           SMTP     `mapstructure:"smtp"`
	Clamd          Clamd    `mapstructure:"clamd"`
	FFmpeg         FFmpeg   `mapstructure:"ffmpeg"`
	Outbound       Outbound `mapstructure:"outbound"`
	DNS            DNS      `mapstructure:"dns"`
	TrustedProxies []string `mapstructure:"trusted_proxies"`
	Jobs           Jobs     `mapstructure:"jobs"`
	Log            Log      `mapstructure:"log"`
	Metrics        Metrics  `mapstructure:"metrics"`
	// Replica streams the data folder to object storage (replica.* keys).
	Replica replica.Config `mapstructure:"replica"`
	// Media says where photos and videos are kept (media.* keys).
	Media media.Config `mapstructure:"media"`
	// AI is the AI package (ai.* keys, CONTRACT "AI package").
	AI ai.Config `mapstructure:"ai"`
	// CDN says where cache purges of the storefront's public answers go (cdn.* keys).
	CDN cdn.Config `mapstructure:"cdn"`
	// Follower makes this installation a read-only copy of the primary
	// (follower.* keys, docs/high-availability.md).
	Follower Follower `mapstructure:"follower"`
	// WhatsApp is the messaging-app route of invitations (whatsapp.* keys).
	WhatsApp WhatsApp `mapstructure:"whatsapp"`
}

// WhatsApp configures invitations by WhatsApp (Business Platform Cloud API). The
// route is offered once phone_number_id, access_token and invite_template are set.
type WhatsApp struct {
	PhoneNumberID    string `mapstructure:"phone_number_id"`
	AccessToken      string `mapstructure:"access_token"`
	AppSecret        string `mapstructure:"app_secret"`
	VerifyToken      string `mapstructure:"verify_token"`
	APIURL           string `mapstructure:"api_url"`
	InviteTemplate   string `mapstructure:"invite_template"`
	ReminderTemplate string `mapstructure:"reminder_template"`
}

// SMTP is the outgoing mail server; no host means e-mail sending is off.
type SMTP struct {
	Host     string `mapstructure:"host"`
	Port     int    `mapstructure:"port"`
	Username string `mapstructure:"username"`
	Password string `mapstructure:"password"`
	Security string `mapstructure:"security"`
	From     string `mapstructure:"from"`
}

// Clamd is the virus scanner address: unix:/path or tcp:host:port; empty is off.
type Clamd struct {
	Address string `mapstructure:"address"`
}

// FFmpeg names the video tools; empty means looked up on PATH.
type FFmpeg struct {
	FFmpeg  string `mapstructure:"ffmpeg"`
	FFprobe string `mapstructure:"ffprobe"`
}

// DNS names the DNS server asked for domain proofs (TXT records) and sender
// domains, HOST:PORT; empty is the system resolver.
type DNS struct {
	Server string `mapstructure:"server"`
}

// Outbound configures the SSRF-safe outbound client.
type Outbound struct {
	Resolve []string `mapstructure:"resolve"`
	CAFile  string   `mapstructure:"ca_file"`
}

// Jobs switches the in-process cron jobs.
type Jobs struct {
	Enabled bool `mapstructure:"enabled"`
}

// Metrics turns on the Prometheus endpoint /metrics: on its own address (Listen),
// or on the main listener behind a bearer token (Token), or both. Off when both
// are empty.
type Metrics struct {
	Listen string `mapstructure:"listen"`
	Token  string `mapstructure:"token"`
}

// MetricsMinToken is the shortest metrics.token accepted.
const MetricsMinToken = 16

// Enabled reports whether /metrics is served anywhere.
func (m Metrics) Enabled() bool { return m.Listen != "" || m.Token != "" }

// Log configures the logger.
type Log struct {
	Level  string `mapstructure:"level"`
	Format string `mapstructure:"format"`
}

// Defaults sets the default of every key on v.
func Defaults(v *viper.Viper) {
	v.SetDefault("listen", "127.0.0.1:8080")
	v.SetDefault("public_url", "")
	v.SetDefault("data_dir", "./data")
	v.SetDefault("smtp.host", "")
	v.SetDefault("smtp.port", 0)
	v.SetDefault("smtp.username", "")
	v.SetDefault("smtp.password", "")
	v.SetDefault("smtp.security", "starttls")
	v.SetDefault("smtp.from", "")
	v.SetDefault("clamd.address", "")
	v.SetDefault("ffmpeg.ffmpeg", "")
	v.SetDefault("ffmpeg.ffprobe", "")
	v.SetDefault("outbound.resolve", []string{})
	v.SetDefault("outbound.ca_file", "")
	v.SetDefault("dns.server", "")
	v.SetDefault("trusted_proxies", []string{})
	v.SetDefault("jobs.enabled", true)
	v.SetDefault("ai.provider", ai.ProviderBuiltin)
	v.SetDefault("ai.endpoint", "")
	v.SetDefault("ai.model", "")
	v.SetDefault("ai.api_key", "")
	v.SetDefault("ai.daily_requests", ai.DefaultDailyRequests)
	v.SetDefault("ai.min_reviews", ai.DefaultMinReviews)
	v.SetDefault("log.level", "info")
	v.SetDefault("log.format", "text")
	v.SetDefault("metrics.listen", "")
	v.SetDefault("metrics.token", "")
	replicaDefaults(v)
	v.SetDefault("media.store", media.StoreLocal)
	v.SetDefault("media.public_url", "")
	v.SetDefault("media.s3.endpoint", "")
	v.SetDefault("media.s3.bucket", "")
	v.SetDefault("media.s3.region", "")
	v.SetDefault("media.s3.access_key", "")
	v.SetDefault("media.s3.secret_key", "")
	v.SetDefault("media.s3.path_style", false)
	v.SetDefault("media.s3.prefix", "")
	v.SetDefault("whatsapp.phone_number_id", "")
	v.SetDefault("whatsapp.access_token", "")
	v.SetDefault("whatsapp.app_secret", "")
	v.SetDefault("whatsapp.verify_token", "")
	v.SetDefault("whatsapp.api_url", whatsapp.DefaultAPIURL)
	v.SetDefault("whatsapp.invite_template", "")
	v.SetDefault("whatsapp.reminder_template", "")
	v.SetDefault("cdn.purge.kind", "")
	v.SetDefault("cdn.purge.zone_id", "")
	v.SetDefault("cdn.purge.api_token", "")
	v.SetDefault("cdn.purge.service_id", "")
	v.SetDefault("cdn.purge.api_key", "")
	v.SetDefault("cdn.purge.url", "")
	v.SetDefault("cdn.purge.secret", "")
	v.SetDefault("cdn.purge.interval", cdn.DefaultInterval)
	v.SetDefault("follower.enabled", false)
	v.SetDefault("follower.primary_url", "")
	v.SetDefault("follower.max_lag", 30*time.Second)
	v.SetDefault("follower.pass_writes", true)
}

func replicaDefaults(v *viper.Viper) {
	d := replica.Defaults
	v.SetDefault("replica.url", "")
	v.SetDefault("replica.endpoint", "")
	v.SetDefault("replica.region", "")
	v.SetDefault("replica.access_key_id", "")
	v.SetDefault("replica.secret_access_key", "")
	v.SetDefault("replica.sync_interval", d.SyncInterval)
	v.SetDefault("replica.snapshot_interval", d.SnapshotInterval)
	v.SetDefault("replica.retention", d.Retention)
	v.SetDefault("replica.media_interval", d.MediaInterval)
}

// Load reads v (file, environment and flags already bound by the caller) into a
// Config; unknown keys in the file are an error, so misspellings fail the start.
func Load(v *viper.Viper) (Config, error) {
	var c Config
	if err := v.UnmarshalExact(&c); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	// Lists given in the environment are comma-separated.
	c.Outbound.Resolve = splitList(c.Outbound.Resolve)
	c.TrustedProxies = splitList(c.TrustedProxies)
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.Listen
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if c.Media.Store == "" {
		c.Media.Store = media.StoreLocal
	}
	c.Media.PublicURL = strings.TrimRight(c.Media.PublicURL, "/")
	return c, c.Validate()
}

func splitList(in []string) []string {
	var out []string
	for _, s := range in {
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	var errs []error
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		errs = append(errs, fmt.Errorf("listen: %q is not host:port", c.Listen))
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("public_url: %q is not an http(s) address", c.PublicURL))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("data_dir: empty"))
	}
	switch c.SMTP.Security {
	case "none", "starttls", "tls":
	default:
		errs = append(errs, fmt.Errorf("smtp.security: %q is not none, starttls or tls", c.SMTP.Security))
	}
	if c.SMTP.Host != "" && (c.SMTP.Port < 0 || c.SMTP.Port > 65535) {
		errs = append(errs, fmt.Errorf("smtp.port: %d out of range", c.SMTP.Port))
	}
	if w := c.WhatsApp; w.PhoneNumberID != "" || w.AccessToken != "" || w.InviteTemplate != "" {
		if w.PhoneNumberID == "" || w.AccessToken == "" || w.InviteTemplate == "" {
			errs = append(errs, errors.New("whatsapp: phone_number_id, access_token and invite_template are needed together"))
		}
		if u, err := url.Parse(w.APIURL); err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, fmt.Errorf("whatsapp.api_url: %q is not an https address", w.APIURL))
		}
		if w.AppSecret == "" {
			errs = append(errs, errors.New("whatsapp.app_secret: needed to check incoming events"))
		}
	}
	if a := c.Clamd.Address; a != "" && !strings.HasPrefix(a, "unix:") && !strings.HasPrefix(a, "tcp:") {
		errs = append(errs, fmt.Errorf("clamd.address: %q must start with unix: or tcp:", a))
	}
	for _, r := range c.Outbound.Resolve {
		if _, _, err := ParseResolve(r); err != nil {
			errs = append(errs, fmt.Errorf("outbound.resolve: %w", err))
		}
	}
	if s := c.DNS.Server; s != "" {
		if _, port, err := net.SplitHostPort(s); err != nil || port == "" {
			errs = append(errs, fmt.Errorf("dns.server: %q must be HOST:PORT", s))
		}
	}
	for _, p := range c.TrustedProxies {
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err2 := netip.ParseAddr(p); err2 != nil {
				errs = append(errs, fmt.Errorf("trusted_proxies: %q is not a CIDR", p))
			}
		}
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log.level: %q is not debug, info, warn or error", c.Log.Level))
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		errs = append(errs, fmt.Errorf("log.format: %q is not text or json", c.Log.Format))
	}
	if a := c.Metrics.Listen; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			errs = append(errs, fmt.Errorf("metrics.listen: %q is not host:port", a))
		} else if a == c.Listen {
			errs = append(errs, fmt.Errorf("metrics.listen: %q is the main listen address (use metrics.token there)", a))
		}
	}
	if t := c.Metrics.Token; t != "" && len(t) < MetricsMinToken {
		errs = append(errs, fmt.Errorf("metrics.token: shorter than %d characters", MetricsMinToken))
	}
	if err := c.Replica.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.AI.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Media.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.CDN.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Follower.Validate(c.Replica.Enabled()); err != nil {
		errs = append(errs, err)
	}
	if b, p, ok := c.Replica.S3Location(); ok && c.Media.Store == media.StoreS3 && b == c.Media.S3.Bucket {
		mp := c.Media.S3.KeyPrefix()
		if p += "/"; p == "/" || mp == "" || strings.HasPrefix(p, mp) || strings.HasPrefix(mp, p) {
			errs = append(errs, fmt.Errorf("media.s3.prefix: %q overlaps the replica's prefix in bucket %s; give each its own prefix", c.Media.S3.Prefix, b))
		}
	}
	return errors.Join(errs...)
}

// ParseResolve splits one outbound.resolve entry HOST:PORT=IP:PORT.
func ParseResolve(s string) (from, to string, err error) {
	from, to, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("%q is not HOST:PORT=IP:PORT", s)
	}
	if _, _, err := net.SplitHostPort(from); err != nil {
		return "", "", fmt.Errorf("%q: %v", s, err)
	}
	host, _, err := net.SplitHostPort(to)
	if err != nil {
		return "", "", fmt.Errorf("%q: %v", s, err)
	}
	if _, err := netip.ParseAddr(host); err != nil {
		return "", "", fmt.Errorf("%q: target is not an IP address", s)
	}
	return strings.ToLower(from), to, nil
}
