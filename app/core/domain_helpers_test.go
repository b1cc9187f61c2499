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

func newDomain(c *core.Core, p app.Parts) domain {
	d := app.NewDomain(c, p)
	return domain{brand: d.Brand, buyer: d.Buyer, read: d.Read, sending: d.Sending, reviews: d.Reviews, orders: d.Orders, channels: d.Channels}
}
