package storefront_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"reviewd/app/core/buyer"
	"reviewd/jobs"
	"reviewd/store"
)

// TestCleanupRemovesUnattachedUploads: the cleanup job deletes uploads never
// attached to a review (row and file) at once when their line is reviewed or no
// live token covers it, and after 24 hours otherwise; attachable ones stay.
func TestCleanupRemovesUnattachedUploads(t *testing.T) {
	f := newFx(t)
	f.order("M-1", "ayse@example.com", line{ref: "1"}, line{ref: "2"})
	f.order("M-2", "ayse@example.com", line{ref: "1"})
	tok := f.issue(buyer.TokenInvitation, "M-1", "1", "2")
	short := f.issueUntil(buyer.TokenInvitation, "M-2", f.Clock.T.Add(time.Hour), "1")

	onLine1 := f.mustUpload(tok, "1", testPNG(t, 4, 4))
	onLine2 := f.mustUpload(tok, "2", testPNG(t, 4, 4))
	expiring := f.mustUpload(short, "1", testPNG(t, 4, 4))
	cleanup := jobs.Cleanup{DB: f.App.DB, Reviews: f.App.Reviews}
	exists := func(id string) bool {
		_, err := f.App.DB.Read().MediaByPublicID(ctx, id)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	file := func(id string) string { return filepath.Join(f.App.MediaDir(), "incoming", id+".png") }
	run := func(at time.Time) {
		t.Helper()
		if _, err := cleanup.Run(ctx, at); err != nil {
			t.Fatal(err)
		}
	}

	run(f.Clock.T)
	for _, id := range []string{onLine1, onLine2, expiring} {
		if !exists(id) {
			t.Fatalf("attachable upload %s deleted", id)
		}
	}

	// Line 1 is reviewed without the file: it can never be attached now.
	f.mustWrite(tok, row("1"))
	// Two hours on, the second order's token has expired.
	run(f.Clock.T.Add(2 * time.Hour))
	if exists(onLine1) || exists(expiring) {
		t.Fatal("uploads of a reviewed line or an expired token kept")
	}
	if _, err := os.Stat(file(onLine1)); !os.IsNotExist(err) {
		t.Fatalf("file of a deleted upload kept: %v", err)
	}
	if !exists(onLine2) {
		t.Fatal("upload of a line still writable deleted")
	}

	// After 24 hours nothing unattached is kept.
	run(f.Clock.T.Add(25 * time.Hour))
	if exists(onLine2) {
		t.Fatal("upload older than 24 hours kept")
	}
	if _, err := os.Stat(file(onLine2)); !os.IsNotExist(err) {
		t.Fatalf("file kept: %v", err)
	}
}
