package marketplace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Feed limits: a page is at most 20 MB and a read at most 100 pages
// (docs/marketplace.md).
const (
	FeedPageLimit = 100
	feedPageBytes = MaxFileBytes
	feedTimeout   = 60 * time.Second
)

// Failure codes of a feed read (spec 3: shown on a source's reads).
const (
	FailCursorRepeated = "cursor_repeated"
)

// FeedError is a failed feed read; Code is what the run records.
type FeedError struct{ Code string }

func (e *FeedError) Error() string { return "marketplace feed: " + e.Code }

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
func FetchPages(ctx context.Context, out *outbound.Client, first string, header map[string][]string, limit int,
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
		res, err := out.Do(ctx, outbound.Request{URL: next, Header: header, Timeout: feedTimeout, MaxBytes: feedPageBytes})
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

// feedPage is a JSON page of a marketplace feed.
type feedPage struct {
	Reviews []json.RawMessage `json:"reviews"`
	Next    string            `json:"next"`
}

// readFeed reads every page of a connection's feed into the importer. Pages are
// JSON ({"reviews": [...], "next"}) or CSV with a header line (paged by Link
// header).
func (c *Service) readFeed(ctx context.Context, im *importer, s store.MarketplaceSource) error {
	h := map[string][]string{"Accept": {"application/json, text/csv"}, "User-Agent": {"reviewd"}}
	if len(s.SecretEnc) > 0 {
		secret, err := c.Keys.Decrypt(s.SecretEnc)
		if err != nil {
			return &FeedError{Code: "secret_undecryptable"}
		}
		h["Authorization"] = []string{"Bearer " + string(secret)}
	}
	ctx = outbound.WithTarget(ctx, "marketplace")
	_, err := FetchPages(ctx, c.Outbound, s.FeedURL, h, FeedPageLimit, func(u string, res *outbound.Response) (string, error) {
		body := bytes.TrimSpace(bytes.TrimPrefix(res.Body, []byte("\xef\xbb\xbf")))
		if len(body) > 0 && body[0] == '{' || len(body) > 0 && body[0] == '[' {
			var p feedPage
			if body[0] == '[' {
				if err := json.Unmarshal(body, &p.Reviews); err != nil {
					return "", &FeedError{Code: "file_unreadable"}
				}
			} else if err := json.Unmarshal(body, &p); err != nil {
				return "", &FeedError{Code: "file_unreadable"}
			}
			src, err := newJSONStream(bytes.NewReader(mustArray(p.Reviews)), nil, im.p)
			if err != nil {
				return "", feedErr(err)
			}
			if err := im.consume(ctx, src); err != nil {
				return "", feedErr(err)
			}
			return NextPage(u, res.Header, p.Next)
		}
		src, err := newCSVFromBytes(body, im.p)
		if err != nil {
			return "", feedErr(err)
		}
		if err := im.consume(ctx, src); err != nil {
			return "", feedErr(err)
		}
		return NextPage(u, res.Header, "")
	})
	return err
}

func mustArray(items []json.RawMessage) []byte {
	b, _ := json.Marshal(items)
	if len(items) == 0 {
		return []byte("[]")
	}
	return b
}

// feedErr turns a file problem of a feed page into the run's failure code.
func feedErr(err error) error {
	var ce *core.Error
	if errors.As(err, &ce) {
		return &FeedError{Code: ce.Detail}
	}
	return err
}

func failureOf(err error) string {
	var fe *FeedError
	if errors.As(err, &fe) {
		return fe.Code
	}
	return failureCode(err)
}

// RunDue reads every due feed connection (the marketplace job): one full read per
// connection (removals are held back until a read with confirm_removals), made due
// again after FeedInterval (failed reads retry after FeedInterval too). It returns how many were read and failed.
func (c *Service) RunDue(ctx context.Context, now time.Time) (read, failed int, err error) {
	ss, err := c.DB.Read().DueMarketplaceSources(ctx, now)
	if err != nil {
		return 0, 0, err
	}
	a := core.System("marketplace")
	for _, s := range ss {
		var run store.MarketplaceRun
		err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
			var err error
			run, err = tx.CreateMarketplaceRun(ctx, store.MarketplaceRun{SourceID: s.ID, Trigger: "schedule", Scope: ScopeFull})
			return err
		})
		if errors.Is(err, store.ErrConflict) {
			continue // a manual read is under way
		}
		if err != nil {
			return read, failed, err
		}
		state, _ := c.execute(ctx, a, s, run, "")
		read++
		if state == RunFailed {
			failed++
		}
		err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
			_, err := tx.FinishMarketplaceFeedRead(ctx, s.ID, state == RunFailed, now.Add(FeedInterval))
			return err
		})
		if err != nil {
			return read, failed, err
		}
	}
	return read, failed, nil
}

// FeedInterval is the time between scheduled reads of a feed connection.
const FeedInterval = 6 * time.Hour

var _ = strings.TrimSpace
