package workqueue

import (
	"container/heap"
	"sort"
	"time"
)

// Kind is which queue a Queue is.
type Kind string

// The queues.
const (
	// Classic is client-go's rate-limiting, delaying queue
	// (workqueue.NewTypedRateLimitingQueueWithConfig): what controller-runtime
	// used by default up to v0.22, and what UsePriorityQueue=false still
	// gives.
	Classic Kind = "classic"
	// Priority is controller-runtime's priorityqueue.PriorityQueue: the
	// default queue of every controller since v0.23 (UsePriorityQueue
	// defaults to true).
	Priority Kind = "priority"
)

// Priorities. Higher goes first.
const (
	// LowPriority is controller-runtime's handler.LowPriority: the priority
	// of the adds from the informer's initial list and from its resyncs
	// (events whose object's resourceVersion did not change).
	LowPriority = -100
	// MaxPriority bounds a priority either way: AddWithOpts clamps it to
	// [-MaxPriority, MaxPriority] (controller-runtime takes any int; the
	// bound keeps a snapshot small and checkable).
	MaxPriority = 1000
)

// AddOpts is controller-runtime's priorityqueue.AddOpts: one add with a
// delay, through the rate limiter, or at a priority. A nil Priority there is
// the zero Priority here.
type AddOpts struct {
	After       time.Duration
	RateLimited bool
	Priority    int
}

// Queue is a rate-limiting, delaying work queue of string keys on a virtual
// clock (see the package comment). The zero value is not usable; call New or
// NewPriority.
type Queue struct {
	kind Kind

	// now is the queue's virtual clock, moved only by Advance.
	now time.Duration

	// queue is the order keys are handed out in. Every key in it is dirty
	// and not processing. The priority queue keeps it sorted by priority,
	// then by order (see item).
	queue []string
	// dirty holds every key that needs processing: the ready ones, and those
	// added again while they were being processed.
	dirty map[string]bool
	// processing holds the keys handed out by Get and not yet Done. A
	// processing key may also be dirty; it is then not in queue, and Done
	// puts it there.
	processing map[string]bool
	// items holds, for the priority queue only, the priority and order of
	// every dirty key (controller-runtime's item). A waiting key keeps
	// them in its waitFor instead: in the priority queue a key is never
	// both dirty and waiting.
	items map[string]*item

	// waiting holds the keys added with a delay, earliest ready time first;
	// waitingFor indexes it, so each key waits at most once.
	waiting    waitHeap
	waitingFor map[string]*waitFor
	// seq numbers waiting entries so that equal ready times keep the order
	// the keys were added in; the priority queue numbers its items from it
	// too (controller-runtime's addedCounter).
	seq int64

	limiter limiter

	// retries counts AddAfter and AddRateLimited calls, as client-go's
	// workqueue_retries_total does; adds counts the Adds that marked a key
	// dirty (workqueue_adds_total).
	retries int64
	adds    int64
}

// item is where a dirty key of the priority queue stands: its priority, and
// its order among keys of one priority (the counter of when it was added,
// became ready after a wait, or had its priority raised).
type item struct {
	priority int
	order    int64
}

// New returns an empty classic queue whose rate limiter is client-go's
// DefaultControllerRateLimiter, with its token bucket full.
func New() *Queue { return newQueue(Classic) }

// NewPriority returns an empty priority queue (controller-runtime's
// priorityqueue.New) whose rate limiter is the per-key exponential alone,
// as controller-runtime gives it: no token bucket.
func NewPriority() *Queue { return newQueue(Priority) }

func newQueue(k Kind) *Queue {
	q := &Queue{
		kind:       k,
		dirty:      map[string]bool{},
		processing: map[string]bool{},
		waitingFor: map[string]*waitFor{},
		limiter:    newLimiter(k == Classic),
	}
	if k == Priority {
		q.items = map[string]*item{}
	}
	return q
}

// Kind returns which queue q is.
func (q *Queue) Kind() Kind { return q.kind }

// Add marks key as needing processing. A key that is already ready is not
// added twice; a key being processed is handed out again only after Done.
// On the priority queue, an Add of a waiting key makes it ready now and
// ends its wait.
func (q *Queue) Add(key string) {
	if q.kind == Priority {
		q.AddWithOpts(AddOpts{}, key)
		return
	}
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

// AddLow is the add of the informer's initial list and of its resyncs: at
// LowPriority on the priority queue, a plain Add on the classic queue (which
// has no priorities).
func (q *Queue) AddLow(key string) {
	if q.kind == Classic {
		q.Add(key)
		return
	}
	q.AddWithOpts(AddOpts{Priority: LowPriority}, key)
}

// AddWithOpts is controller-runtime's PriorityQueue.AddWithOpts. On the
// priority queue: the wait is After, or the rate limiter's when
// RateLimited (the shorter of the two when both are given); a key already
// dirty stays so and ignores the wait; a waiting key keeps the earlier of
// its two ready times, and a wait of zero makes it ready now; the key's
// priority only rises, and a rise puts it last among keys of its new
// priority. On the classic queue it is what controller-runtime's wrapper of
// a plain queue does: AddRateLimited, else AddAfter when After > 0, else
// Add; the priority is ignored.
func (q *Queue) AddWithOpts(o AddOpts, key string) {
	if q.kind == Classic {
		switch {
		case o.RateLimited:
			q.AddRateLimited(key)
		case o.After > 0:
			q.AddAfter(key, o.After)
		default:
			q.Add(key)
		}
		return
	}
	p := min(max(o.Priority, -MaxPriority), MaxPriority)
	after := o.After
	if o.RateLimited {
		if rl := q.limiter.when(key, q.now); after == 0 || rl < after {
			after = rl
		}
	}
	wait := after > 0
	var readyAt time.Duration
	if wait {
		q.retries = saturatingInc(q.retries)
		readyAt = q.now + min(after, maxWait)
	}
	w, waiting := q.waitingFor[key]
	switch {
	case q.dirty[key]:
		// Already going to be handed out: a wait changes nothing.
		it := q.items[key]
		if p <= it.priority {
			return
		}
		ready := !q.processing[key]
		if ready {
			q.removeReady(key)
		}
		it.priority, it.order = p, q.next()
		if ready {
			q.insertReady(key)
		}
	case waiting:
		if p > w.priority {
			w.priority, w.seq = p, q.next()
		}
		if !wait {
			heap.Remove(&q.waiting, w.index)
			delete(q.waitingFor, key)
			q.markDirty(key, item{priority: w.priority, order: w.seq})
			return
		}
		w.readyAt = min(w.readyAt, readyAt)
		heap.Fix(&q.waiting, w.index)
	case wait:
		q.pushWait(key, readyAt, p)
	default:
		q.markDirty(key, item{priority: p, order: q.next()})
	}
}

// next returns the next number of the priority queue's order.
func (q *Queue) next() int64 {
	q.seq++
	return q.seq
}

// markDirty makes a key of the priority queue dirty at it: ready, unless it
// is being processed.
func (q *Queue) markDirty(key string, it item) {
	q.adds = saturatingInc(q.adds)
	q.dirty[key] = true
	q.items[key] = &it
	if !q.processing[key] {
		q.insertReady(key)
	}
}

// before reports whether dirty key a is handed out before dirty key b on
// the priority queue: higher priority first, then lower order.
func (q *Queue) before(a, b string) bool {
	x, y := q.items[a], q.items[b]
	if x.priority != y.priority {
		return x.priority > y.priority
	}
	return x.order < y.order
}

// insertReady puts key in the priority queue's ready keys, in its place.
func (q *Queue) insertReady(key string) {
	i := sort.Search(len(q.queue), func(i int) bool { return q.before(key, q.queue[i]) })
	q.queue = append(q.queue, "")
	copy(q.queue[i+1:], q.queue[i:])
	q.queue[i] = key
}

func (q *Queue) removeReady(key string) {
	for i, k := range q.queue {
		if k == key {
			q.queue = append(q.queue[:i], q.queue[i+1:]...)
			return
		}
	}
}

// Len returns the number of ready keys: those Get would hand out now.
func (q *Queue) Len() int { return len(q.queue) }

// Get hands out the first ready key and marks it processing; the caller must
// call Done with it when finished. ok is false when no key is ready (Get
// never blocks).
func (q *Queue) Get() (key string, ok bool) {
	key, _, ok = q.GetWithPriority()
	return key, ok
}

// GetWithPriority is controller-runtime's GetWithPriority: Get, and the
// priority the key was queued at (always 0 on the classic queue). The
// controller passes it back with the key's requeue, so a key listed at low
// priority that fails stays low.
func (q *Queue) GetWithPriority() (key string, priority int, ok bool) {
	if len(q.queue) == 0 {
		return "", 0, false
	}
	key = q.queue[0]
	q.queue[0] = ""
	q.queue = q.queue[1:]
	q.processing[key] = true
	delete(q.dirty, key)
	if it, ok := q.items[key]; ok {
		priority = it.priority
		delete(q.items, key)
	}
	return key, priority, true
}

// Done marks key as finished processing. If it was added again while it was
// being processed, it becomes ready again now: last on the classic queue,
// in its place on the priority queue (where its order is that of the add).
// Done of a key that is not being processed does nothing.
func (q *Queue) Done(key string) {
	if !q.processing[key] {
		return
	}
	delete(q.processing, key)
	if !q.dirty[key] {
		return
	}
	if q.kind == Priority {
		q.insertReady(key)
		return
	}
	q.queue = append(q.queue, key)
}

// AddAfter adds key once d of virtual time has passed; d <= 0 adds it now.
// If key already waits, its ready time only moves earlier. On the priority
// queue a key that is already dirty ignores the wait.
func (q *Queue) AddAfter(key string, d time.Duration) {
	if q.kind == Priority {
		q.AddWithOpts(AddOpts{After: d}, key)
		return
	}
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
	q.pushWait(key, readyAt, 0)
}

func (q *Queue) pushWait(key string, readyAt time.Duration, priority int) {
	w := &waitFor{key: key, readyAt: readyAt, seq: q.next(), priority: priority}
	heap.Push(&q.waiting, w)
	q.waitingFor[key] = w
}

// AddRateLimited adds key after the rate limiter's wait, which this call
// counts as one more failure of the key's: its exponential backoff, and on
// the classic queue the shared token bucket's delay if that is longer.
func (q *Queue) AddRateLimited(key string) {
	if q.kind == Priority {
		q.AddWithOpts(AddOpts{RateLimited: true}, key)
		return
	}
	q.AddAfter(key, q.limiter.when(key, q.now))
}

// Forget clears key's failures: its next AddRateLimited waits BaseDelay
// again. It does not remove the key from the queue.
func (q *Queue) Forget(key string) { delete(q.limiter.failures, key) }

// NumRequeues returns how many failures key has had since it was last
// Forgotten.
func (q *Queue) NumRequeues(key string) int { return q.limiter.failures[key] }

// Advance lets d of virtual time pass: every waiting key whose ready time has
// come is added, in the order of the ready times (on the priority queue,
// ties go by priority, then order, and each key takes the next order as it
// becomes ready). d <= 0 does nothing.
func (q *Queue) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	q.now = min(q.now+min(d, maxWait), maxNow)
	for len(q.waiting) > 0 && q.waiting[0].readyAt <= q.now {
		w := heap.Pop(&q.waiting).(*waitFor)
		delete(q.waitingFor, w.key)
		if q.kind == Priority {
			q.markDirty(w.key, item{priority: w.priority, order: q.next()})
			continue
		}
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

// waitFor is one waiting key and when it becomes ready; on the priority
// queue also its priority, and seq is its order.
type waitFor struct {
	key      string
	readyAt  time.Duration
	priority int
	seq      int64
	index    int // in the heap
}

// waitHeap orders waiting keys by ready time, then by priority (always 0 on
// the classic queue), then by when they were added.
type waitHeap []*waitFor

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if h[i].readyAt != h[j].readyAt {
		return h[i].readyAt < h[j].readyAt
	}
	if h[i].priority != h[j].priority {
		return h[i].priority > h[j].priority
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
