package catalogue

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
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

// FetchPages reads a paged feed over the outbound client: each page is handed to
// page, which returns the page's next address ("" at the end). A next address
// seen before fails the read with cursor_repeated, more than limit pages with
// page_limit_reached: <limit>; HTTP failures give http_status: <code> and the
// outbound codes (timeout, address_refused, ...).
func FetchPages(ctx context.Context, out *outbound.Client, first string, header map[string][]string, limit int, maxBytes int64,
	page func(url string, res *outbound.Response) (string, error)) (pages int, err error) {
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
		res, err := out.Do(ctx, outbound.Request{URL: next, Header: header, Timeout: FeedTimeout, MaxBytes: maxBytes})
		if err != nil {
			return pages, &FeedError{Code: outbound.Code(err)}
		}
		if res.Status != 200 {
			return pages, &FeedError{Code: fmt.Sprintf("http_status: %d", res.Status)}
		}
		pages++
		if next, err = page(next, res); err != nil {
			return pages, err
		}
	}
	return pages, nil
}
