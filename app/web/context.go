package web

import (
	"context"

	"reviewd/app/core"
)

type ctxKey int

const stateKey ctxKey = 1

// reqState is what the middleware learns about one request.
type reqState struct {
	requestID string
	ip        string
	refused   bool
	// limits are the middleware's limiters; held gives back the refusal taken by
	// HoldRefusal when the request ends without being refused.
	limits *Limits
	held   func()
	actor  *core.Actor
	route  string
}

func state(ctx context.Context) *reqState {
	s, _ := ctx.Value(stateKey).(*reqState)
	if s == nil {
		return &reqState{}
	}
	return s
}

// RequestID is the X-Request-Id of the request.
func RequestID(ctx context.Context) string { return state(ctx).requestID }

// ClientIP is the client address (X-Forwarded-For only behind trusted proxies).
func ClientIP(ctx context.Context) string { return state(ctx).ip }

// MarkRefused counts the request as refused (bad key, password, signature or body)
// for the per-IP refusal limit.
func MarkRefused(ctx context.Context) { state(ctx).refused = true }

// HoldRefusal counts the request as refused for the per-IP refusal limit when it
// starts, not when it ends: a credential step (sign-in, passcode, set-password
// link) calls it first, so a burst of parallel guesses cannot all pass the limit
// before the first of them is refused. Without a refusal left it answers 429
// rate_limited; a request that ends without a refusal gets its count back.
func HoldRefusal(ctx context.Context) error {
	st := state(ctx)
	if st.limits == nil || st.held != nil {
		return nil
	}
	giveBack, ok := st.limits.Refused.Take(st.ip)
	if !ok {
		return core.ErrRateLimited
	}
	st.held = giveBack
	return nil
}

// SetActor records who the request is authenticated as.
func SetActor(ctx context.Context, a *core.Actor) { state(ctx).actor = a }

// Actor returns who the request is authenticated as, or nil.
func Actor(ctx context.Context) *core.Actor { return state(ctx).actor }

// Route is the path template of the matched route ("" before routing or when no
// route matched).
func Route(ctx context.Context) string { return state(ctx).route }
