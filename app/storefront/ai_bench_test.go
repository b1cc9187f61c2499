package storefront_test

import (
	"encoding/json"
	"os"
	"syscall"
	"testing"
	"time"

	"reviewd/app/core/ai"
	"reviewd/app/core/readmodel"
)

// TestAIListCost is a measurement, not a CI test: the cost of building a list
// answer (the uncached path: every query is built afresh) with a stored summary
// against the same answer without one, over interleaved rounds.
//
//	REVIEWD_AI_BENCH=1 go test -count=1 -run TestAIListCost -v ./app/storefront/
func TestAIListCost(t *testing.T) {
	if os.Getenv("REVIEWD_AI_BENCH") == "" {
		t.Skip("set REVIEWD_AI_BENCH=1 (a measurement, not run in CI)")
	}
	f := newAIFx(t)
	seedProduct(f)
	f.settings(map[string]any{"ai_summary_enabled": true})
	runAIJob(t, f)
	ch, err := f.App.DB.Read().ChannelByCode(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	in := readmodel.ListInput{Product: "SKU-1", Lang: "en"}
	svc := f.App.Read.AI
	build := func(on bool, n int) time.Duration {
		if on {
			f.App.Read.AI = svc
		} else {
			f.App.Read.AI = nil
		}
		start := cpuNow()
		for i := 0; i < n; i++ {
			l, err := f.App.Read.ReviewList(ctx, ch, in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := json.Marshal(l); err != nil {
				t.Fatal(err)
			}
			if on != (l.AISummary != nil) {
				t.Fatalf("summary shown %v, want %v", l.AISummary != nil, on)
			}
		}
		return cpuNow() - start
	}
	build(true, 200) // warm up
	build(false, 200)
	var with, without time.Duration
	for round := 0; round < 50; round++ {
		without += build(false, 100)
		with += build(true, 100)
	}
	f.App.Read.AI = svc
	t.Logf("5,000 list answers built, process CPU: without a summary %v (%v each), with %v (%v each): %+.1f%%",
		without, without/5000, with, with/5000, 100*(float64(with)/float64(without)-1))
	_ = ai.Label
}

// cpuNow is the process's user and system CPU time.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
