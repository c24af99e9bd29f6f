package workqueue

import (
	"container/heap"
	"errors"
	"fmt"
	"sort"
	"time"
	"unicode"
	"unicode/utf8"
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
type Snapshot struct {
	// Ready is the ready keys in hand-out order.
	Ready []string `json:"ready,omitempty"`
	// Processing is the keys handed out and not Done, sorted by key.
	Processing []ProcessingState `json:"processing,omitempty"`
	// Waiting is the waiting keys in the order their waits began, which
	// breaks ties between equal ready times (a wait moved earlier keeps its
	// place).
	Waiting []WaitingState `json:"waiting,omitempty"`
	// Failures is every key with failures, sorted by key.
	Failures []FailureState `json:"failures,omitempty"`
	// BucketMs is the token bucket's credit: 100 ms per token, 10000 when
	// full, negative when adds wait for tokens.
	BucketMs int64 `json:"bucketMs"`
	Retries  int64 `json:"retries,omitempty"`
	Adds     int64 `json:"adds,omitempty"`
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
		Ready:    q.Ready(),
		BucketMs: floorMs(q.limiter.creditAt(q.now)),
		Retries:  q.retries,
		Adds:     q.adds,
	}
	if len(s.Ready) == 0 {
		s.Ready = nil
	}
	for k := range q.processing {
		s.Processing = append(s.Processing, ProcessingState{Key: k, Dirty: q.dirty[k]})
	}
	sort.Slice(s.Processing, func(i, j int) bool { return s.Processing[i].Key < s.Processing[j].Key })
	ws := append(waitHeap(nil), q.waiting...)
	sort.Slice(ws, func(i, j int) bool { return ws[i].seq < ws[j].seq })
	for _, w := range ws {
		s.Waiting = append(s.Waiting, WaitingState{Key: w.key, DueMs: ceilMs(w.readyAt - q.now)})
	}
	for k, n := range q.limiter.failures {
		s.Failures = append(s.Failures, FailureState{Key: k, N: n})
	}
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].Key < s.Failures[j].Key })
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
	keys := map[string]bool{}
	check := func(what, k string) error {
		if err := validKey(k); err != nil {
			return fmt.Errorf("restore queue: %s: %w", what, err)
		}
		keys[k] = true
		if len(keys) > MaxKeys {
			return fmt.Errorf("restore queue: more than %d keys", MaxKeys)
		}
		return nil
	}
	q := New()
	for _, k := range s.Ready {
		if err := check("ready", k); err != nil {
			return nil, err
		}
		if q.dirty[k] {
			return nil, fmt.Errorf("restore queue: %q ready twice", k)
		}
		q.dirty[k] = true
		q.queue = append(q.queue, k)
	}
	for i, p := range s.Processing {
		if err := check("processing", p.Key); err != nil {
			return nil, err
		}
		if i > 0 && s.Processing[i-1].Key >= p.Key {
			return nil, errors.New("restore queue: processing keys not sorted and unique")
		}
		if q.dirty[p.Key] {
			return nil, fmt.Errorf("restore queue: %q both ready and processing", p.Key)
		}
		q.processing[p.Key] = true
		if p.Dirty {
			q.dirty[p.Key] = true
		}
	}
	for _, w := range s.Waiting {
		if err := check("waiting", w.Key); err != nil {
			return nil, err
		}
		if _, dup := q.waitingFor[w.Key]; dup {
			return nil, fmt.Errorf("restore queue: %q waits twice", w.Key)
		}
		if w.DueMs < 1 || w.DueMs > int64(maxWait/time.Millisecond) {
			return nil, fmt.Errorf("restore queue: %q due in %d ms, out of range", w.Key, w.DueMs)
		}
		at := time.Duration(w.DueMs) * time.Millisecond
		q.seq++
		wf := &waitFor{key: w.Key, readyAt: at, seq: q.seq, index: len(q.waiting)}
		q.waiting = append(q.waiting, wf)
		q.waitingFor[w.Key] = wf
	}
	heap.Init(&q.waiting)
	for i, f := range s.Failures {
		if err := check("failures", f.Key); err != nil {
			return nil, err
		}
		if i > 0 && s.Failures[i-1].Key >= f.Key {
			return nil, errors.New("restore queue: failures not sorted and unique")
		}
		if f.N < 1 || f.N > MaxRequeues {
			return nil, fmt.Errorf("restore queue: %q has %d failures, out of range", f.Key, f.N)
		}
		q.limiter.failures[f.Key] = f.N
	}
	if s.BucketMs < -int64(MaxDelay/time.Millisecond) || s.BucketMs > int64(bucketFull/time.Millisecond) {
		return nil, fmt.Errorf("restore queue: bucket %d ms out of range", s.BucketMs)
	}
	q.limiter.credit = time.Duration(s.BucketMs) * time.Millisecond
	if s.Retries < 0 || s.Retries > MaxCounter || s.Adds < 0 || s.Adds > MaxCounter {
		return nil, errors.New("restore queue: counters out of range")
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
