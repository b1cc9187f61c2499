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
	actor     *core.Actor
	route     string
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

// SetActor records who the request is authenticated as.
func SetActor(ctx context.Context, a *core.Actor) { state(ctx).actor = a }

// Actor returns who the request is authenticated as, or nil.
func Actor(ctx context.Context) *core.Actor { return state(ctx).actor }

// Route is the path template of the matched route ("" before routing or when no
// route matched).
func Route(ctx context.Context) string { return state(ctx).route }
