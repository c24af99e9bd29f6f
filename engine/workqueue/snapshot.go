package workqueue

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reconcile-demo/reconcile-demo/internal/jsonw"
)

// Bounds a restored queue must keep.
const (
	// MaxKeys bounds the distinct keys of a snapshot. The queue itself holds
	// whatever keys its caller gives it; callers bound their key space.
	MaxKeys = 1024
	// MaxKeyLen bounds a key: a Kubernetes namespace (63), a slash and a
	// name (253).
	MaxKeyLen = 63 + 1 + 253
)

// Snapshot is a queue in plain, JSON-ready form. Times are virtual
// milliseconds relative to the queue's clock; a sub-millisecond remainder is
// rounded up for waiting keys (never ready early) and down for the bucket
// (never more tokens than there were).
//
// A classic queue's snapshot has no Priority and no Items: it is the format
// written before the priority queue existed, so those snapshots restore as
// the classic queue they were.
type Snapshot struct {
	// Priority: the queue is the priority queue (NewPriority).
	Priority bool `json:"priority,omitempty"`
	// Ready is the ready keys in hand-out order.
	Ready []string `json:"ready,omitempty"`
	// Processing is the keys handed out and not Done, sorted by key.
	Processing []ProcessingState `json:"processing,omitempty"`
	// Waiting is the waiting keys in the order their waits began, which
	// breaks ties between equal ready times (a wait moved earlier keeps its
	// place; on the priority queue, a raised priority takes a new place).
	Waiting []WaitingState `json:"waiting,omitempty"`
	// Items is, on the priority queue only, every key that is queued
	// (ready, dirty while processing, or waiting) with its priority, in
	// order: the order that breaks ties between keys of one priority.
	Items []ItemState `json:"items,omitempty"`
	// Failures is every key with failures, sorted by key.
	Failures []FailureState `json:"failures,omitempty"`
	// BucketMs is the classic queue's token bucket's credit: 100 ms per
	// token, 10000 when full, negative when adds wait for tokens. The
	// priority queue has no bucket: 0.
	BucketMs int64 `json:"bucketMs,omitempty"`
	Retries  int64 `json:"retries,omitempty"`
	Adds     int64 `json:"adds,omitempty"`
}

// ItemState is one queued key of the priority queue and its priority.
type ItemState struct {
	Key      string `json:"key"`
	Priority int    `json:"priority,omitempty"`
}

// ProcessingState is one key being processed; Dirty if added again since.
type ProcessingState struct {
	Key   string `json:"key"`
	Dirty bool   `json:"dirty,omitempty"`
}

// WaitingState is one waiting key, ready DueMs from now (at least 1).
type WaitingState struct {
	Key   string `json:"key"`
	DueMs int64  `json:"dueMs"`
}

// FailureState is one key's failure count (at least 1).
type FailureState struct {
	Key string `json:"key"`
	N   int    `json:"n"`
}

// Snapshot returns the queue's snapshot.
func (q *Queue) Snapshot() Snapshot {
	s := Snapshot{
		Priority: q.kind == Priority,
		Ready:    q.Ready(),
		Retries:  q.retries,
		Adds:     q.adds,
	}
	if q.limiter.bucket {
		s.BucketMs = floorMs(q.limiter.creditAt(q.now))
	}
	if len(s.Ready) == 0 {
		s.Ready = nil
	}
	for k := range q.processing {
		s.Processing = append(s.Processing, ProcessingState{Key: k, Dirty: q.dirty[k]})
	}
	slices.SortFunc(s.Processing, func(a, b ProcessingState) int { return strings.Compare(a.Key, b.Key) })
	ws := append(waitHeap(nil), q.waiting...)
	sort.Slice(ws, func(i, j int) bool { return ws[i].seq < ws[j].seq })
	for _, w := range ws {
		s.Waiting = append(s.Waiting, WaitingState{Key: w.key, DueMs: ceilMs(w.readyAt - q.now)})
	}
	for k, n := range q.limiter.failures {
		s.Failures = append(s.Failures, FailureState{Key: k, N: n})
	}
	slices.SortFunc(s.Failures, func(a, b FailureState) int { return strings.Compare(a.Key, b.Key) })
	if q.kind == Priority {
		type placed struct {
			ItemState
			order int64
		}
		var all []placed
		for k, it := range q.items {
			all = append(all, placed{ItemState{Key: k, Priority: it.priority}, it.order})
		}
		for k, w := range q.waitingFor {
			all = append(all, placed{ItemState{Key: k, Priority: w.priority}, w.seq})
		}
		sort.Slice(all, func(i, j int) bool { return all[i].order < all[j].order })
		for _, p := range all {
			s.Items = append(s.Items, p.ItemState)
		}
	}
	return s
}

func ceilMs(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// floorMs rounds toward minus infinity (Go's division rounds toward zero).
func floorMs(d time.Duration) int64 {
	if d < 0 {
		return -ceilMs(-d)
	}
	return int64(d / time.Millisecond)
}

// Restore rebuilds a queue from a snapshot after checking every field and
// bound. It returns an error, and no queue, for any snapshot Snapshot could
// not have written.
func Restore(s Snapshot) (*Queue, error) {
	q, err := restore(s)
	if err != nil {
		return nil, fmt.Errorf("restore queue: %w", err)
	}
	return q, nil
}

func restore(s Snapshot) (*Queue, error) {
	keys := map[string]bool{}
	check := func(what, k string) error {
		if err := validKey(k); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		keys[k] = true
		if len(keys) > MaxKeys {
			return fmt.Errorf("more than %d keys", MaxKeys)
		}
		return nil
	}
	q := New()
	if s.Priority {
		q = NewPriority()
	}
	// The priority queue's items, numbered in order from 1.
	items := map[string]item{}
	for i, it := range s.Items {
		if !s.Priority {
			return nil, errors.New("items on the classic queue")
		}
		if err := check("items", it.Key); err != nil {
			return nil, err
		}
		if _, dup := items[it.Key]; dup {
			return nil, fmt.Errorf("%q queued twice", it.Key)
		}
		if it.Priority < -MaxPriority || it.Priority > MaxPriority {
			return nil, fmt.Errorf("%q at priority %d, out of range", it.Key, it.Priority)
		}
		items[it.Key] = item{priority: it.Priority, order: int64(i + 1)}
	}
	// dirty marks k dirty, with its item on the priority queue.
	dirty := func(k string) error {
		q.dirty[k] = true
		if !s.Priority {
			return nil
		}
		it, ok := items[k]
		if !ok {
			return fmt.Errorf("%q queued without an item", k)
		}
		q.items[k] = &it
		return nil
	}
	for _, k := range s.Ready {
		if err := check("ready", k); err != nil {
			return nil, err
		}
		if q.dirty[k] {
			return nil, fmt.Errorf("%q ready twice", k)
		}
		if err := dirty(k); err != nil {
			return nil, err
		}
		q.queue = append(q.queue, k)
	}
	for i := 1; s.Priority && i < len(q.queue); i++ {
		if !q.before(q.queue[i-1], q.queue[i]) {
			return nil, errors.New("ready keys not in priority order")
		}
	}
	for i, p := range s.Processing {
		if err := check("processing", p.Key); err != nil {
			return nil, err
		}
		if i > 0 && s.Processing[i-1].Key >= p.Key {
			return nil, errors.New("processing keys not sorted and unique")
		}
		if q.dirty[p.Key] {
			return nil, fmt.Errorf("%q both ready and processing", p.Key)
		}
		q.processing[p.Key] = true
		if p.Dirty {
			if err := dirty(p.Key); err != nil {
				return nil, err
			}
		}
	}
	var lastOrder int64
	for _, w := range s.Waiting {
		if err := check("waiting", w.Key); err != nil {
			return nil, err
		}
		if _, dup := q.waitingFor[w.Key]; dup {
			return nil, fmt.Errorf("%q waits twice", w.Key)
		}
		if w.DueMs < 1 || w.DueMs > int64(maxWait/time.Millisecond) {
			return nil, fmt.Errorf("%q due in %d ms, out of range", w.Key, w.DueMs)
		}
		wf := &waitFor{key: w.Key, readyAt: time.Duration(w.DueMs) * time.Millisecond, index: len(q.waiting)}
		if s.Priority {
			it, ok := items[w.Key]
			switch {
			case !ok:
				return nil, fmt.Errorf("%q waits without an item", w.Key)
			case q.dirty[w.Key]:
				return nil, fmt.Errorf("%q both dirty and waiting", w.Key)
			case it.order < lastOrder:
				return nil, errors.New("waiting keys not in order")
			}
			wf.priority, wf.seq, lastOrder = it.priority, it.order, it.order
		} else {
			q.seq++
			wf.seq = q.seq
		}
		q.waiting = append(q.waiting, wf)
		q.waitingFor[w.Key] = wf
	}
	heap.Init(&q.waiting)
	if s.Priority {
		if len(items) != len(q.dirty)+len(q.waiting) {
			return nil, errors.New("items that are neither dirty nor waiting")
		}
		q.seq = int64(len(items))
	}
	for i, f := range s.Failures {
		if err := check("failures", f.Key); err != nil {
			return nil, err
		}
		if i > 0 && s.Failures[i-1].Key >= f.Key {
			return nil, errors.New("failures not sorted and unique")
		}
		if f.N < 1 || f.N > MaxRequeues {
			return nil, fmt.Errorf("%q has %d failures, out of range", f.Key, f.N)
		}
		q.limiter.failures[f.Key] = f.N
	}
	switch {
	case s.Priority && s.BucketMs != 0:
		return nil, errors.New("a bucket on the priority queue")
	case s.BucketMs < -int64(MaxDelay/time.Millisecond) || s.BucketMs > int64(bucketFull/time.Millisecond):
		return nil, fmt.Errorf("bucket %d ms out of range", s.BucketMs)
	}
	if q.limiter.bucket {
		q.limiter.credit = time.Duration(s.BucketMs) * time.Millisecond
	}
	if s.Retries < 0 || s.Retries > MaxCounter || s.Adds < 0 || s.Adds > MaxCounter {
		return nil, errors.New("counters out of range")
	}
	q.retries, q.adds = s.Retries, s.Adds
	return q, nil
}

// validKey accepts what a caller could have added that a snapshot may carry:
// non-empty, at most MaxKeyLen bytes of UTF-8 without control characters.
func validKey(k string) error {
	if k == "" || len(k) > MaxKeyLen || !utf8.ValidString(k) {
		return fmt.Errorf("bad key %q", k)
	}
	for _, r := range k {
		if unicode.IsControl(r) {
			return fmt.Errorf("bad key %q", k)
		}
	}
	return nil
}

// AsPriority returns the snapshot of a priority queue in the state the
// classic queue's snapshot s describes, and true; or false when s holds what
// the priority queue cannot: a key both queued (ready, or dirty while
// processing) and waiting. Every key keeps its place at the default
// priority (ready keys in their order, then dirty ones, then waiting ones in
// the order their waits began), and its failures; the bucket is dropped, as
// the priority queue has none. A snapshot of the priority queue is returned
// as it is.
func (s Snapshot) AsPriority() (Snapshot, bool) {
	if s.Priority {
		return s, true
	}
	out := Snapshot{Priority: true, Ready: s.Ready, Processing: s.Processing, Waiting: s.Waiting,
		Failures: s.Failures, Retries: s.Retries, Adds: s.Adds}
	queued := map[string]bool{}
	for _, k := range s.Ready {
		queued[k] = true
		out.Items = append(out.Items, ItemState{Key: k})
	}
	for _, p := range s.Processing {
		if p.Dirty {
			queued[p.Key] = true
			out.Items = append(out.Items, ItemState{Key: p.Key})
		}
	}
	for _, w := range s.Waiting {
		if queued[w.Key] {
			return Snapshot{}, false
		}
		out.Items = append(out.Items, ItemState{Key: w.Key})
	}
	return out, true
}

// AppendJSON appends s as json.Marshal writes it.
func (s *Snapshot) AppendJSON(b []byte) []byte {
	b = jsonw.OmitBool(append(b, '{'), "priority", s.Priority)
	b = jsonw.OmitArray(b, "ready", s.Ready, func(b []byte, k string) []byte { return jsonw.String(b, k) })
	b = jsonw.OmitArray(b, "processing", s.Processing, func(b []byte, p ProcessingState) []byte {
		return append(jsonw.OmitBool(jsonw.StringField(append(b, '{'), "key", p.Key), "dirty", p.Dirty), '}')
	})
	b = jsonw.OmitArray(b, "waiting", s.Waiting, func(b []byte, w WaitingState) []byte {
		return append(jsonw.IntField(jsonw.StringField(append(b, '{'), "key", w.Key), "dueMs", w.DueMs), '}')
	})
	b = jsonw.OmitArray(b, "items", s.Items, func(b []byte, it ItemState) []byte {
		return append(jsonw.OmitInt(jsonw.StringField(append(b, '{'), "key", it.Key), "priority", int64(it.Priority)), '}')
	})
	b = jsonw.OmitArray(b, "failures", s.Failures, func(b []byte, f FailureState) []byte {
		return append(jsonw.IntField(jsonw.StringField(append(b, '{'), "key", f.Key), "n", int64(f.N)), '}')
	})
	b = jsonw.OmitInt(b, "bucketMs", s.BucketMs)
	b = jsonw.OmitInt(b, "retries", s.Retries)
	return append(jsonw.OmitInt(b, "adds", s.Adds), '}')
}
