//go:build !race

package demotest

// Race is set when the tests run under the race detector (race.go).
const Race = false
