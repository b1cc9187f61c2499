package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"reviewd/store"
	"reviewd/store/storetest"
)

func TestAccessLogCannotBeChanged(t *testing.T) {
	ctx := context.Background()
	clock := &storetest.Clock{T: time.Now().UTC()}
	db := storetest.Open(t, clock)
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		return tx.AddAccess(ctx, store.Access{Action: "review.viewed", Via: "session", ActorID: "1", TargetType: "review", TargetID: "r1", Count: 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.DeleteAccessBefore(ctx, clock.T.Add(time.Hour)) // a young entry
		return err
	})
	if err == nil {
		t.Fatal("a young access-log entry was deleted")
	}
	if err := db.Read().QueryRowForTest(ctx, "SELECT count(*) FROM access_log", new(int)); err != nil {
		t.Fatal(err)
	}
	var n int
	_ = db.Read().QueryRowForTest(ctx, "SELECT count(*) FROM access_log", &n)
	if n != 1 {
		t.Fatalf("entries = %d, want 1", n)
	}
	err = db.WithTx(ctx, func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, "UPDATE access_log SET count = 99")
	})
	if err == nil {
		t.Fatal("an access-log entry was changed")
	}
}

func TestAccessLogRetention(t *testing.T) {
	ctx := context.Background()
	old := time.Now().UTC().AddDate(0, 0, -400)
	clock := &storetest.Clock{T: old}
	db := storetest.Open(t, clock)
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		return tx.AddAccess(ctx, store.Access{Action: "review.viewed", Via: "api_key"})
	}); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		n, err = tx.DeleteAccessBefore(ctx, time.Now().UTC().AddDate(0, 0, -365))
		return err
	}); err != nil || n != 1 {
		t.Fatalf("retention delete: n=%d err=%v", n, err)
	}
}

// TestLeaseClaimedOnce: many runners racing for the same lease; exactly one wins
// until it expires or is released.
func TestLeaseClaimedOnce(t *testing.T) {
	ctx := context.Background()
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	db := storetest.Open(t, clock)
	var mu sync.Mutex
	wins := 0
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_ = db.WithTx(ctx, func(tx *store.Tx) error {
				ok, err := tx.ClaimLease(ctx, "job:invitations", string(rune('a'+i)), clock.T.Add(time.Minute))
				if ok {
					mu.Lock()
					wins++
					mu.Unlock()
				}
				return err
			})
		}(i)
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("winners = %d, want 1", wins)
	}
	clock.Advance(2 * time.Minute)
	var ok bool
	_ = db.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		ok, err = tx.ClaimLease(ctx, "job:invitations", "late", clock.T.Add(time.Minute))
		return err
	})
	if !ok {
		t.Fatal("an expired lease could not be claimed")
	}
}
