package sockets

import "time"

// Bucket is a token bucket: rate tokens a second, at most burst. It paces
// a socket's messages (and, in the rooms, an address's wrong codes). It is
// not safe for concurrent use: its owner is one goroutine.
type Bucket struct {
	rate, burst, tokens float64
	last                time.Time
}

// NewBucket returns a full bucket.
func NewBucket(rate float64, burst int) *Bucket {
	return &Bucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: time.Now()}
}

// Peek refills the bucket and reports whether a token is there, without
// taking it.
func (b *Bucket) Peek(now time.Time) bool {
	b.refill(now)
	return b.tokens >= 1
}

// Allow takes a token if there is one.
func (b *Bucket) Allow(now time.Time) bool {
	b.refill(now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func (b *Bucket) refill(now time.Time) {
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
}
