// Package privacy owns personal-data requests: opening an access or erasure request
// for an e-mail address or a phone number, finding what reviewd holds about that
// person, carrying out an erasure (texts, names, contact details, media and, through
// orders, the order's customer data) and the copy of an access request.
package privacy

import (
	"context"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/store"
)

// Service is the personal-data request service.
type Service struct {
	DB   *store.DB
	Keys *core.Keyring
	// Orders pseudonymises the customer data of the person's orders (the erasure
	// built for orders).
	Orders *orders.Service
	// Reviews erases review texts and authors and purges media.
	Reviews *reviews.Service
}

// New builds the privacy service.
func New(db *store.DB, keys *core.Keyring, ord *orders.Service, rv *reviews.Service) *Service {
	return &Service{DB: db, Keys: keys, Orders: ord, Reviews: rv}
}

func (s *Service) now() time.Time { return s.DB.Now() }

// record writes an activity-history entry in tx.
func (s *Service) record(ctx context.Context, tx *store.Tx, a *core.Actor, action, id string, detail any) error {
	return core.WriteActivity(ctx, tx, s.Keys, a, action, "subject_request", id, detail)
}

// logAccess writes a personal-data access-log entry in its own transaction.
func (s *Service) logAccess(ctx context.Context, a *core.Actor, action, id string, count int) error {
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return core.WriteAccess(ctx, tx, s.Keys, a, action, "subject_request", id, count)
	})
}
