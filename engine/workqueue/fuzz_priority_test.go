package workqueue

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"
	"time"
)

// checkPriority checks the invariants of the priority queue's own fields.
func checkPriority(t *testing.T, q *Queue) {
	t.Helper()
	if q.limiter.bucket || q.limiter.credit != 0 || q.BucketTokens() != 0 {
		t.Fatal("the priority queue has a bucket")
	}
	for i := 1; i < len(q.queue); i++ {
		if !q.before(q.queue[i-1], q.queue[i]) {
			t.Fatalf("ready keys %v not by priority, then order", q.queue)
		}
	}
	if len(q.items) != len(q.dirty) {
		t.Fatalf("%d items, %d dirty keys", len(q.items), len(q.dirty))
	}
	orders := map[int64]string{}
	see := func(k string, p int, o int64) {
		if p < -MaxPriority || p > MaxPriority || o < 1 || o > q.seq {
			t.Fatalf("%q at priority %d, order %d (seq %d)", k, p, o, q.seq)
		}
		if other, dup := orders[o]; dup {
			t.Fatalf("%q and %q share order %d", k, other, o)
		}
		orders[o] = k
	}
	for k, it := range q.items {
		if !q.dirty[k] {
			t.Fatalf("item of %q, which is not dirty", k)
		}
		if _, w := q.waitingFor[k]; w {
			t.Fatalf("%q both dirty and waiting", k)
		}
		see(k, it.priority, it.order)
	}
	for k, w := range q.waitingFor {
		see(k, w.priority, w.seq)
	}
}

// pmodel is a second, naive implementation of the priority queue, written
// from controller-runtime's priorityqueue.go (lockedAddWithOpts,
// handleWaitingItems, handleReadyItems): one item per queued key, deleted
// when the key is handed out, linear scans instead of trees.
type pmodel struct {
	now        time.Duration
	counter    int64
	items      map[string]*pitem
	processing map[string]bool
	failures   map[string]int
}

type pitem struct {
	priority int
	order    int64
	waiting  bool
	readyAt  time.Duration
}

func newPModel() *pmodel {
	return &pmodel{items: map[string]*pitem{}, processing: map[string]bool{}, failures: map[string]int{}}
}

func (m *pmodel) add(o AddOpts, k string) {
	p := min(max(o.Priority, -MaxPriority), MaxPriority)
	after := o.After
	if o.RateLimited {
		n := m.failures[k]
		m.failures[k] = n + 1
		rl := MaxDelay
		if n < 18 {
			rl = min(5*time.Millisecond*time.Duration(1<<n), MaxDelay)
		}
		if after == 0 || rl < after {
			after = rl
		}
	}
	wait, at := after > 0, m.now+after
	it, ok := m.items[k]
	if !ok {
		m.counter++
		m.items[k] = &pitem{priority: p, order: m.counter, waiting: wait, readyAt: at}
		return
	}
	if !it.waiting {
		wait = false
	} else if wait && it.readyAt < at {
		at = it.readyAt
	}
	if p > it.priority {
		m.counter++
		it.priority, it.order = p, m.counter
	}
	it.waiting, it.readyAt = wait, at
}

func (m *pmodel) advance(d time.Duration) {
	if d <= 0 {
		return
	}
	m.now += d
	var due []string
	for k, it := range m.items {
		if it.waiting && it.readyAt <= m.now {
			due = append(due, k)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		a, b := m.items[due[i]], m.items[due[j]]
		if a.readyAt != b.readyAt {
			return a.readyAt < b.readyAt
		}
		if a.priority != b.priority {
			return a.priority > b.priority
		}
		return a.order < b.order
	})
	for _, k := range due {
		m.counter++
		m.items[k].waiting, m.items[k].order = false, m.counter
	}
}

// ready returns the keys a Get may hand out, in order.
func (m *pmodel) ready() []string {
	var out []string
	for k, it := range m.items {
		if !it.waiting && !m.processing[k] {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := m.items[out[i]], m.items[out[j]]
		if a.priority != b.priority {
			return a.priority > b.priority
		}
		return a.order < b.order
	})
	return out
}

func (m *pmodel) get() (string, int, bool) {
	r := m.ready()
	if len(r) == 0 {
		return "", 0, false
	}
	k := r[0]
	p := m.items[k].priority
	delete(m.items, k)
	m.processing[k] = true
	return k, p, true
}

func (m *pmodel) keys() []KeyState {
	set := map[string]bool{}
	for k := range m.items {
		set[k] = true
	}
	for k := range m.processing {
		set[k] = true
	}
	for k := range m.failures {
		set[k] = true
	}
	out := []KeyState{}
	for k := range set {
		s := KeyState{Key: k, Processing: m.processing[k], Requeues: m.failures[k]}
		if it, ok := m.items[k]; ok {
			s.Priority = it.priority
			if it.waiting {
				s.Waiting, s.DueIn = true, it.readyAt-m.now
			} else {
				s.Dirty, s.Ready = s.Processing, !s.Processing
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

var fuzzPriorities = []int{LowPriority, 0, 7}

// FuzzPriorityQueue decodes its input as a program of (opcode, argument)
// byte pairs and runs it on the priority queue and on the model, checking
// the queue's invariants, its agreement with the model and its snapshot's
// round trip after every operation (op 9 goes on from the restored queue).
func FuzzPriorityQueue(f *testing.F) {
	f.Add([]byte{1, 0, 1, 1, 0, 2, 2, 0, 0, 0, 3, 0, 2, 0})
	f.Add([]byte{7, 200, 0, 0, 6, 100, 2, 0, 8, 0x19, 9, 0, 6, 255})
	f.Add([]byte{4, 1, 4, 1, 2, 0, 7, 255, 0, 1, 3, 1, 6, 50, 9, 0, 2, 0})
	f.Fuzz(runPriorityProg)
}

func runPriorityProg(t *testing.T, prog []byte) {
	{
		if len(prog) > 400 {
			prog = prog[:400]
		}
		q, m := NewPriority(), newPModel()
		for i := 0; i+1 < len(prog); i += 2 {
			op, arg := prog[i]%10, prog[i+1]
			k := fuzzKeys[int(arg)%len(fuzzKeys)]
			d := time.Duration(arg) * 7 * time.Millisecond
			switch op {
			case 0:
				q.Add(k)
				m.add(AddOpts{}, k)
			case 1:
				q.AddLow(k)
				m.add(AddOpts{Priority: LowPriority}, k)
			case 2:
				gk, gp, gok := q.GetWithPriority()
				mk, mp, mok := m.get()
				if gk != mk || gp != mp || gok != mok {
					t.Fatalf("GetWithPriority() = %q %d %v, model %q %d %v", gk, gp, gok, mk, mp, mok)
				}
			case 3:
				q.Done(k)
				delete(m.processing, k)
			case 4:
				q.AddRateLimited(k)
				m.add(AddOpts{RateLimited: true}, k)
			case 5:
				q.Forget(k)
				delete(m.failures, k)
			case 6:
				q.Advance(d)
				m.advance(d)
			case 7:
				q.AddAfter(k, d-100*time.Millisecond)
				m.add(AddOpts{After: d - 100*time.Millisecond}, k)
			case 8:
				o := AddOpts{After: time.Duration(arg%5)*3*time.Millisecond - 3*time.Millisecond,
					RateLimited: arg&8 != 0, Priority: fuzzPriorities[int(arg>>4)%len(fuzzPriorities)]}
				q.AddWithOpts(o, k)
				m.add(o, k)
			case 9:
				b, err := json.Marshal(q.Snapshot())
				if err != nil {
					t.Fatal(err)
				}
				var s Snapshot
				if err := json.Unmarshal(b, &s); err != nil {
					t.Fatal(err)
				}
				if q, err = Restore(s); err != nil {
					t.Fatalf("own snapshot refused: %v\n%s", err, b)
				}
				for _, it := range m.items {
					it.readyAt -= m.now
				}
				m.now = 0
			}
			checkQueue(t, q)
			if got, want := q.Keys(), m.keys(); !reflect.DeepEqual(got, want) {
				t.Fatalf("after op %d:\nqueue %+v\nmodel %+v", i/2, got, want)
			}
			if got, want := q.Ready(), m.ready(); !reflect.DeepEqual(got, append([]string(nil), want...)) {
				t.Fatalf("Ready() = %v, model %v", got, want)
			}
		}
	}
}

// FuzzRestore restores arbitrary JSON as a queue snapshot, of either kind:
// it never panics, and a snapshot it accepts is exactly the one the
// restored queue writes (one encoding per state), whose queue keeps its
// invariants as it goes on.
func FuzzRestore(f *testing.F) {
	for _, q := range []*Queue{busyPriorityQueue(), busyClassicQueue()} {
		b, _ := json.Marshal(q.Snapshot())
		f.Add(b)
	}
	f.Add([]byte(`{"priority":true,"ready":["b","a"],"items":[{"key":"a","priority":-100},{"key":"b"}]}`))
	f.Add([]byte(`{"ready":["a"],"waiting":[{"key":"a","dueMs":3}],"bucketMs":-5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Snapshot
		if json.Unmarshal(data, &s) != nil {
			return
		}
		q, err := Restore(s)
		if err != nil {
			if q != nil {
				t.Fatal("a queue and an error")
			}
			return
		}
		want, _ := json.Marshal(s)
		if got, _ := json.Marshal(q.Snapshot()); string(got) != string(want) {
			t.Fatalf("accepted\n%s\nwrites\n%s", want, got)
		}
		checkQueue(t, q)
		for _, k := range q.Keys() {
			q.Done(k.Key)
			q.AddLow(k.Key)
			q.AddRateLimited(k.Key)
		}
		q.Advance(time.Hour)
		for {
			k, ok := q.Get()
			if !ok {
				break
			}
			q.Done(k)
		}
		checkQueue(t, q)
	})
}

// busyPriorityQueue and busyClassicQueue are busy queues for seeds, built
// without a *testing.T.
func busyPriorityQueue() *Queue {
	q := NewPriority()
	q.AddLow("default/app-1")
	q.Add("default/app-2")
	q.Get()
	q.Add("default/app-2")
	q.AddWithOpts(AddOpts{After: 5 * time.Second, Priority: LowPriority}, "default/app-3")
	q.AddRateLimited("default/app-4")
	q.Advance(3 * ms)
	return q
}

func busyClassicQueue() *Queue {
	q := New()
	q.Add("default/app-1")
	q.Get()
	q.Add("default/app-1")
	q.AddAfter("default/app-1", time.Second)
	for range BucketBurst + 2 {
		q.AddRateLimited("default/app-2")
	}
	return q
}
