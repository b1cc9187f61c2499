package marketplace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/catalogue"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Feed limits: a page is at most 20 MB and a read at most 100 pages
// (docs/marketplace.md).
const (
	FeedPageLimit = 100
	feedPageBytes = MaxFileBytes
)

// readFeed reads every page of a connection's feed into the importer. Pages are
// JSON ({"reviews": [...], "next"} or a bare array) or CSV with a header line
// (paged by Link header), read as a stream one row at a time; a page of more than
// catalogue.MaxPageItems rows fails the read.
func (c *Service) readFeed(ctx context.Context, im *importer, s store.MarketplaceSource) error {
	h := map[string][]string{"Accept": {"application/json, text/csv"}, "User-Agent": {"reviewd"}}
	if len(s.SecretEnc) > 0 {
		secret, err := c.Keys.Decrypt(s.SecretEnc)
		if err != nil {
			return &catalogue.FeedError{Code: "secret_undecryptable"}
		}
		h["Authorization"] = []string{"Bearer " + string(secret)}
	}
	ctx = outbound.WithTarget(ctx, "marketplace")
	_, err := catalogue.FetchPages(ctx, c.Outbound, s.FeedURL, h, FeedPageLimit, feedPageBytes, func(u string, h outbound.Header, body io.Reader) (string, error) {
		br := bufio.NewReaderSize(body, 64<<10)
		if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
			_, _ = br.Discard(3)
		}
		first := byte(0)
		for {
			b, err := br.Peek(1)
			if err != nil {
				if err != io.EOF {
					return "", catalogue.Unreadable(err, "file_unreadable")
				}
				break
			}
			if b[0] != ' ' && b[0] != '\t' && b[0] != '\r' && b[0] != '\n' {
				first = b[0]
				break
			}
			_, _ = br.Discard(1)
		}
		if first == '{' || first == '[' {
			src, err := newJSONStream(br, nil, im.p)
			if err != nil {
				return "", feedErr(err)
			}
			if err := im.consume(ctx, &cappedRows{src: src}); err != nil {
				return "", feedErr(err)
			}
			next, err := src.rest()
			if err != nil {
				return "", feedErr(err)
			}
			return catalogue.NextPage(u, h, next)
		}
		src, err := newCSVStream(br, nil, im.p)
		if err != nil {
			return "", feedErr(err)
		}
		if err := im.consume(ctx, &cappedRows{src: src}); err != nil {
			return "", feedErr(err)
		}
		return catalogue.NextPage(u, h, "")
	})
	return err
}

// cappedRows fails a feed page after catalogue.MaxPageItems rows.
type cappedRows struct {
	src rowSource
	n   int
}

func (c *cappedRows) Next() (Row, error) {
	r, err := c.src.Next()
	if err != nil {
		return r, err
	}
	if c.n++; c.n > catalogue.MaxPageItems {
		return Row{}, &catalogue.FeedError{Code: catalogue.FailPageItems}
	}
	return r, nil
}

func (c *cappedRows) Close() error { return c.src.Close() }

// feedErr turns a file problem of a feed page into the run's failure code.
func feedErr(err error) error {
	var oe *outbound.Error
	if errors.As(err, &oe) {
		return &catalogue.FeedError{Code: oe.Code}
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return &catalogue.FeedError{Code: ce.Detail}
	}
	return err
}

func failureOf(err error) string {
	var fe *catalogue.FeedError
	if errors.As(err, &fe) {
		return fe.Code
	}
	return failureCode(err)
}

// RunDue reads every due feed connection (the marketplace job): one full read per
// connection (removals are held back until a read with confirm_removals), made due
// again after FeedInterval (failed reads retry after FeedInterval too), then fetches
// the photos due again. It returns how many feeds were read and failed.
func (c *Service) RunDue(ctx context.Context, now time.Time) (read, failed int, err error) {
	// A read left queued or running by a process that ended would block its
	// connection (one read at a time): fail it after StaleRunAfter.
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.FailStaleMarketplaceRuns(ctx, now.Add(-StaleRunAfter))
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	ss, err := c.DB.Read().DueMarketplaceSources(ctx, now)
	if err != nil {
		return 0, 0, err
	}
	a := core.System("marketplace")
	for _, s := range ss {
		var run store.MarketplaceRun
		err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
			// Due again before the read starts, committed with the run: a read
			// that takes the process down is not repeated at every start.
			if err := tx.DeferMarketplaceFeed(ctx, s.ID, now.Add(FeedInterval)); err != nil {
				return err
			}
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
	// Photos that could not be fetched by their read are tried again here, the
	// file route's too.
	if _, err := c.FetchDuePhotos(ctx, now); err != nil {
		return read, failed, err
	}
	return read, failed, nil
}

// StaleRunAfter is how long a run may stay queued or running before the job fails
// it as interrupted.
const StaleRunAfter = 2 * time.Hour

// FeedInterval is the time between scheduled reads of a feed connection.
const FeedInterval = 6 * time.Hour
