package workqueue

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// KeyState is what the queue knows about one key, for the page.
type KeyState struct {
	Key string
	// Ready: in the queue, handed out by the next Gets in order.
	Ready bool
	// Processing: handed out by Get and not yet Done.
	Processing bool
	// Dirty: added again while processing, so Done makes it ready again.
	Dirty bool
	// Waiting: in the delaying heap, ready DueIn from now. A key can wait
	// and be ready or processing at once (client-go keeps the two apart).
	Waiting bool
	DueIn   time.Duration
	// Requeues is NumRequeues: failures since the key was last Forgotten.
	Requeues int
	// Priority is the priority the key is queued at (ready, dirty or
	// waiting) on the priority queue: 0, or LowPriority for the initial
	// list's and the resyncs' adds. Always 0 on the classic queue, and for a
	// key that is only processing (its priority went with it to the worker:
	// GetWithPriority).
	Priority int
}

// Keys returns every key the queue knows (ready, processing, waiting or with
// failures), sorted by key.
func (q *Queue) Keys() []KeyState {
	seen := map[string]bool{}
	var keys []string
	note := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, k := range q.queue {
		note(k)
	}
	for k := range q.processing {
		note(k)
	}
	for k := range q.waitingFor {
		note(k)
	}
	for k := range q.limiter.failures {
		note(k)
	}
	sort.Strings(keys)
	out := make([]KeyState, len(keys))
	for i, k := range keys {
		out[i] = q.State(k)
	}
	return out
}

// State returns what the queue knows about key; a key it does not know has
// every flag false.
func (q *Queue) State(key string) KeyState {
	s := KeyState{Key: key, Processing: q.processing[key], Requeues: q.limiter.failures[key]}
	s.Dirty = s.Processing && q.dirty[key]
	s.Ready = !s.Processing && q.dirty[key]
	if w, ok := q.waitingFor[key]; ok {
		s.Waiting, s.DueIn, s.Priority = true, w.readyAt-q.now, w.priority
	}
	if it, ok := q.items[key]; ok {
		s.Priority = it.priority
	}
	return s
}

// Ready returns the ready keys in the order Get hands them out.
func (q *Queue) Ready() []string { return append([]string(nil), q.queue...) }

// Depth is client-go's workqueue_depth: keys added and not yet handed out,
// which counts a key added again while processing (Len does not).
func (q *Queue) Depth() int { return len(q.dirty) }

// Processing returns how many keys are handed out and not yet Done.
func (q *Queue) Processing() int { return len(q.processing) }

// Retries is client-go's workqueue_retries_total: every AddAfter, including
// those AddRateLimited makes.
func (q *Queue) Retries() int64 { return q.retries }

// Adds is client-go's workqueue_adds_total: every Add that marked a key
// dirty (not those that collapsed into one already there).
func (q *Queue) Adds() int64 { return q.adds }

// BucketTokens returns the classic queue's shared token bucket's tokens
// now, in whole tokens: BucketBurst when full, negative when adds wait for
// it. The priority queue has no bucket: 0.
func (q *Queue) BucketTokens() int {
	if !q.limiter.bucket {
		return 0
	}
	return int(q.limiter.creditAt(q.now) / tokenCost)
}

// LimiterView is the rate limiter as a panel shows it.
type LimiterView struct {
	// Kind is LimiterItemExponential (the priority queue's) or LimiterMaxOf
	// (the classic queue's).
	Kind string
	// Bucket: the shared token bucket takes part (LimiterMaxOf only); Tokens
	// is BucketTokens, of BucketBurst.
	Bucket bool
	Tokens int
	// Keys is every key with failures, sorted by key.
	Keys []LimitedKey
}

// LimitedKey is one failing key in the rate limiter.
type LimitedKey struct {
	Key string
	// Failures is NumRequeues: failures since the key was last Forgotten.
	Failures int
	// NextDelay is the wait the key's next failure would get if it came
	// now: BaseDelay·2^Failures capped at MaxDelay, and on the classic
	// queue the bucket's wait for a token if that is longer. (The wait the
	// key is serving now, if any, is its KeyState's DueIn.)
	NextDelay time.Duration
}

// Limiter returns the rate limiter's state: its kind, the bucket, and every
// failing key with its failures and next delay.
func (q *Queue) Limiter() LimiterView {
	v := LimiterView{Kind: q.limiter.kind(), Bucket: q.limiter.bucket, Tokens: q.BucketTokens()}
	for k, n := range q.limiter.failures {
		v.Keys = append(v.Keys, LimitedKey{Key: k, Failures: n, NextDelay: q.limiter.next(k, q.now)})
	}
	slices.SortFunc(v.Keys, func(a, b LimitedKey) int { return strings.Compare(a.Key, b.Key) })
	return v
}

// NextDelay is the wait key's next AddRateLimited would get now, without
// counting a failure.
func (q *Queue) NextDelay(key string) time.Duration { return q.limiter.next(key, q.now) }

// Waiting returns the waiting keys in the order they will become ready.
func (q *Queue) Waiting() []KeyState {
	ws := append(waitHeap(nil), q.waiting...)
	sort.Sort(ws)
	out := make([]KeyState, len(ws))
	for i, w := range ws {
		out[i] = q.State(w.key)
	}
	return out
}
