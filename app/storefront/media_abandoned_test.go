package storefront_test

import (
	"testing"
	"time"

	"reviewd/app/core/buyer"
	"reviewd/store"
)

// TestMediaCrashingClaimsFailAfterThreeAttempts: an upload whose processing is
// claimed and never finished (the process died on it) is claimed again at most
// three times in all, then failed with processing_failed instead of forever.
func TestMediaCrashingClaimsFailAfterThreeAttempts(t *testing.T) {
	f := newFx(t)
	f.order("M-1", "ayse@example.com", line{ref: "1"})
	tok := f.issue(buyer.TokenInvitation, "M-1", "1")
	id := f.mustUpload(tok, "1", testPNG(t, 4, 4))

	// Three runs each claim the file and die before finishing: the claim runs out.
	at := f.Clock.T
	for i := 1; i <= 3; i++ {
		err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
			tx.Now = at
			m, ok, err := tx.ClaimMedia(ctx, at.Add(15*time.Minute))
			if err == nil && (!ok || m.PublicID != id) {
				t.Fatalf("claim %d: %v %+v", i, ok, m)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		at = at.Add(16 * time.Minute)
	}
	run, err := f.App.Reviews.ProcessMedia(ctx, at, 50)
	if err != nil {
		t.Fatal(err)
	}
	m := f.media(id)
	if m.State != store.MediaFailed || m.Refusal != "processing_failed" || m.Attempts != 3 || run.Failed != 1 {
		t.Fatalf("after three abandoned claims: state %s refusal %q attempts %d, run %s", m.State, m.Refusal, m.Attempts, run)
	}
	// Nothing claims it again.
	if run, err := f.App.Reviews.ProcessMedia(ctx, at.Add(time.Hour), 50); err != nil || run.Failed != 0 || run.Ready != 0 {
		t.Fatalf("later run: %s %v", run, err)
	}
}
