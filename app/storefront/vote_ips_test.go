package storefront_test

import (
	"fmt"
	"testing"
	"time"
)

// TestHelpfulVotesOncePerAddressPerDay: new visitor_keys from one address do not
// add votes to a review (IPv6 counts by /64); the same visitor may withdraw and
// vote again; another address, or the next day, counts.
func TestHelpfulVotesOncePerAddressPerDay(t *testing.T) {
	f := newFx(t)
	r := f.seed(seedRev{})
	for i := 0; i < 100; i++ {
		ip := "2001:db8:7:7::" + fmt.Sprintf("%x", i+1) // one /64
		res := f.voteFrom(ip, r[0], map[string]any{"vote": "up", "visitor_key": fmt.Sprintf("k%d", i)})
		if res.Status != 200 || num(res.JSON["helpful_count"]) != 1 || (i > 0 && res.JSON["counted"] != false) {
			t.Fatalf("vote %d: %s", i, res.Body)
		}
	}
	// The first visitor withdraws and votes again: still its own vote.
	f.voteFrom("2001:db8:7:7::1", r[0], map[string]any{"vote": "none", "visitor_key": "k0"})
	if res := f.voteFrom("2001:db8:7:7::1", r[0], map[string]any{"vote": "up", "visitor_key": "k0"}); res.JSON["counted"] != true || num(res.JSON["helpful_count"]) != 1 {
		t.Fatalf("revote: %s", res.Body)
	}
	if res := f.voteFrom("2001:db8:7:8::1", r[0], map[string]any{"vote": "up", "visitor_key": "other-net"}); num(res.JSON["helpful_count"]) != 2 {
		t.Fatalf("another /64: %s", res.Body)
	}
	f.Clock.Advance(24 * time.Hour)
	if res := f.voteFrom("2001:db8:7:7::2", r[0], map[string]any{"vote": "up", "visitor_key": "next-day"}); num(res.JSON["helpful_count"]) != 3 {
		t.Fatalf("next day: %s", res.Body)
	}
}
