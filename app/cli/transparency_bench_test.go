package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/transparency"
	"reviewd/store"
	"reviewd/store/storetest"
)

// TestTransparencyVerifyScale audits a served log of REVIEWD_TRANSPARENCY_BENCH
// entries over HTTP with `reviewd transparency verify` and reports how long the
// audit took (docs/transparency.md; not run in CI):
//
//	REVIEWD_TRANSPARENCY_BENCH=1000000 go test -count=1 -v -timeout 30m -run TestTransparencyVerifyScale ./app/cli/
//
// The log is seeded as BenchmarkTransparency seeds it (1000 decisions a
// transaction over 1000 reviews), straight through transparency.Append, then
// served by the real server on loopback: the per-IP limits apply.
func TestTransparencyVerifyScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("REVIEWD_TRANSPARENCY_BENCH"))
	if n <= 0 {
		t.Skip("set REVIEWD_TRANSPARENCY_BENCH to the number of entries")
	}
	f := newLogFx(t)
	db, s := f.App.DB, f.App.Transparency
	var ids []int64
	err := db.WithTx(bg, func(tx *store.Tx) error {
		for i := range 1000 {
			r := storetest.Review(f.ch, fmt.Sprintf("r_%020d", i), core.ReviewPending, tx.Now)
			r.Experience, r.Origin, r.Rating, r.VariantKey = core.ExperienceProduct, core.OriginOwn, 1+i%5, fmt.Sprintf("SKU-%d", i%50)
			r, err := tx.CreateReview(bg, r)
			if err != nil {
				return err
			}
			ids = append(ids, r.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	moves := [][2]string{{core.ReviewPending, core.ReviewPublished}, {core.ReviewPublished, core.ReviewHidden},
		{core.ReviewHidden, core.ReviewPublished}, {core.ReviewPublished, core.ReviewRejected}}
	start := time.Now()
	for done := 0; done < n; {
		err := db.WithTx(bg, func(tx *store.Tx) error {
			for i := 0; i < 1000 && done < n; i, done = i+1, done+1 {
				m := moves[done%len(moves)]
				if err := s.Append(bg, tx, transparency.Decision{ReviewID: ids[done%len(ids)], From: m[0], To: m[1],
					Reason: "profanity", Actor: core.Console()}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seeded %d entries in %s", n, time.Since(start).Round(time.Second))
	f.sign()

	state := filepath.Join(t.TempDir(), "state.json")
	start = time.Now()
	res := f.verify(state)
	took := time.Since(start)
	if res.Error != nil {
		t.Fatalf("verify: %v\n%s", res.Error, res.Err)
	}
	t.Logf("verify over HTTP of %d entries: %s\n%s", n, took.Round(100*time.Millisecond), res.Out)
	if took > time.Minute {
		t.Errorf("verify took %s, over a minute", took)
	}
}
