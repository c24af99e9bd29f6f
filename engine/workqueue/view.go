package workqueue

import (
	"sort"
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
		s.Waiting, s.DueIn = true, w.readyAt-q.now
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

// BucketTokens returns the shared token bucket's tokens now, in whole
// tokens: BucketBurst when full, negative when adds wait for it.
func (q *Queue) BucketTokens() int {
	return int(q.limiter.creditAt(q.now) / tokenCost)
}

// Waiting returns the waiting keys in the order they will become ready.
func (q *Queue) Waiting() []KeyState {
	ws := append(waitHeap(nil), q.waiting...)
	sort.Slice(ws, func(i, j int) bool { return ws.Less(i, j) })
	out := make([]KeyState, len(ws))
	for i, w := range ws {
		out[i] = q.State(w.key)
	}
	return out
}
