// Package racetest tells tests whether the race detector is on, so that
// long single-goroutine tests (random programs, replays of random
// sessions) play fewer seeds under it, where they find nothing but run
// five to ten times slower, and all of them without it (make gotest runs
// them both ways). It imports nothing, so engine tests may use it too.
package racetest
