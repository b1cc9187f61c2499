package web_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/web"
)

// TestBackgroundRecoversPanic: background work started by a request (the manual
// order-connection read) that panics is logged, and the process goes on.
func TestBackgroundRecoversPanic(t *testing.T) {
	var out apptest.LockedBuffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	done := make(chan struct{})
	web.Background(log, "manual order connection read", time.Minute, func(context.Context) error {
		var m map[string]int
		m["boom"] = 1 // a nil-map write panics
		return nil
	}, func() { close(done) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("waited 10s for the background work to end")
	}
	if s := out.String(); !strings.Contains(s, "panic in background work") || !strings.Contains(s, "manual order connection read") {
		t.Fatalf("log:\n%s", s)
	}

	done = make(chan struct{})
	web.Background(log, "failing read", time.Minute, func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			return errors.New("no time limit")
		}
		return errors.New("platform answered 500")
	}, func() { close(done) })
	<-done
	if s := out.String(); !strings.Contains(s, "platform answered 500") {
		t.Fatalf("log:\n%s", s)
	}
}
