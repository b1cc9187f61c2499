package core_test

import (
	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/checks"
	"reviewd/app/core/orders"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
)

// domain is the set of domain services over one kernel, built bottom-up as app.Open
// builds them.
type domain struct {
	buyer   *buyer.Service
	read    *readmodel.Service
	sending *sending.Service
	reviews *reviews.Service
	orders  *orders.Service
}

func newDomain(c *core.Core) domain {
	var d domain
	br := brand.New(c)
	d.buyer = buyer.New(c, br)
	d.read = readmodel.New(c, br)
	d.sending = sending.New(c, d.buyer, br)
	d.reviews = reviews.New(c, d.sending, d.read, d.buyer, checks.New(c), br)
	d.orders = orders.New(c, d.reviews, d.sending, br)
	return d
}
