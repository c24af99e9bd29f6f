package workqueue

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// busy returns a queue with every kind of state: ready, processing, dirty
// while processing, waiting, failures and a bucket in debt.
func busy(t *testing.T) *Queue {
	t.Helper()
	q := New()
	q.Add("default/app-2")
	q.Add("default/app-1")
	mustGet(t, q, "default/app-2")
	q.Add("default/app-2")
	q.AddAfter("default/app-3", 5*time.Second)
	for range BucketBurst + 2 {
		q.AddRateLimited("default/app-4")
	}
	q.Advance(3 * ms)
	return q
}

func TestSnapshotRoundTrip(t *testing.T) {
	q := busy(t)
	s := q.Snapshot()
	want := Snapshot{
		Ready:      []string{"default/app-1"},
		Processing: []ProcessingState{{Key: "default/app-2", Dirty: true}},
		Waiting:    []WaitingState{{Key: "default/app-3", DueMs: 4997}, {Key: "default/app-4", DueMs: 2}},
		Failures:   []FailureState{{Key: "default/app-4", N: BucketBurst + 2}},
		BucketMs:   -200 + 3,
		Retries:    BucketBurst + 3,
		Adds:       3,
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("Snapshot() =\n%+v\nwant\n%+v", s, want)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(back)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, s)
	}
	// The restored queue behaves as the original.
	for _, x := range []*Queue{q, r} {
		x.Done("default/app-2")
		x.Advance(5 * time.Second)
	}
	if !reflect.DeepEqual(q.Keys(), r.Keys()) {
		t.Fatalf("after the same steps:\n%+v\n%+v", q.Keys(), r.Keys())
	}
}

// TestSnapshotKeepsTieOrder: two keys ready at the same time leave in the
// order their waits began, even when one wait moves earlier after the queue
// went through a snapshot (found by FuzzQueue).
func TestSnapshotKeepsTieOrder(t *testing.T) {
	q := New()
	q.AddAfter("a", time.Second)
	q.AddAfter("b", 10*ms)
	r, err := Restore(q.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Queue{q, r} {
		x.AddAfter("a", 10*ms) // moves earlier, keeps its place: first
		x.Advance(10 * ms)
		if got := x.Ready(); !reflect.DeepEqual(got, []string{"a", "b"}) {
			t.Fatalf("Ready() = %v, want [a b]", got)
		}
	}
}

func TestSnapshotRoundsSubMillisecondTimes(t *testing.T) {
	q := New()
	q.AddAfter("k", 1500*time.Microsecond)
	for range BucketBurst + 1 {
		q.AddRateLimited("j")
	}
	q.Advance(200 * time.Microsecond)
	s := q.Snapshot()
	if s.Waiting[0].DueMs != 2 {
		t.Fatalf("a key due in 1.3 ms snapshots as %d ms, want 2 (never early)", s.Waiting[0].DueMs)
	}
	if s.BucketMs != -100 {
		t.Fatalf("a bucket at -99.8 ms snapshots as %d, want -100 (never more tokens)", s.BucketMs)
	}
}

func TestRestoreRefusesForgedSnapshots(t *testing.T) {
	long := strings.Repeat("x", MaxKeyLen+1)
	many := make([]string, MaxKeys+1)
	for i := range many {
		many[i] = "k" + string(rune(0x4e00+i))
	}
	cases := map[string]Snapshot{
		"empty key":                {Ready: []string{""}},
		"long key":                 {Ready: []string{long}},
		"control character":        {Ready: []string{"a\nb"}},
		"bad utf-8":                {Ready: []string{"\xff"}},
		"ready twice":              {Ready: []string{"a", "a"}},
		"ready and processing":     {Ready: []string{"a"}, Processing: []ProcessingState{{Key: "a"}}},
		"processing unsorted":      {Processing: []ProcessingState{{Key: "b"}, {Key: "a"}}},
		"processing twice":         {Processing: []ProcessingState{{Key: "a"}, {Key: "a"}}},
		"waits twice":              {Waiting: []WaitingState{{Key: "a", DueMs: 1}, {Key: "a", DueMs: 2}}},
		"waiting due now":          {Waiting: []WaitingState{{Key: "a", DueMs: 0}}},
		"waiting too far":          {Waiting: []WaitingState{{Key: "a", DueMs: 1e12 + 1}}},
		"zero failures":            {Failures: []FailureState{{Key: "a", N: 0}}},
		"too many failures":        {Failures: []FailureState{{Key: "a", N: MaxRequeues + 1}}},
		"failures unsorted":        {Failures: []FailureState{{Key: "b", N: 1}, {Key: "a", N: 1}}},
		"bucket overfull":          {BucketMs: 10001},
		"bucket too deep":          {BucketMs: -1000001},
		"negative retries":         {Retries: -1},
		"too many adds":            {Adds: MaxCounter + 1},
		"too many keys":            {Ready: many},
		"bad key among failures":   {Failures: []FailureState{{Key: "", N: 1}}},
		"bad key among waiting":    {Waiting: []WaitingState{{Key: "", DueMs: 1}}},
		"bad key among processing": {Processing: []ProcessingState{{Key: ""}}},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			if q, err := Restore(s); err == nil || q != nil {
				t.Fatalf("Restore accepted %+v", s)
			}
		})
	}
}

// busyPriority returns a priority queue with every kind of state: ready at
// two priorities, processing, dirty while processing, waiting at two
// priorities, failures.
func busyPriority(t *testing.T) *Queue {
	t.Helper()
	q := NewPriority()
	q.AddLow("default/app-1")
	q.Add("default/app-2")
	mustGet(t, q, "default/app-2")
	q.Add("default/app-2")
	q.AddWithOpts(AddOpts{After: 5 * time.Second, Priority: LowPriority}, "default/app-3")
	q.AddRateLimited("default/app-4")
	q.Add("default/app-5")
	q.Advance(3 * ms)
	return q
}

func TestPrioritySnapshotRoundTrip(t *testing.T) {
	q := busyPriority(t)
	s := q.Snapshot()
	want := Snapshot{
		Priority:   true,
		Ready:      []string{"default/app-5", "default/app-1"},
		Processing: []ProcessingState{{Key: "default/app-2", Dirty: true}},
		Waiting:    []WaitingState{{Key: "default/app-3", DueMs: 4997}, {Key: "default/app-4", DueMs: 2}},
		Items: []ItemState{{Key: "default/app-1", Priority: LowPriority}, {Key: "default/app-2"},
			{Key: "default/app-3", Priority: LowPriority}, {Key: "default/app-4"}, {Key: "default/app-5"}},
		Failures: []FailureState{{Key: "default/app-4", N: 1}},
		Retries:  2,
		Adds:     4,
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("Snapshot() =\n%+v\nwant\n%+v", s, want)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "bucketMs") {
		t.Fatalf("a priority queue's snapshot carries a bucket: %s", b)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(back)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if r.Kind() != Priority || !reflect.DeepEqual(r.Snapshot(), s) {
		t.Fatalf("round trip: %s %+v", r.Kind(), r.Snapshot())
	}
	// The restored queue behaves as the original, orders included.
	for _, x := range []*Queue{q, r} {
		x.Done("default/app-2")
		x.Add("default/app-6")
		x.Add("default/app-1")
		x.Advance(5 * time.Second)
	}
	if !reflect.DeepEqual(q.Snapshot(), r.Snapshot()) || !reflect.DeepEqual(q.Ready(), r.Ready()) {
		t.Fatalf("after the same steps:\n%+v\n%+v", q.Snapshot(), r.Snapshot())
	}
}

// TestSnapshotWithoutKindIsClassic: a snapshot written before the priority
// queue existed (no "priority", a "bucketMs") restores as the classic queue
// it was, bucket and all.
func TestSnapshotWithoutKindIsClassic(t *testing.T) {
	old := `{"ready":["default/app-1"],"processing":[{"key":"default/app-2"}],` +
		`"waiting":[{"key":"default/app-1","dueMs":3700}],"bucketMs":9900,"retries":1,"adds":5}`
	var s Snapshot
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	q, err := Restore(s)
	if err != nil {
		t.Fatal(err)
	}
	if q.Kind() != Classic || q.BucketTokens() != 99 {
		t.Fatalf("kind %s, %d tokens; want classic, 99", q.Kind(), q.BucketTokens())
	}
	if st := q.State("default/app-1"); !st.Ready || !st.Waiting {
		t.Fatalf("State = %+v, want ready and waiting (the classic queue keeps both)", st)
	}
	b, _ := json.Marshal(q.Snapshot())
	if string(b) != old {
		t.Fatalf("written back as\n%s\nwant\n%s", b, old)
	}
}

func TestPriorityRestoreRefusesForgedSnapshots(t *testing.T) {
	item := func(k string) ItemState { return ItemState{Key: k} }
	cases := map[string]Snapshot{
		"items on the classic queue":   {Ready: []string{"a"}, Items: []ItemState{item("a")}},
		"bucket on the priority queue": {Priority: true, BucketMs: 100},
		"ready without an item":        {Priority: true, Ready: []string{"a"}},
		"waiting without an item":      {Priority: true, Waiting: []WaitingState{{Key: "a", DueMs: 1}}},
		"dirty without an item":        {Priority: true, Processing: []ProcessingState{{Key: "a", Dirty: true}}},
		"item of nothing queued":       {Priority: true, Items: []ItemState{item("a")}},
		"item of a processing key":     {Priority: true, Processing: []ProcessingState{{Key: "a"}}, Items: []ItemState{item("a")}},
		"item twice":                   {Priority: true, Ready: []string{"a"}, Items: []ItemState{item("a"), item("a")}},
		"priority out of range": {Priority: true, Ready: []string{"a"},
			Items: []ItemState{{Key: "a", Priority: MaxPriority + 1}}},
		"ready out of order": {Priority: true, Ready: []string{"b", "a"}, Items: []ItemState{item("a"), item("b")}},
		"ready low before normal": {Priority: true, Ready: []string{"a", "b"},
			Items: []ItemState{{Key: "a", Priority: LowPriority}, item("b")}},
		"ready and waiting": {Priority: true, Ready: []string{"a"}, Waiting: []WaitingState{{Key: "a", DueMs: 5}},
			Items: []ItemState{item("a")}},
		"dirty and waiting": {Priority: true, Processing: []ProcessingState{{Key: "a", Dirty: true}},
			Waiting: []WaitingState{{Key: "a", DueMs: 5}}, Items: []ItemState{item("a")}},
		"waiting out of order": {Priority: true,
			Waiting: []WaitingState{{Key: "b", DueMs: 5}, {Key: "a", DueMs: 5}}, Items: []ItemState{item("a"), item("b")}},
		"bad key among items": {Priority: true, Items: []ItemState{item("")}},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			if q, err := Restore(s); err == nil || q != nil {
				t.Fatalf("Restore accepted %+v", s)
			}
		})
	}
}

// TestAsPriority: a classic queue's state becomes the priority queue's
// unless a key is both queued and waiting, which the priority queue cannot
// hold.
func TestAsPriority(t *testing.T) {
	q := New()
	q.Add("b")
	mustGet(t, q, "b")
	q.Add("b")
	q.Add("a")
	q.AddRateLimited("c")
	q.Add("d")
	p, ok := q.Snapshot().AsPriority()
	if !ok {
		t.Fatal("refused")
	}
	r, err := Restore(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind() != Priority || !reflect.DeepEqual(r.Ready(), []string{"a", "d"}) || r.NumRequeues("c") != 1 ||
		!r.State("b").Dirty || r.State("c").DueIn != BaseDelay {
		t.Fatalf("converted to %+v", r.Keys())
	}
	q.AddAfter("a", time.Second)
	if _, ok := q.Snapshot().AsPriority(); ok {
		t.Fatal("converted a key both ready and waiting")
	}
}

// TestSnapshotAppendJSONAsMarshal: busy queues of both kinds, an empty one
// and a forged one with a key that needs escaping are written by hand as
// json.Marshal writes them.
func TestSnapshotAppendJSONAsMarshal(t *testing.T) {
	for name, s := range map[string]Snapshot{
		"classic":  busy(t).Snapshot(),
		"priority": busyPriority(t).Snapshot(),
		"empty":    New().Snapshot(),
		"escaped": {Priority: true, Ready: []string{`a"<b>`}, Items: []ItemState{{Key: "x", Priority: -1}, {Key: "y"}},
			Processing: []ProcessingState{{Key: "p"}}},
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("%s: AppendJSON\n%s\njson.Marshal\n%s", name, got, want)
		}
	}
}
