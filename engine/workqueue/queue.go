package workqueue

import (
	"container/heap"
	"time"
)

// Queue is a rate-limiting, delaying work queue of string keys on a virtual
// clock (see the package comment). The zero value is not usable; call New.
type Queue struct {
	// now is the queue's virtual clock, moved only by Advance.
	now time.Duration

	// queue is the order keys are handed out in. Every key in it is dirty
	// and not processing.
	queue []string
	// dirty holds every key that needs processing: the ready ones, and those
	// added again while they were being processed.
	dirty map[string]bool
	// processing holds the keys handed out by Get and not yet Done. A
	// processing key may also be dirty; it is then not in queue, and Done
	// puts it there.
	processing map[string]bool

	// waiting holds the keys added with a delay, earliest ready time first;
	// waitingFor indexes it, so each key waits at most once.
	waiting    waitHeap
	waitingFor map[string]*waitFor
	// seq numbers waiting entries so that equal ready times keep the order
	// the keys were added in.
	seq int64

	limiter limiter

	// retries counts AddAfter and AddRateLimited calls, as client-go's
	// workqueue_retries_total does; adds counts the Adds that marked a key
	// dirty (workqueue_adds_total).
	retries int64
	adds    int64
}

// New returns an empty queue whose rate limiter is client-go's
// DefaultControllerRateLimiter, with its token bucket full.
func New() *Queue {
	return &Queue{
		dirty:      map[string]bool{},
		processing: map[string]bool{},
		waitingFor: map[string]*waitFor{},
		limiter:    newLimiter(),
	}
}

// Add marks key as needing processing. A key that is already ready is not
// added twice; a key being processed is handed out again only after Done.
func (q *Queue) Add(key string) {
	if q.dirty[key] {
		return
	}
	q.adds = saturatingInc(q.adds)
	q.dirty[key] = true
	if q.processing[key] {
		return
	}
	q.queue = append(q.queue, key)
}

// Len returns the number of ready keys: those Get would hand out now.
func (q *Queue) Len() int { return len(q.queue) }

// Get hands out the first ready key and marks it processing; the caller must
// call Done with it when finished. ok is false when no key is ready (Get
// never blocks).
func (q *Queue) Get() (key string, ok bool) {
	if len(q.queue) == 0 {
		return "", false
	}
	key = q.queue[0]
	q.queue[0] = ""
	q.queue = q.queue[1:]
	q.processing[key] = true
	delete(q.dirty, key)
	return key, true
}

// Done marks key as finished processing. If it was added again while it was
// being processed, it becomes ready again now. Done of a key that is not
// being processed does nothing.
func (q *Queue) Done(key string) {
	if !q.processing[key] {
		return
	}
	delete(q.processing, key)
	if q.dirty[key] {
		q.queue = append(q.queue, key)
	}
}

// AddAfter adds key once d of virtual time has passed; d <= 0 adds it now.
// If key already waits, its ready time only moves earlier.
func (q *Queue) AddAfter(key string, d time.Duration) {
	q.retries = saturatingInc(q.retries)
	if d <= 0 {
		q.Add(key)
		return
	}
	readyAt := q.now + min(d, maxWait)
	if w, ok := q.waitingFor[key]; ok {
		if readyAt < w.readyAt {
			w.readyAt = readyAt
			heap.Fix(&q.waiting, w.index)
		}
		return
	}
	q.seq++
	w := &waitFor{key: key, readyAt: readyAt, seq: q.seq}
	heap.Push(&q.waiting, w)
	q.waitingFor[key] = w
}

// AddRateLimited adds key after the rate limiter's wait: the larger of the
// key's exponential backoff (which this call counts as one more failure) and
// the shared token bucket's delay.
func (q *Queue) AddRateLimited(key string) {
	q.AddAfter(key, q.limiter.when(key, q.now))
}

// Forget clears key's failures: its next AddRateLimited waits BaseDelay
// again. It does not remove the key from the queue.
func (q *Queue) Forget(key string) { delete(q.limiter.failures, key) }

// NumRequeues returns how many failures key has had since it was last
// Forgotten.
func (q *Queue) NumRequeues(key string) int { return q.limiter.failures[key] }

// Advance lets d of virtual time pass: every waiting key whose ready time has
// come is added, in the order of the ready times. d <= 0 does nothing.
func (q *Queue) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	q.now = min(q.now+min(d, maxWait), maxNow)
	for len(q.waiting) > 0 && q.waiting[0].readyAt <= q.now {
		w := heap.Pop(&q.waiting).(*waitFor)
		delete(q.waitingFor, w.key)
		q.Add(w.key)
	}
}

// NextReady returns how long from now until the earliest waiting key is
// ready, and false when no key waits.
func (q *Queue) NextReady() (time.Duration, bool) {
	if len(q.waiting) == 0 {
		return 0, false
	}
	return q.waiting[0].readyAt - q.now, true
}

// maxWait bounds one delay and one Advance: about 31 years of virtual time,
// beyond any demo's life and far from overflowing the clock.
const maxWait = 1e12 * time.Millisecond

// maxNow bounds the queue's clock, so now+maxWait never overflows.
const maxNow = 1 << 62

// MaxCounter bounds Retries and Adds: they stop counting there.
const MaxCounter = 1 << 53

func saturatingInc(n int64) int64 {
	if n >= MaxCounter {
		return MaxCounter
	}
	return n + 1
}

// waitFor is one waiting key and when it becomes ready.
type waitFor struct {
	key     string
	readyAt time.Duration
	seq     int64
	index   int // in the heap
}

// waitHeap orders waiting keys by ready time, then by when they were added.
type waitHeap []*waitFor

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if h[i].readyAt != h[j].readyAt {
		return h[i].readyAt < h[j].readyAt
	}
	return h[i].seq < h[j].seq
}
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *waitHeap) Push(x any) {
	w := x.(*waitFor)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waitHeap) Pop() any {
	old := *h
	n := len(old)
	w := old[n-1]
	old[n-1] = nil
	w.index = -1
	*h = old[:n-1]
	return w
}
