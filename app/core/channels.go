package core

import (
	"context"
	"net/url"
	"regexp"
	"strings"

	"reviewd/store"
)

var (
	reChannelCode = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$`)
	ReMarket      = regexp.MustCompile(`^[A-Z]{2}$`)
	reDomain      = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$|^localhost$`)
)

// Styles and themes of the review component.
var (
	Styles = []string{"cards", "sidebar"}
	Themes = []string{"warm", "trust", "editorial", "minimal", "soft", "bold", "natural", "night"}
)

// NewChannel is the input of CreateChannel.
type NewChannel struct {
	Code, Market, Language, Label, BrandName string
	Domains                                  []string
	LandingURL, PrivacyURL                   string
}

// NormalizeDomain lower-cases a domain and strips a scheme, port or path given by
// mistake.
func NormalizeDomain(d string) string {
	d = strings.TrimSpace(strings.ToLower(d))
	if u, err := url.Parse(d); err == nil && u.Host != "" {
		d = u.Hostname()
	}
	d, _, _ = strings.Cut(d, "/")
	if h, _, ok := strings.Cut(d, ":"); ok {
		d = h
	}
	return strings.TrimSuffix(d, ".")
}

// CreateChannel validates and stores a channel with its verified domains.
func (c *Core) CreateChannel(ctx context.Context, a *Actor, in NewChannel) (store.Channel, error) {
	in.Market = strings.ToUpper(strings.TrimSpace(in.Market))
	switch {
	case !reChannelCode.MatchString(in.Code):
		return store.Channel{}, Invalid("code")
	case !ReMarket.MatchString(in.Market):
		return store.Channel{}, Invalid("market")
	case in.Language != "tr" && in.Language != "en":
		return store.Channel{}, Invalid("language")
	case strings.TrimSpace(in.Label) == "" || len(in.Label) > 120:
		return store.Channel{}, Invalid("label")
	case strings.TrimSpace(in.BrandName) == "" || len(in.BrandName) > 120:
		return store.Channel{}, Invalid("brand_name")
	}
	if in.LandingURL != "" && !isHTTPURL(in.LandingURL) {
		return store.Channel{}, Invalid("landing_url")
	}
	if in.PrivacyURL != "" {
		if !strings.HasPrefix(in.PrivacyURL, "https://") || !isHTTPURL(in.PrivacyURL) {
			return store.Channel{}, Invalid("privacy_url_not_https")
		}
		if len(in.PrivacyURL) > 500 {
			return store.Channel{}, Invalid("privacy_url_too_long")
		}
	}
	ch := store.Channel{Code: in.Code, Market: in.Market, Language: in.Language, Label: in.Label, BrandName: in.BrandName,
		LandingURL: in.LandingURL, PrivacyURL: in.PrivacyURL, Style: "cards", Theme: "warm", Active: true}
	for _, d := range in.Domains {
		d = NormalizeDomain(d)
		if !reDomain.MatchString(d) {
			return store.Channel{}, Invalidf("domain", d)
		}
		ch.Domains = append(ch.Domains, d)
	}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ChannelByCode(ctx, in.Code); err == nil {
			return Conflict("channel_exists", "channel_exists")
		}
		var err error
		if ch, err = tx.CreateChannel(ctx, ch); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "channel.created", "channel", ch.Code, map[string]any{"market": ch.Market, "domains": ch.Domains})
	})
	return ch, err
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// BrandOf is the name a customer knows the channel by: its brand name, else its
// label.
func BrandOf(ch store.Channel) string {
	if ch.BrandName != "" {
		return ch.BrandName
	}
	return ch.Label
}
