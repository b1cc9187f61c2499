package core

import (
	"net/url"
	"regexp"
	"strings"

	"reviewd/store"
)

var (
	// ReChannelCode is the form of a channel code.
	ReChannelCode = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$`)
	// ReMarket is the form of a market (ISO 3166 alpha-2, upper case).
	ReMarket = regexp.MustCompile(`^[A-Z]{2}$`)
	reDomain = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$|^localhost$`)
)

// Styles and themes of the review component.
var (
	Styles = []string{"cards", "sidebar"}
	Themes = []string{"warm", "trust", "editorial", "minimal", "soft", "bold", "natural", "night"}
)

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

// ValidDomain reports whether d (normalized) is a domain name a channel may have.
func ValidDomain(d string) bool { return len(d) <= 253 && reDomain.MatchString(d) }

// BrandOf is the name a customer knows the channel by: its brand name, else its
// label.
func BrandOf(ch store.Channel) string {
	if ch.BrandName != "" {
		return ch.BrandName
	}
	return ch.Label
}
