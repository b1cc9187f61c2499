//go:build race

package panel_test

// raceOn: the race detector slows every request several times over, so timing
// budgets are measured but not held.
const raceOn = true
