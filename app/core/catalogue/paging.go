package catalogue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"time"

	"reviewd/app/outbound"
)

// FeedTimeout bounds the fetch of one feed page.
const FeedTimeout = 60 * time.Second

// Failure codes of a feed read (spec 3: shown on a source's reads).
const (
	FailCursorRepeated = "cursor_repeated"
)

// FeedError is a failed feed read; Code is what the run records.
type FeedError struct{ Code string }

func (e *FeedError) Error() string { return "feed: " + e.Code }

var linkNext = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="?next"?`)

// NextPage finds the next page of a paged feed: the JSON member "next", else an
// HTTP Link header with rel="next". Relative addresses resolve against the page.
func NextPage(page string, h map[string][]string, next string) (string, error) {
	if next == "" {
		for _, v := range h["Link"] {
			if m := linkNext.FindStringSubmatch(v); m != nil {
				next = m[1]
			}
		}
	}
	if next == "" {
		return "", nil
	}
	base, err := url.Parse(page)
	if err != nil {
		return "", err
	}
	u, err := base.Parse(next)
	if err != nil {
		return "", &FeedError{Code: "next_invalid"}
	}
	return u.String(), nil
}

// MaxPageItems is the most items one feed page may hold; a fuller page fails the
// read with page_item_limit_reached: <limit> before its items are kept.
const MaxPageItems = 10000

// FailPageItems is the failure code of a page over MaxPageItems.
var FailPageItems = fmt.Sprintf("page_item_limit_reached: %d", MaxPageItems)

// Unreadable is the failure of a page that does not parse: the outbound failure
// when reading the body broke (too_large, timeout, ...), else a FeedError with
// code.
func Unreadable(err error, code string) error {
	var oe *outbound.Error
	if errors.As(err, &oe) {
		return err
	}
	var fe *FeedError
	if errors.As(err, &fe) {
		return err
	}
	return &FeedError{Code: code}
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return "443"
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub)
}

// FetchPages reads a paged feed over the outbound client: each page's body is
// handed to page as a stream (at most maxBytes), and page returns the page's next
// address ("" at the end). A next address seen before fails the read with
// cursor_repeated, more than limit pages with page_limit_reached: <limit>; HTTP
// failures give http_status: <code> and the outbound codes (timeout, too_large,
// address_refused, ...). The Authorization header goes only to the origin (scheme,
// host and port) of first: a page on another origin is read without it.
func FetchPages(ctx context.Context, out *outbound.Client, first string, header map[string][]string, limit int, maxBytes int64,
	page func(url string, h outbound.Header, body io.Reader) (string, error)) (pages int, err error) {
	seen := map[string]bool{}
	next := first
	for next != "" {
		if seen[next] {
			return pages, &FeedError{Code: FailCursorRepeated}
		}
		if pages == limit {
			return pages, &FeedError{Code: fmt.Sprintf("page_limit_reached: %d", limit)}
		}
		seen[next] = true
		h := outbound.Header(header).Clone()
		if !sameOrigin(first, next) {
			h.Del("Authorization")
		}
		u := next
		err := out.Stream(ctx, outbound.Request{URL: u, Header: h, Timeout: FeedTimeout, MaxBytes: maxBytes},
			func(status int, rh outbound.Header, body io.Reader) error {
				if status != 200 {
					return &FeedError{Code: fmt.Sprintf("http_status: %d", status)}
				}
				pages++
				var err error
				next, err = page(u, rh, body)
				return err
			})
		if err != nil {
			var fe *FeedError
			if errors.As(err, &fe) {
				return pages, err
			}
			var oe *outbound.Error
			if errors.As(err, &oe) {
				return pages, &FeedError{Code: oe.Code}
			}
			return pages, err
		}
	}
	return pages, nil
}
