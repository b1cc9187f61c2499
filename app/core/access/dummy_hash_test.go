package access

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// TestDummyHashCost: the written-out hash for unknown users costs what a real
// password check costs.
func TestDummyHashCost(t *testing.T) {
	if c, err := bcrypt.Cost(dummyHash); err != nil || c != bcryptCost {
		t.Fatalf("dummy hash cost %d (%v), want %d", c, err, bcryptCost)
	}
}
