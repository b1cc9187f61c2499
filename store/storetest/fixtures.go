package storetest

import (
	"context"
	"testing"
	"time"

	"reviewd/store"
)

// published is the review state whose first entry stamps published_at.
const published = "published"

// Review is a review of channel ch stored directly (no order, as bulk and imported
// fixtures are): in state, submitted at, and published at when state is published,
// as the product stamps it. Callers set the content and the rest.
func Review(ch store.Channel, publicID, state string, at time.Time) store.Review {
	r := store.Review{PublicID: publicID, ChannelID: ch.ID, Market: ch.Market, Language: ch.Language, State: state, SubmittedAt: at}
	if state == published {
		r.PublishedAt = at
	}
	return r
}

// CreateReview stores r in its own transaction and returns it with its id.
func CreateReview(t testing.TB, db *store.DB, r store.Review) store.Review {
	t.Helper()
	err := db.WithTx(context.Background(), func(tx *store.Tx) error {
		var err error
		r, err = tx.CreateReview(context.Background(), r)
		return err
	})
	if err != nil {
		t.Fatalf("storetest: create review: %v", err)
	}
	return r
}

// SetReviewState moves review id to state in tx as moderation and publishing do:
// the first move to published stamps published_at with the transaction's time
// (a later one keeps the first). It does not refresh the read model; callers that
// need it run the review service's AfterReviewStateChange in the same tx.
func SetReviewState(ctx context.Context, tx *store.Tx, id int64, state string) error {
	var at time.Time
	if state == published {
		at = tx.Now
	}
	return tx.SetReviewState(ctx, id, state, at)
}
