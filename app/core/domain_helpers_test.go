package core_test

import (
	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/channels"
	"reviewd/app/core/orders"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/store"
)

// domain is the set of domain services over one kernel, built as app.Open builds
// them.
type domain struct {
	brand   *brand.Service
	buyer   *buyer.Service
	read    *readmodel.Service
	sending *sending.Service
	reviews *reviews.Service
	orders  *orders.Service
	// channels makes the channels a test needs.
	channels *channels.Service
}

// kernel is what a test's services share: the database, keyring, public address
// and the recorder.
type kernel struct {
	DB        *store.DB
	Keys      *core.Keyring
	PublicURL string
	*core.Recorder
}

func newKernel(db *store.DB, keys *core.Keyring, publicURL string) *kernel {
	return &kernel{DB: db, Keys: keys, PublicURL: publicURL, Recorder: core.NewRecorder(keys)}
}

func newDomain(c *kernel, p app.Parts) domain {
	p.DB, p.Keys, p.PublicURL = c.DB, c.Keys, c.PublicURL
	d := app.NewDomain(p)
	return domain{brand: d.Brand, buyer: d.Buyer, read: d.Read, sending: d.Sending, reviews: d.Reviews, orders: d.Orders, channels: d.Channels}
}
