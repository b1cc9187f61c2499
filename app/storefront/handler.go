// Package storefront is the public API of spec 2 called by the store page (a site
// key from a verified domain) and the store's server (a server key): reading and
// writing reviews, media uploads and the public media files. Handlers authenticate,
// decode the input, call one core method and encode its answer; every rule lives in
// app/core. It imports app/web and app/core only.
//
// Files: routes.go is the route table; write_*.go are the writing flow
// (eligibility, token check, reviews, media upload); media_public.go serves review
// media while their review is published.
package storefront

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/qa"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/storereviews"
	"reviewd/app/core/transparency"
	"reviewd/app/core/votes"
	"reviewd/app/web"
)

// Handler holds what the storefront surface uses.
type Handler struct {
	Clock   core.Clock
	QA      *qa.Service
	Reviews *reviews.Service
	Read    *readmodel.Service
	// Votes records helpful votes (votes.go).
	Votes *votes.Service
	// StoreReviews answers the store page and the carousel (read_channel.go).
	StoreReviews *storereviews.Service
	Buyer        *buyer.Service
	// Transparency serves the public log (transparency.go).
	Transparency *transparency.Service
	Auth         *web.Auth
	Limits       *web.Limits
	// EligibilityEmail and EligibilityOrder count failed order checks per
	// lower-cased address and per order number: 10 per hour each, then 429
	// rate_limited (spec 2, "Errors"). Mount creates them on the core clock.
	EligibilityEmail *web.Limiter
	EligibilityOrder *web.Limiter
	// LogLimit counts transparency requests per IP (TransparencyPerMinute);
	// Mount creates it on the core clock.
	LogLimit *web.Limiter
	// LogReadLimit counts the entry pages and tiles read per IP
	// (TransparencyReadsPerMinute); Mount creates it on the core clock.
	LogReadLimit *web.Limiter
	// CDN: a CDN purge route is configured (cdn.purge.kind). Only then do the
	// public answers carry the CDN's Cache-Control directives and tags, and the
	// list and question answers to a site key become public; without one every
	// answer carries the headers spec 2 names (cdn.go).
	CDN bool
	// uploads counts the media uploads being received (upload_slots.go).
	uploads *uploadSlots
	// memo remembers the read requests answered (read_reuse.go).
	memo *answerMemo
	// badgeMemo remembers the badge requests answered (read_badges.go).
	badgeMemo *badgeMemo
	// chanMemo remembers the carousel and store page requests answered
	// (read_channel.go).
	chanMemo *badgeMemo
}

// EligibilityFailures is how many failed order checks an address or an order
// number may have per hour.
const EligibilityFailures = 10

// route is one line of the route table.
type route struct {
	method, path string
	access       access
	h            web.H
}

// access says which callers a route takes. The storefront's handlers authenticate
// their caller themselves (the credential decides the channel), so the column
// records the rule each handler applies; a route without one does not mount.
type access int

const (
	// public routes take anyone: files and pages whose content is public.
	public access = iota + 1
	// channelCode routes take a channel code (no domain check) or, failing that,
	// a site key without the domain check (web.Auth.SiteKey).
	channelCode
	// siteKey routes take a site key (X-Service-Site-Key or key=) from a verified
	// domain of its channel (web.Auth.SiteKey).
	siteKey
	// serverKey routes take a Bearer server key with the ssr scope plus channel=
	// only (web.Auth.ServerOnly).
	serverKey
	// siteOrServerKey routes take either of the two above (web.Auth.Storefront).
	siteOrServerKey
)

// Mount adds every storefront route to the router, each with its CORS preflight.
func (h *Handler) Mount(r *mux.Router) {
	if h.uploads == nil {
		h.uploads = &uploadSlots{byIP: map[string]int{}}
	}
	if h.memo == nil {
		h.memo = &answerMemo{}
	}
	if h.chanMemo == nil {
		h.chanMemo = &badgeMemo{}
	}
	if h.badgeMemo == nil {
		h.badgeMemo = &badgeMemo{}
	}
	if h.EligibilityEmail == nil {
		h.EligibilityEmail = web.NewLimiter(EligibilityFailures, time.Hour, h.Clock.Now)
	}
	if h.EligibilityOrder == nil {
		h.EligibilityOrder = web.NewLimiter(EligibilityFailures, time.Hour, h.Clock.Now)
	}
	if h.LogLimit == nil {
		h.LogLimit = web.NewLimiter(TransparencyPerMinute, time.Minute, h.Clock.Now)
	}
	if h.LogReadLimit == nil {
		h.LogReadLimit = web.NewLimiter(TransparencyReadsPerMinute, time.Minute, h.Clock.Now)
	}
	preflight := http.HandlerFunc(handlePreflight)
	seen := map[string]bool{}
	for _, rt := range h.routes() {
		if rt.access == 0 {
			panic("storefront: route without access rule: " + rt.method + " " + rt.path)
		}
		r.Handle(rt.path, cors(rt.h)).Methods(rt.method)
		if !seen[rt.path] {
			seen[rt.path] = true
			r.Handle(rt.path, preflight).Methods(http.MethodOptions)
		}
	}
}

// cors lets store pages on any origin call the API: requests carry no cookies and
// are authorised by the site key and the verified domain, never by the origin
// header alone.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd["Access-Control-Allow-Origin"] = corsAnyOrigin
		hd["Access-Control-Expose-Headers"] = corsExposed
		next.ServeHTTP(w, r)
	})
}

// The CORS header values of every storefront answer, shared (set as they are,
// canonical names written out).
var (
	corsAnyOrigin = []string{"*"}
	corsExposed   = []string{"X-Request-Id, ETag"}
)

// handlePreflight answers CORS preflight requests of every storefront path.
func handlePreflight(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS")
	hd.Set("Access-Control-Allow-Headers", "Content-Type, X-Service-Site-Key, X-Service-Token")
	hd.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}
