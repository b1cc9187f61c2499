package ingest_test

import (
	"context"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/ingest"
	"reviewd/store"
)

// TestDryRunTakesNoWriteLock: while another transfer holds the single writer, an
// anonymous dry run still answers at once; it never queues behind (or in front
// of) real writes.
func TestDryRunTakesNoWriteLock(t *testing.T) {
	f := newFixture(t)
	holding, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- f.App.DB.WithTx(context.Background(), func(tx *store.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	answered := make(chan apptest.Response, 2)
	go func() {
		answered <- f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "order", "body": order("W-1")}, nil)
		answered <- f.Do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "delivery",
			"body": map[string]any{"external_id": "W-1", "line_reference": "1", "state": "delivered", "observed_at": "2026-01-01T00:00:00Z"}}, nil)
	}()
	for i := 0; i < 2; i++ {
		select {
		case r := <-answered:
			expect(t, r, 200, "")
			if r.JSON["accepted"] != true {
				t.Fatalf("dry run %d: %s", i, r.Body)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("dry run %d waited 5s for the writer held by another transfer", i)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestDryRunAnonymousLimit: callers without credentials get a tighter per-address
// limit than signed-in ones.
func TestDryRunAnonymousLimit(t *testing.T) {
	f := newFixture(t)
	body := map[string]any{"kind": "order", "body": order("Z")}
	for i := 0; i < ingest.AnonymousChecksPerMinute; i++ {
		expect(t, f.Do("POST", "/admin/v1/ingest/check", body, nil), 200, "")
	}
	expect(t, f.Do("POST", "/admin/v1/ingest/check", body, nil), 429, "rate_limited / rate_limited")
	expect(t, f.Do("POST", "/admin/v1/ingest/check", body, f.admin()), 200, "")
}
