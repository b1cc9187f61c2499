package transparency_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"reviewd/app/core"
	"reviewd/app/core/transparency"
	"reviewd/store"
	"reviewd/store/storetest"
)

// BenchmarkTransparency measures the log at the size REVIEWD_TRANSPARENCY_BENCH
// names (docs/transparency.md; not run in CI):
//
//	REVIEWD_TRANSPARENCY_BENCH=1000000 go test -run XXX -bench Transparency -benchtime 1x ./app/core/transparency/
//
// It appends that many decisions (1000 per transaction, over 1000 reviews), signs
// a checkpoint, proves inclusion and consistency at random points, and runs the
// auditor's work of `verify` without HTTP: read every entry 1000 at a time, parse,
// rebuild the tree and compare the root.
func BenchmarkTransparency(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("REVIEWD_TRANSPARENCY_BENCH"))
	if n <= 0 {
		b.Skip("set REVIEWD_TRANSPARENCY_BENCH to the number of entries")
	}
	ctx := context.Background()
	db := storetest.Open(b, &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)})
	keys, _ := core.NewKeyring(make([]byte, 32))
	s := &transparency.Service{DB: db, Keys: keys, Clock: core.NewClock(db), PublicURL: "https://reviews.example"}
	var ids []int64
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		ch, err := tx.CreateChannel(ctx, store.Channel{Code: "web", Market: "TR", Language: "tr", Label: "Web", BrandName: "Acme"})
		if err != nil {
			return err
		}
		for i := range 1000 {
			r := storetest.Review(ch, fmt.Sprintf("r_%020d", i), core.ReviewPending, tx.Now)
			r.Experience, r.Origin, r.Rating, r.VariantKey = core.ExperienceProduct, core.OriginOwn, 1+i%5, fmt.Sprintf("SKU-%d", i%50)
			if r, err = tx.CreateReview(ctx, r); err != nil {
				return err
			}
			ids = append(ids, r.ID)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	moves := [][2]string{{core.ReviewPending, core.ReviewPublished}, {core.ReviewPublished, core.ReviewHidden},
		{core.ReviewHidden, core.ReviewPublished}, {core.ReviewPublished, core.ReviewRejected}}
	b.ResetTimer()
	start := time.Now()
	for done := 0; done < n; {
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			for i := 0; i < 1000 && done < n; i, done = i+1, done+1 {
				m := moves[done%len(moves)]
				if err := s.Append(ctx, tx, transparency.Decision{ReviewID: ids[done%len(ids)], From: m[0], To: m[1],
					Reason: "profanity", Actor: core.Console()}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	appendTime := time.Since(start)
	b.ReportMetric(float64(appendTime.Microseconds())/float64(n), "µs/append")

	start = time.Now()
	if _, _, err := s.SignCheckpoint(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Microseconds()), "µs/checkpoint")

	const proofs = 1000
	start = time.Now()
	for i := range proofs {
		idx := (int64(i) * 7919) % int64(n)
		if _, err := s.ProveInclusion(ctx, strconv.FormatInt(idx, 10), strconv.Itoa(n)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/proofs, "µs/inclusion")
	start = time.Now()
	for i := range proofs {
		from := 1 + (int64(i)*104729)%int64(n)
		if _, err := s.ProveConsistency(ctx, strconv.FormatInt(from, 10), strconv.Itoa(n)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/proofs, "µs/consistency")

	start = time.Now()
	var tree transparency.AuditTree
	for tree.Size() < int64(n) {
		from := tree.Size()
		page, err := s.Entries(ctx, strconv.FormatInt(from, 10), strconv.FormatInt(from+transparency.MaxEntries, 10))
		if err != nil {
			b.Fatal(err)
		}
		recs, _, err := transparency.ParseRecords(page.Data, from)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if err := tree.Add(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	root, err := tree.Root(int64(n))
	cp, _ := s.Latest(ctx)
	if err != nil || root != cp.Tree.Hash {
		b.Fatalf("rebuilt root %v, signed %v: %v", root, cp.Tree.Hash, err)
	}
	b.ReportMetric(time.Since(start).Seconds(), "s/verify")
	size := cp.Tree.N
	start = time.Now()
	if _, err := s.Report(ctx, "2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z"); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/report")
	b.Logf("%d entries (%d stored hashes): append %s, verify rebuilt root %s", size, tlog.StoredHashCount(size), appendTime, root)
}
