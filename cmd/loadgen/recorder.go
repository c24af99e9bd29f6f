package main

import (
	"math/rand/v2"
	"sync"
	"time"
)

// maxSamples bounds the latencies kept in memory. Past it, reservoir
// sampling keeps a uniform sample, so the percentiles stay unbiased; the
// count, the mean and the maximum stay exact.
const maxSamples = 1 << 21

// recorder collects action→frame latencies from every session.
type recorder struct {
	mu      sync.Mutex
	samples []time.Duration
	seen    int
	max     time.Duration
	sum     time.Duration
}

func (r *recorder) add(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	r.sum += d
	r.max = max(r.max, d)
	if len(r.samples) < maxSamples {
		r.samples = append(r.samples, d)
		return
	}
	if i := rand.IntN(r.seen); i < maxSamples {
		r.samples[i] = d
	}
}

// summary returns the percentiles of what was recorded.
func (r *recorder) summary() latencySummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := summarize(append([]time.Duration(nil), r.samples...))
	if r.seen > 0 {
		s.Samples = r.seen
		s.MaxMs = float64(r.max) / float64(time.Millisecond)
		s.MeanMs = float64(r.sum) / float64(r.seen) / float64(time.Millisecond)
	}
	return s
}
