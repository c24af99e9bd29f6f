package pipeline

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
)

const ms1 = time.Millisecond

func app(t *testing.T, w *World, name string) apiserver.Object {
	t.Helper()
	for _, o := range w.Objects() {
		if o.Kind == apiserver.KindApp && o.Name == name {
			return o
		}
	}
	t.Fatalf("App %s not in the store", name)
	return apiserver.Object{}
}

func child(t *testing.T, w *World, name string) apiserver.Object {
	t.Helper()
	for _, o := range w.Objects() {
		if o.Kind == apiserver.KindConfigMap && o.Name == childName(name) {
			return o
		}
	}
	t.Fatalf("child of %s not in the store", name)
	return apiserver.Object{}
}

func has(w *World, kind, name string) bool {
	for _, o := range w.Objects() {
		if o.Kind == kind && o.Name == name {
			return true
		}
	}
	return false
}

func row(t *testing.T, w *World, name string) ReportRow {
	t.Helper()
	for _, r := range w.Report() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no report row for %s", name)
	return ReportRow{}
}

func queueKey(w *World, name string) QueueKey {
	for _, k := range w.Queue() {
		if k.Key == "default/"+name {
			return k
		}
	}
	return QueueKey{Key: "default/" + name}
}

// settle advances until nothing but the resync is due, failing if it does
// not within limit.
func settleWithin(t *testing.T, w *World, limit time.Duration) {
	t.Helper()
	start := w.Now()
	for !w.Quiet() {
		if w.Now()-start > limit {
			t.Fatalf("not quiet after %v:\n%s", limit, trace(w))
		}
		d, _ := w.NextDue()
		w.Advance(d)
	}
}

func ready(t *testing.T, w *World, name string) bool {
	t.Helper()
	c, ok := app(t, w, name).ReadyCondition()
	return ok && c.Status == "True"
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// trace renders the log for a failure message.
func trace(w *World) string {
	var b strings.Builder
	for _, e := range w.Events() {
		fmt.Fprintf(&b, "%8v %-10s %s%d %s %s/%s %s %s %s rv=%d d=%v n=%d\n", e.At, e.Kind, e.Actor, e.Worker, e.Verb,
			e.Res, e.Name, e.Key, e.Outcome, e.Reason, e.RV, e.Delay, e.N)
	}
	return b.String()
}

func countEvents(w *World, match func(Event) bool) int {
	n := 0
	for _, e := range w.Events() {
		if match(e) {
			n++
		}
	}
	return n
}

// roundTrip checks that w's snapshot survives JSON and Restore unchanged,
// and returns the restored world.
func roundTrip(t *testing.T, w *World) *World {
	t.Helper()
	s := w.Snapshot()
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
		t.Fatalf("Restore of its own snapshot: %v\n%s", err, b)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, s) {
		gb, _ := json.Marshal(got)
		t.Fatalf("round trip:\n got %s\nwant %s", gb, b)
	}
	return r
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func deepEqual(a, b any) bool { return reflect.DeepEqual(a, b) }

func countersGrew(a, b Counters) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if vb.Field(i).Int() < va.Field(i).Int() {
			return false
		}
	}
	return true
}
