package racetest

// Runs is how many of n seeds or programs a long single-goroutine test
// plays: all of them, or a fifth (at least one) under the race detector
// (Race). make gotest runs those tests both ways.
func Runs(n int) int {
	if Race {
		return max(1, n/5)
	}
	return n
}
