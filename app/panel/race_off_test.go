//go:build !race

package panel_test

const raceOn = false
