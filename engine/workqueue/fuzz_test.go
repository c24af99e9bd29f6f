package workqueue

import (
	"reflect"
	"sort"
	"testing"
	"time"
)

// model is a second, naive implementation of the queue's rules: linear scans
// instead of a heap. The fuzzer runs both on one program and compares them.
type model struct {
	now        time.Duration
	queue      []string
	dirty      map[string]bool
	processing map[string]bool
	waiting    map[string]time.Duration
	order      map[string]int // tie-break: when the wait began
	seq        int
	failures   map[string]int
	credit     time.Duration
	last       time.Duration
}

func newModel() *model {
	return &model{dirty: map[string]bool{}, processing: map[string]bool{}, waiting: map[string]time.Duration{},
		order: map[string]int{}, failures: map[string]int{}, credit: 10 * time.Second}
}

func (m *model) add(k string) {
	if m.dirty[k] {
		return
	}
	m.dirty[k] = true
	if !m.processing[k] {
		m.queue = append(m.queue, k)
	}
}

func (m *model) get() (string, bool) {
	if len(m.queue) == 0 {
		return "", false
	}
	k := m.queue[0]
	m.queue = m.queue[1:]
	m.processing[k] = true
	delete(m.dirty, k)
	return k, true
}

func (m *model) done(k string) {
	if !m.processing[k] {
		return
	}
	delete(m.processing, k)
	if m.dirty[k] {
		m.queue = append(m.queue, k)
	}
}

func (m *model) addAfter(k string, d time.Duration) {
	if d <= 0 {
		m.add(k)
		return
	}
	at := m.now + d
	if old, ok := m.waiting[k]; ok {
		if at < old {
			m.waiting[k] = at
		}
		return
	}
	m.seq++
	m.waiting[k], m.order[k] = at, m.seq
}

func (m *model) when(k string) time.Duration {
	n := m.failures[k]
	m.failures[k] = n + 1
	b := MaxDelay
	if n < 18 {
		b = min(5*time.Millisecond*time.Duration(1<<n), MaxDelay)
	}
	m.credit = max(min(m.credit+m.now-m.last, 10*time.Second)-100*time.Millisecond, -MaxDelay)
	m.last = m.now
	return max(b, -m.credit)
}

func (m *model) advance(d time.Duration) {
	if d <= 0 {
		return
	}
	m.now += d
	for {
		best := ""
		for k, at := range m.waiting {
			if at > m.now {
				continue
			}
			if best == "" || at < m.waiting[best] || at == m.waiting[best] && m.order[k] < m.order[best] {
				best = k
			}
		}
		if best == "" {
			return
		}
		delete(m.waiting, best)
		m.add(best)
	}
}

func (m *model) keys() []KeyState {
	set := map[string]bool{}
	for _, k := range m.queue {
		set[k] = true
	}
	for _, mp := range []map[string]bool{m.processing} {
		for k := range mp {
			set[k] = true
		}
	}
	for k := range m.waiting {
		set[k] = true
	}
	for k := range m.failures {
		set[k] = true
	}
	out := []KeyState{}
	for k := range set {
		s := KeyState{Key: k, Processing: m.processing[k], Requeues: m.failures[k]}
		s.Dirty = s.Processing && m.dirty[k]
		s.Ready = !s.Processing && m.dirty[k]
		if at, ok := m.waiting[k]; ok {
			s.Waiting, s.DueIn = true, at-m.now
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

var fuzzKeys = []string{"default/app-1", "default/app-2", "default/app-3", "x"}

// FuzzQueue decodes its input as a program of (opcode, argument) byte pairs
// and runs it on the queue and on the model, checking the queue's invariants
// and its agreement with the model after every operation, and that a
// snapshot restores to a queue that goes on exactly as the original.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 0, 2, 0, 0, 0, 3, 0, 2, 0})
	f.Add([]byte{4, 1, 4, 1, 6, 200, 2, 0, 5, 1, 8, 0})
	f.Add([]byte{3, 5, 3, 17, 6, 255, 6, 10, 9, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 400 {
			prog = prog[:400]
		}
		q, m := New(), newModel()
		for i := 0; i+1 < len(prog); i += 2 {
			op, arg := prog[i]%10, prog[i+1]
			k := fuzzKeys[int(arg)%len(fuzzKeys)]
			d := time.Duration(arg) * 7 * time.Millisecond
			switch op {
			case 0:
				q.Add(k)
				m.add(k)
			case 1, 2:
				gk, gok := q.Get()
				mk, mok := m.get()
				if gk != mk || gok != mok {
					t.Fatalf("Get() = %q %v, model %q %v", gk, gok, mk, mok)
				}
			case 3:
				q.Done(k)
				m.done(k)
			case 4:
				q.AddRateLimited(k)
				m.addAfter(k, m.when(k))
			case 5:
				q.Forget(k)
				delete(m.failures, k)
			case 6:
				q.Advance(d)
				m.advance(d)
			case 7:
				q.AddAfter(k, d-100*time.Millisecond)
				m.addAfter(k, d-100*time.Millisecond)
			case 8:
				// a burst that drains the bucket
				for range 60 {
					q.AddRateLimited(k)
					m.addAfter(k, m.when(k))
				}
			case 9:
				r, err := Restore(q.Snapshot())
				if err != nil {
					t.Fatalf("own snapshot refused: %v", err)
				}
				q = r
				// Only differences of times matter: move the model's
				// clock to zero, as Restore does.
				for k, at := range m.waiting {
					m.waiting[k] = at - m.now
				}
				m.credit = min(m.credit+m.now-m.last, 10*time.Second)
				m.now, m.last = 0, 0
			}
			checkQueue(t, q)
			if got, want := q.Keys(), m.keys(); !reflect.DeepEqual(got, want) {
				t.Fatalf("after op %d:\nqueue %+v\nmodel %+v", i/2, got, want)
			}
			if got, want := q.Ready(), m.queue; !reflect.DeepEqual(got, append([]string(nil), want...)) {
				t.Fatalf("Ready() = %v, model %v", got, want)
			}
		}
	})
}

// checkQueue checks the invariants client-go states for its fields, and the
// snapshot round trip.
func checkQueue(t *testing.T, q *Queue) {
	t.Helper()
	seen := map[string]bool{}
	for _, k := range q.queue {
		if seen[k] {
			t.Fatalf("%q twice in the ready queue", k)
		}
		seen[k] = true
		if !q.dirty[k] || q.processing[k] {
			t.Fatalf("ready %q: dirty %v processing %v", k, q.dirty[k], q.processing[k])
		}
	}
	for k := range q.dirty {
		if !seen[k] && !q.processing[k] {
			t.Fatalf("dirty %q neither ready nor processing", k)
		}
	}
	if len(q.waiting) != len(q.waitingFor) {
		t.Fatalf("heap %d entries, index %d", len(q.waiting), len(q.waitingFor))
	}
	for i, w := range q.waiting {
		if w.index != i || q.waitingFor[w.key] != w {
			t.Fatalf("heap entry %d (%q) badly indexed", i, w.key)
		}
		if w.readyAt <= q.now {
			t.Fatalf("%q waits for %v, now %v: should be ready", w.key, w.readyAt, q.now)
		}
	}
	if d, ok := q.NextReady(); ok != (len(q.waiting) > 0) || ok && d <= 0 {
		t.Fatalf("NextReady() = %v, %v with %d waiting", d, ok, len(q.waiting))
	}
	if q.kind == Priority {
		checkPriority(t, q)
	} else if c := q.limiter.creditAt(q.now); c > bucketFull || c < -MaxDelay {
		t.Fatalf("bucket credit %v out of bounds", c)
	}
	s := q.Snapshot()
	r, err := Restore(s)
	if err != nil {
		t.Fatalf("own snapshot refused: %v\n%+v", err, s)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, s)
	}
}
