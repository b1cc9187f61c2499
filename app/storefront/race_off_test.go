//go:build !race

package storefront_test

// raceEnabled: the tests run under the race detector.
const raceEnabled = false
