package store_test

import (
	"context"
	"testing"
	"time"

	"reviewd/store"
	"reviewd/store/storetest"
)

// TestReadStampFollowsWrites: the read state kept in memory shows every write of
// this process as soon as WithTx returns (figures saved, a revision bumped, a
// trigger-moved generation, a question), and a write by another process once its
// change is noticed.
func TestReadStampFollowsWrites(t *testing.T) {
	ctx := context.Background()
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	db := storetest.Open(t, clock)
	write := func(fn func(tx *store.Tx) error) {
		t.Helper()
		if err := db.WithTx(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	stamp := func() store.ReadStamp {
		t.Helper()
		s, err := db.ReadStamp(ctx, store.ScopeVariant, "MUG")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	revOf := func(s store.ReadStamp) int64 {
		if len(s.Revisions) == 0 {
			return 0
		}
		return s.Revisions[0].Revision
	}
	first := stamp()
	if len(first.Revisions) != 0 || revOf(stamp()) != 0 {
		t.Fatalf("a product without figures: %+v", first)
	}
	write(func(tx *store.Tx) error {
		return tx.SaveProductStats(ctx, store.ProductStats{Scope: store.ScopeVariant, ProductKey: "MUG", Market: "TR", Revision: 1})
	})
	if s := stamp(); revOf(s) != 1 || s.Revisions[0].Market != "TR" {
		t.Fatalf("after saving figures: %+v", s)
	}
	write(func(tx *store.Tx) error { return tx.BumpProductRevision(ctx, store.ScopeVariant, "MUG", "TR") })
	if s := stamp(); revOf(s) != 2 {
		t.Fatalf("after a vote: %+v", s)
	}
	var ch store.Channel
	write(func(tx *store.Tx) error {
		var err error
		ch, err = tx.CreateChannel(ctx, store.Channel{Code: "web", Market: "TR", Language: "tr", Label: "Web", BrandName: "Acme",
			Style: "cards", Theme: "warm", Active: true})
		return err
	})
	if s := stamp(); s.Gen == first.Gen || revOf(s) != 2 {
		t.Fatalf("a new channel moves the generation: %+v, before %+v", s, first)
	}
	qa := func() int64 {
		t.Helper()
		n, err := db.QARevision(ctx, "TR")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := qa()
	write(func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `INSERT INTO questions (public_id, channel_id, market, scope, variant_key, language, body,
			state, created_at, updated_at) VALUES ('q_aaaaaaaaaaaaaaaaaaaa', ?, 'TR', 'variant', 'MUG', 'tr', 'Hot?', 'published', 0, 0)`, ch.ID)
	})
	if after := qa(); after == before {
		t.Fatalf("a question does not move the market's Q&A revision (%d)", after)
	}

	// Another process writes to the same file.
	other, err := store.Open(ctx, db.Path(), storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.WithTx(ctx, func(tx *store.Tx) error {
		return tx.BumpProductRevision(ctx, store.ScopeVariant, "MUG", "TR")
	}); err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); revOf(stamp()) != 3; <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("another process's write not seen within 10 s (awaiting revision 3): %+v", stamp())
		}
	}
}
