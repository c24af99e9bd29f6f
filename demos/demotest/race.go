//go:build race

package demotest

// Race is set when the tests run under the race detector, which slows the
// demos' single-goroutine code five to ten times and finds nothing in it:
// the long random programs and replays run fewer there (Runs), and in full
// without it (make gotest runs them both ways).
const Race = true
