//go:build !race

package racetest

// Race is set when the tests run under the race detector (race.go).
const Race = false
