package web

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// Background runs fn in its own goroutine, detached from the request, with a time
// limit. A returned error is logged as a warning; a panic is recovered and logged
// with its stack, so work started by a request can never end the process. done,
// when not nil, is called after fn returns or panics.
func Background(log *slog.Logger, what string, limit time.Duration, fn func(ctx context.Context) error, done func()) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				log.Error("panic in background work", "work", what, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
			if done != nil {
				done()
			}
		}()
		if err := fn(ctx); err != nil {
			log.Warn(what, "err", err)
		}
	}()
}
