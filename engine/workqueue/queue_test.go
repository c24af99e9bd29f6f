package workqueue

import (
	"reflect"
	"testing"
	"time"
)

const ms = time.Millisecond

func mustGet(t *testing.T, q *Queue, want string) {
	t.Helper()
	got, ok := q.Get()
	if !ok || got != want {
		t.Fatalf("Get() = %q, %v; want %q, true", got, ok, want)
	}
}

func mustEmpty(t *testing.T, q *Queue) {
	t.Helper()
	if got, ok := q.Get(); ok {
		t.Fatalf("Get() = %q, true; want nothing ready", got)
	}
	if q.Len() != 0 {
		t.Fatalf("Len() = %d, want 0", q.Len())
	}
}

func TestCollapse(t *testing.T) {
	q := New()
	for range 3 {
		q.Add("default/app-1")
	}
	if q.Len() != 1 {
		t.Fatalf("three Adds of one key: Len() = %d, want 1", q.Len())
	}
	mustGet(t, q, "default/app-1")
	mustEmpty(t, q)
	if q.Adds() != 1 {
		t.Fatalf("Adds() = %d, want 1 (the collapsed ones do not count)", q.Adds())
	}
}

func TestFairOrder(t *testing.T) {
	q := New()
	for _, k := range []string{"c", "a", "b"} {
		q.Add(k)
	}
	if got, want := q.Ready(), []string{"c", "a", "b"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Ready() = %v, want %v (the order of the Adds)", got, want)
	}
	mustGet(t, q, "c")
	mustGet(t, q, "a")
	q.Add("c") // added again while processing: after b, not before
	q.Done("c")
	mustGet(t, q, "b")
	mustGet(t, q, "c")
}

func TestAddWhileProcessing(t *testing.T) {
	q := New()
	q.Add("k")
	mustGet(t, q, "k")
	q.Add("k")
	q.Add("k")
	s := q.State("k")
	if !s.Processing || !s.Dirty || s.Ready {
		t.Fatalf("State after Add while processing = %+v, want processing and dirty, not ready", s)
	}
	mustEmpty(t, q) // never handed to a second worker
	if q.Depth() != 1 {
		t.Fatalf("Depth() = %d, want 1: workqueue_depth counts the dirty key", q.Depth())
	}
	q.Done("k")
	if s := q.State("k"); !s.Ready || s.Processing {
		t.Fatalf("State after Done = %+v, want ready", s)
	}
	mustGet(t, q, "k")
	q.Done("k")
	mustEmpty(t, q)
	if s := q.State("k"); s != (KeyState{Key: "k"}) {
		t.Fatalf("State after the second Done = %+v, want nothing", s)
	}
}

func TestDoneOfAKeyNotProcessingDoesNothing(t *testing.T) {
	q := New()
	q.Add("k")
	q.Done("k") // not handed out: must not queue a second copy
	q.Done("unknown")
	if q.Len() != 1 {
		t.Fatalf("Len() = %d, want 1", q.Len())
	}
	mustGet(t, q, "k")
	mustEmpty(t, q)
}

// fail makes key fail once, as controller-runtime does on an error: Get, then
// AddRateLimited, then Done. It returns the wait the limiter chose.
func fail(t *testing.T, q *Queue, key string) time.Duration {
	t.Helper()
	q.Add(key)
	mustGet(t, q, key)
	q.AddRateLimited(key)
	q.Done(key)
	s := q.State(key)
	if !s.Waiting || s.Ready {
		t.Fatalf("after AddRateLimited: %+v, want waiting", s)
	}
	q.Advance(s.DueIn)
	if !q.State(key).Ready {
		t.Fatalf("not ready after its wait %v", s.DueIn)
	}
	mustGet(t, q, key)
	q.Done(key)
	return s.DueIn
}

func TestRateLimitedBackoff(t *testing.T) {
	q := New()
	want := []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms,
		1280 * ms, 2560 * ms, 5120 * ms, 10240 * ms, 20480 * ms, 40960 * ms, 81920 * ms, 163840 * ms,
		327680 * ms, 655360 * ms, MaxDelay, MaxDelay, MaxDelay}
	for i, w := range want {
		if got := fail(t, q, "k"); got != w {
			t.Fatalf("failure %d waited %v, want %v", i+1, got, w)
		}
		if n := q.NumRequeues("k"); n != i+1 {
			t.Fatalf("NumRequeues after %d failures = %d", i+1, n)
		}
	}
}

func TestBucketAfterBurst(t *testing.T) {
	q := New()
	key := func(i int) string { return string(rune('A'+i/26)) + string(rune('a'+i%26)) }
	for i := range BucketBurst {
		q.AddRateLimited(key(i))
		if d := q.State(key(i)).DueIn; d != BaseDelay {
			t.Fatalf("add %d within the burst waits %v, want %v", i+1, d, BaseDelay)
		}
	}
	if q.BucketTokens() != 0 {
		t.Fatalf("BucketTokens() = %d after the burst, want 0", q.BucketTokens())
	}
	for i, want := range []time.Duration{100 * ms, 200 * ms, 300 * ms} {
		k := key(BucketBurst + i)
		q.AddRateLimited(k)
		if d := q.State(k).DueIn; d != want {
			t.Fatalf("add %d after the burst waits %v, want %v (reserve: 100 ms a token)", BucketBurst+i+1, d, want)
		}
	}
	q.Advance(300 * ms) // the three borrowed tokens are repaid
	if q.BucketTokens() != 0 {
		t.Fatalf("BucketTokens() = %d, want 0", q.BucketTokens())
	}
	q.Advance(time.Hour)
	if q.BucketTokens() != BucketBurst {
		t.Fatalf("BucketTokens() = %d after an hour, want %d (full, never more)", q.BucketTokens(), BucketBurst)
	}
}

func TestForgetResets(t *testing.T) {
	q := New()
	for range 4 {
		fail(t, q, "k")
	}
	if q.NumRequeues("k") != 4 {
		t.Fatalf("NumRequeues = %d, want 4", q.NumRequeues("k"))
	}
	q.Forget("k")
	if q.NumRequeues("k") != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", q.NumRequeues("k"))
	}
	if got := fail(t, q, "k"); got != BaseDelay {
		t.Fatalf("first failure after Forget waits %v, want %v", got, BaseDelay)
	}
}

func TestForgetLeavesTheKeyQueued(t *testing.T) {
	q := New()
	q.Add("k")
	q.AddRateLimited("k")
	q.Forget("k")
	if s := q.State("k"); !s.Ready || !s.Waiting || s.Requeues != 0 {
		t.Fatalf("State = %+v, want ready and waiting, no failures", s)
	}
}

func TestAddAfterOnlyMovesEarlier(t *testing.T) {
	q := New()
	steps := []struct {
		after, want time.Duration
	}{
		{5 * time.Second, 5 * time.Second},
		{10 * time.Second, 5 * time.Second}, // later: ignored
		{time.Second, time.Second},          // earlier: moves
		{3 * time.Second, time.Second},
	}
	for _, s := range steps {
		q.AddAfter("k", s.after)
		if st := q.State("k"); !st.Waiting || st.DueIn != s.want {
			t.Fatalf("AddAfter(%v): %+v, want due in %v", s.after, st, s.want)
		}
	}
	q.Advance(999 * ms)
	mustEmpty(t, q)
	q.Advance(ms)
	mustGet(t, q, "k")
}

func TestAddAfterZeroAddsNow(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		q := New()
		q.AddAfter("k", d)
		if s := q.State("k"); !s.Ready || s.Waiting {
			t.Fatalf("AddAfter(%v): %+v, want ready now", d, s)
		}
		if q.Retries() != 1 {
			t.Fatalf("Retries() = %d, want 1: client-go counts every AddAfter", q.Retries())
		}
	}
}

func TestHeapOrder(t *testing.T) {
	q := New()
	q.AddAfter("c", 3*time.Second)
	q.AddAfter("a", time.Second)
	q.AddAfter("b", 2*time.Second)
	q.AddAfter("d", 2*time.Second) // same time as b, added after it
	q.Add("z")                     // ready now: first
	var order []string
	for _, w := range q.Waiting() {
		order = append(order, w.Key)
	}
	if want := []string{"a", "b", "d", "c"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("Waiting() = %v, want %v", order, want)
	}
	q.Advance(5 * time.Second)
	if got, want := q.Ready(), []string{"z", "a", "b", "d", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Ready() = %v, want %v (ready-time order, ties first added first)", got, want)
	}
}

func TestNextReady(t *testing.T) {
	q := New()
	if d, ok := q.NextReady(); ok {
		t.Fatalf("empty queue: NextReady() = %v, true", d)
	}
	q.Add("ready") // ready keys do not count: nothing waits
	if _, ok := q.NextReady(); ok {
		t.Fatal("NextReady() reports a ready key")
	}
	q.AddAfter("a", 2*time.Second)
	q.AddAfter("b", time.Second)
	q.Advance(400 * ms)
	if d, ok := q.NextReady(); !ok || d != 600*ms {
		t.Fatalf("NextReady() = %v, %v; want 600ms", d, ok)
	}
	q.Advance(600 * ms)
	if d, ok := q.NextReady(); !ok || d != time.Second {
		t.Fatalf("NextReady() = %v, %v; want 1s", d, ok)
	}
	q.Advance(time.Second)
	if _, ok := q.NextReady(); ok {
		t.Fatal("NextReady() after every key was ready")
	}
}

// TestRequeueAfterWhileProcessing is controller-runtime's RequeueAfter path:
// Forget and AddAfter while the key is processing, then Done.
func TestRequeueAfterWhileProcessing(t *testing.T) {
	q := New()
	q.Add("k")
	mustGet(t, q, "k")
	q.Forget("k")
	q.AddAfter("k", 5*time.Second)
	q.Done("k")
	mustEmpty(t, q)
	q.Advance(5 * time.Second)
	mustGet(t, q, "k")
}

// TestWaitingEntrySurvivesAdd: as in client-go, an Add does not cancel a
// pending AddAfter; when its time comes the key is added again.
func TestWaitingEntrySurvivesAdd(t *testing.T) {
	q := New()
	q.AddAfter("k", time.Second)
	q.Add("k")
	mustGet(t, q, "k")
	q.Done("k")
	mustEmpty(t, q)
	q.Advance(time.Second)
	mustGet(t, q, "k")
}

func TestAdvanceIgnoresNonPositive(t *testing.T) {
	q := New()
	q.AddAfter("k", time.Second)
	q.Advance(-time.Hour)
	q.Advance(0)
	if s := q.State("k"); s.DueIn != time.Second {
		t.Fatalf("DueIn = %v after non-positive Advances, want 1s", s.DueIn)
	}
}

func TestKeysView(t *testing.T) {
	q := New()
	q.Add("b")
	q.Add("a")
	mustGet(t, q, "b")
	q.Add("b")
	q.AddAfter("c", time.Second)
	q.AddRateLimited("d")
	q.Forget("d")
	q.AddRateLimited("e")
	got := q.Keys()
	want := []KeyState{
		{Key: "a", Ready: true},
		{Key: "b", Processing: true, Dirty: true},
		{Key: "c", Waiting: true, DueIn: time.Second},
		{Key: "d", Waiting: true, DueIn: BaseDelay},
		{Key: "e", Waiting: true, DueIn: BaseDelay, Requeues: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Keys() =\n%+v\nwant\n%+v", got, want)
	}
	if q.Depth() != 2 || q.Processing() != 1 || q.Len() != 1 {
		t.Fatalf("Depth %d Processing %d Len %d, want 2 1 1", q.Depth(), q.Processing(), q.Len())
	}
	if q.Retries() != 3 {
		t.Fatalf("Retries() = %d, want 3", q.Retries())
	}
}
