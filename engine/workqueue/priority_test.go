package workqueue

import (
	"reflect"
	"testing"
	"time"
)

// The priority queue's rules, each beside the classic queue's where the two
// differ. Every test runs on the virtual clock: nothing sleeps.

func queues() map[Kind]func() *Queue {
	return map[Kind]func() *Queue{Classic: New, Priority: NewPriority}
}

func TestPriorityLimiterIsItemExponentialAlone(t *testing.T) {
	q := NewPriority()
	want := []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms,
		1280 * ms, 2560 * ms, 5120 * ms, 10240 * ms, 20480 * ms, 40960 * ms, 81920 * ms, 163840 * ms,
		327680 * ms, 655360 * ms, MaxDelay, MaxDelay}
	for i, w := range want {
		if got := fail(t, q, "k"); got != w {
			t.Fatalf("failure %d waited %v, want %v", i+1, got, w)
		}
	}
	if l := q.Limiter(); l.Kind != LimiterItemExponential || l.Bucket || l.Tokens != 0 || q.BucketTokens() != 0 {
		t.Fatalf("Limiter() = %+v, want item-exponential without a bucket", l)
	}
}

// TestPriorityHasNoBucket: past the classic queue's burst of 100, every new
// failing key still waits only its own 5 ms.
func TestPriorityHasNoBucket(t *testing.T) {
	for kind, mk := range queues() {
		q := mk()
		var last time.Duration
		for i := range BucketBurst + 3 {
			k := string(rune(0x4e00 + i))
			q.AddRateLimited(k)
			last = q.State(k).DueIn
		}
		want := map[Kind]time.Duration{Classic: 300 * ms, Priority: BaseDelay}[kind]
		if last != want {
			t.Fatalf("%s: the 103rd failing key waits %v, want %v", kind, last, want)
		}
	}
}

// TestPriorityAddOfWaitingKeyMakesItReadyNow: an Add without a delay of a
// key that waits makes it ready at once, and the wait is consumed: the key
// does not come back when its time would have come. The classic queue keeps
// the wait, and hands the key out a second time.
func TestPriorityAddOfWaitingKeyMakesItReadyNow(t *testing.T) {
	for kind, mk := range queues() {
		t.Run(string(kind), func(t *testing.T) {
			q := mk()
			q.AddAfter("k", 5*time.Second)
			q.Add("k")
			s := q.State("k")
			if !s.Ready {
				t.Fatalf("after Add: %+v, want ready", s)
			}
			if s.Waiting != (kind == Classic) {
				t.Fatalf("after Add: %+v; waiting should be %v", s, kind == Classic)
			}
			mustGet(t, q, "k")
			q.Done("k")
			q.Advance(5 * time.Second)
			back := q.Len() == 1
			if back != (kind == Classic) {
				t.Fatalf("at the old wait's time: handed out again %v, want %v", back, kind == Classic)
			}
		})
	}
}

// TestPriorityAddOfWaitingProcessingKeyMakesItDirty: the same while the key
// is on a worker (it waits after a RequeueAfter and an event adds it): it
// is dirty, so Done makes it ready, and nothing waits.
func TestPriorityAddOfWaitingProcessingKeyMakesItDirty(t *testing.T) {
	q := NewPriority()
	q.Add("k")
	mustGet(t, q, "k")
	q.AddAfter("k", 5*time.Second)
	q.Add("k")
	if s := q.State("k"); !s.Processing || !s.Dirty || s.Waiting {
		t.Fatalf("State = %+v, want processing and dirty, not waiting", s)
	}
	q.Done("k")
	mustGet(t, q, "k")
	q.Done("k")
	q.Advance(time.Hour)
	mustEmpty(t, q)
}

// TestPriorityAddAfterOfQueuedKeyIsIgnored: a key that will be handed out
// anyway ignores a wait (AddAfter, AddRateLimited), but the rate-limited add
// still counts its failure and both count a retry.
func TestPriorityAddAfterOfQueuedKeyIsIgnored(t *testing.T) {
	q := NewPriority()
	q.Add("k")
	q.AddAfter("k", time.Second)
	q.AddRateLimited("k")
	if s := q.State("k"); !s.Ready || s.Waiting || s.Requeues != 1 {
		t.Fatalf("State = %+v, want ready, not waiting, one failure", s)
	}
	if q.Retries() != 2 || q.Adds() != 1 {
		t.Fatalf("Retries %d Adds %d, want 2 1", q.Retries(), q.Adds())
	}
}

func TestPriorityWaitOnlyMovesEarlier(t *testing.T) {
	q := NewPriority()
	for _, s := range []struct{ after, want time.Duration }{
		{5 * time.Second, 5 * time.Second},
		{10 * time.Second, 5 * time.Second},
		{time.Second, time.Second},
	} {
		q.AddAfter("k", s.after)
		if st := q.State("k"); !st.Waiting || st.DueIn != s.want {
			t.Fatalf("AddAfter(%v): %+v, want due in %v", s.after, st, s.want)
		}
	}
	q.Advance(time.Second)
	mustGet(t, q, "k")
}

// TestPriorityReadyKeysGoOutByPriorityThenInOrder is the hand-out order:
// highest priority first, then in the order the keys were added.
func TestPriorityReadyKeysGoOutByPriorityThenInOrder(t *testing.T) {
	type add struct {
		key      string
		priority int
	}
	cases := []struct {
		name string
		adds []add
		want []string
	}{
		{"one priority: in order", []add{{"c", 0}, {"a", 0}, {"b", 0}}, []string{"c", "a", "b"}},
		{"the list behind an event", []add{{"a", LowPriority}, {"b", LowPriority}, {"c", 0}}, []string{"c", "a", "b"}},
		{"three priorities", []add{{"a", LowPriority}, {"b", 0}, {"c", 5}, {"d", 0}}, []string{"c", "b", "d", "a"}},
		{"clamped", []add{{"a", -5000}, {"b", 5000}, {"c", MaxPriority}}, []string{"b", "c", "a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := NewPriority()
			for _, a := range tc.adds {
				q.AddWithOpts(AddOpts{Priority: a.priority}, a.key)
			}
			if got := q.Ready(); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Ready() = %v, want %v", got, tc.want)
			}
			for _, k := range tc.want {
				mustGet(t, q, k)
			}
		})
	}
}

// TestPriorityOnlyRises: adding a queued key at a higher priority raises it,
// and it goes last among the keys of its new priority; a lower one leaves
// it. The classic queue has no priorities: AddLow is Add.
func TestPriorityOnlyRises(t *testing.T) {
	q := NewPriority()
	q.AddLow("a")
	q.Add("b")
	q.Add("a") // raised: behind b, which was at 0 first
	q.AddLow("b")
	if got := q.Ready(); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Fatalf("Ready() = %v, want [b a]", got)
	}
	for _, k := range []string{"a", "b"} {
		if p := q.State(k).Priority; p != 0 {
			t.Fatalf("%s at priority %d, want 0", k, p)
		}
	}
	// A waiting key rises too, and keeps its wait.
	q.AddWithOpts(AddOpts{After: time.Second, Priority: LowPriority}, "w")
	q.AddWithOpts(AddOpts{After: 2 * time.Second, Priority: 3}, "w")
	if s := q.State("w"); !s.Waiting || s.DueIn != time.Second || s.Priority != 3 {
		t.Fatalf("State(w) = %+v, want waiting 1s at priority 3", s)
	}
}

func TestAddLowOnTheClassicQueueIsAdd(t *testing.T) {
	q := New()
	q.AddLow("a")
	q.Add("b")
	q.AddWithOpts(AddOpts{Priority: 9}, "c")
	if got := q.Ready(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("Ready() = %v, want [a b c]: no priorities", got)
	}
	if k, p, ok := q.GetWithPriority(); k != "a" || p != 0 || !ok {
		t.Fatalf("GetWithPriority() = %q %d %v", k, p, ok)
	}
	// The options map as controller-runtime's wrapper of a plain queue.
	q.AddWithOpts(AddOpts{RateLimited: true, After: time.Hour}, "r")
	q.AddWithOpts(AddOpts{After: time.Second}, "d")
	if r, d := q.State("r"), q.State("d"); r.DueIn != BaseDelay || r.Requeues != 1 || d.DueIn != time.Second {
		t.Fatalf("rate limited %+v, delayed %+v", r, d)
	}
}

// TestPriorityRateLimitedWaitsTheShorter: AddWithOpts with both a delay and
// RateLimited waits the shorter, as controller-runtime does.
func TestPriorityRateLimitedWaitsTheShorter(t *testing.T) {
	q := NewPriority()
	q.AddWithOpts(AddOpts{RateLimited: true, After: time.Second}, "a")
	q.AddWithOpts(AddOpts{RateLimited: true, After: 2 * ms}, "b")
	if a, b := q.State("a").DueIn, q.State("b").DueIn; a != BaseDelay || b != 2*ms {
		t.Fatalf("waits %v and %v, want 5ms and 2ms", a, b)
	}
}

// TestPriorityGetReportsThePriority: the controller takes a key with its
// priority and requeues it at that priority, so a listed key that fails
// stays behind the keys of real events.
func TestPriorityGetReportsThePriority(t *testing.T) {
	q := NewPriority()
	q.AddLow("listed")
	k, p, _ := q.GetWithPriority()
	if k != "listed" || p != LowPriority {
		t.Fatalf("GetWithPriority() = %q %d", k, p)
	}
	if s := q.State("listed"); s.Priority != 0 {
		t.Fatalf("a processing key's State carries priority %d: it went to the worker", s.Priority)
	}
	q.AddWithOpts(AddOpts{RateLimited: true, Priority: p}, "listed")
	q.Done("listed")
	q.Advance(BaseDelay)
	q.Add("event")
	if got := q.Ready(); !reflect.DeepEqual(got, []string{"event", "listed"}) {
		t.Fatalf("Ready() = %v, want [event listed]", got)
	}
}

// TestPriorityDirtyKeyKeepsItsPlace: a key added while it is processing
// takes its order at the add, and Done puts it there (controller-runtime
// keeps it in its ready tree, locked). The classic queue puts it last.
func TestPriorityDirtyKeyKeepsItsPlace(t *testing.T) {
	want := map[Kind][]string{Classic: {"b", "a"}, Priority: {"a", "b"}}
	for kind, mk := range queues() {
		q := mk()
		q.Add("a")
		mustGet(t, q, "a")
		q.Add("a")
		q.Add("b")
		q.Done("a")
		if got := q.Ready(); !reflect.DeepEqual(got, want[kind]) {
			t.Fatalf("%s: Ready() = %v, want %v", kind, got, want[kind])
		}
	}
}

// TestPriorityWaitOverTakesTheNextOrder: a key whose wait is over is ready
// after the keys added before that moment, whenever its wait began; keys
// ready at the same moment go by priority.
func TestPriorityWaitOverTakesTheNextOrder(t *testing.T) {
	q := NewPriority()
	q.AddWithOpts(AddOpts{After: time.Second, Priority: LowPriority}, "low")
	q.AddAfter("w", time.Second)
	q.Add("x")
	q.Advance(time.Second)
	q.Add("y")
	if got, want := q.Ready(), []string{"x", "w", "y", "low"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Ready() = %v, want %v", got, want)
	}
}

func TestLimiterView(t *testing.T) {
	for kind, mk := range queues() {
		q := mk()
		fail(t, q, "a")
		fail(t, q, "a")
		q.AddRateLimited("b")
		l := q.Limiter()
		want := LimiterView{Kind: LimiterItemExponential, Keys: []LimitedKey{
			{Key: "a", Failures: 2, NextDelay: 20 * ms}, {Key: "b", Failures: 1, NextDelay: 10 * ms}}}
		if kind == Classic {
			want.Kind, want.Bucket, want.Tokens = LimiterMaxOf, true, BucketBurst-3
		}
		if !reflect.DeepEqual(l, want) {
			t.Fatalf("%s: Limiter() = %+v, want %+v", kind, l, want)
		}
		q.Forget("a")
		if n := len(q.Limiter().Keys); n != 1 {
			t.Fatalf("%s: %d failing keys after Forget, want 1", kind, n)
		}
	}
	// On the classic queue, a drained bucket makes the next delay longer.
	q := New()
	for range BucketBurst + 1 {
		q.AddRateLimited("k")
	}
	if d := q.NextDelay("other"); d != 200*ms {
		t.Fatalf("NextDelay after the burst = %v, want 200ms (two tokens behind)", d)
	}
	if d := q.Limiter().Keys[0].NextDelay; d != MaxDelay {
		t.Fatalf("k after %d failures: next delay %v, want the cap", BucketBurst+1, d)
	}
}

// TestPriorityKeepsTheSharedRules: collapse, never two workers on one key,
// Forget, NextReady: the rules both queues share.
func TestPriorityKeepsTheSharedRules(t *testing.T) {
	q := NewPriority()
	for range 3 {
		q.Add("k")
	}
	if q.Len() != 1 || q.Adds() != 1 {
		t.Fatalf("three Adds: Len %d Adds %d, want 1 1", q.Len(), q.Adds())
	}
	mustGet(t, q, "k")
	q.Add("k")
	mustEmpty(t, q)
	if q.Depth() != 1 {
		t.Fatalf("Depth() = %d, want 1", q.Depth())
	}
	q.Done("k")
	mustGet(t, q, "k")
	q.Done("k")
	q.Done("k")
	mustEmpty(t, q)
	for range 3 {
		fail(t, q, "k")
	}
	q.Forget("k")
	if got := fail(t, q, "k"); got != BaseDelay {
		t.Fatalf("after Forget: %v", got)
	}
	q.AddAfter("a", 2*time.Second)
	q.AddAfter("b", time.Second)
	if d, ok := q.NextReady(); !ok || d != time.Second {
		t.Fatalf("NextReady() = %v %v", d, ok)
	}
}
