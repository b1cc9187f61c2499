//go:build !race

package admin_test

// raceEnabled: the tests run under the race detector.
const raceEnabled = false
