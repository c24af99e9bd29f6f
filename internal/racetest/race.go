//go:build race

package racetest

// Race is set when the tests run under the race detector.
const Race = true
