package triggers

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
)

// states are demos in a variety of states, each built by a short script.
func states(t *testing.T) map[string]func() *Demo {
	return map[string]func() *Demo{
		"fresh": NewDemo,
		"in flight": func() *Demo {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
			d.Advance(450 * ms)
			return d
		},
		"dropped, paused at 2x": func() *Demo {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "speed", Speed: 2})
			apply(t, d, demo.Command{Action: "drop-events", On: true})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			d.Advance(700*ms + 300*time.Microsecond)
			apply(t, d, demo.Command{Action: "pause", On: true})
			return d
		},
		"restarting": func() *Demo {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			apply(t, d, demo.Command{Action: "restart"})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-3"})
			d.Advance(900 * ms)
			return d
		},
		"swap held, duplicate armed": func() *Demo {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "swap-next"})
			apply(t, d, demo.Command{Action: "drop-events", On: true})
			apply(t, d, demo.Command{Action: "replicas-inc"})
			apply(t, d, demo.Command{Action: "drop-events", On: false})
			apply(t, d, demo.Command{Action: "duplicate-next"})
			d.Advance(200 * ms)
			return d
		},
		"busiest": busiest(t),
	}
}

// busiest returns the fullest snapshot the demo can be driven to: the edge
// side at its quota of pods after duplicated deaths, ten replicas, and each
// stream at its bound of events in flight, chained by swaps.
func busiest(t *testing.T) func() *Demo {
	return func() *Demo {
		d := NewDemo()
		for range 7 {
			apply(t, d, demo.Command{Action: "replicas-inc"})
		}
		d.Advance(5 * time.Second)
		for range 30 {
			apply(t, d, demo.Command{Action: "duplicate-next"})
			for _, p := range d.w.View(engine.Edge).Pods {
				if p.Phase.String() == "Running" {
					apply(t, d, demo.Command{Action: "kill", Name: p.Name})
					break
				}
			}
			d.Advance(2 * time.Second)
		}
		d.Advance(5 * time.Second)
		for i := range 2 * engine.MaxInFlight {
			act := "replicas-inc"
			if i%2 == 0 {
				act = "replicas-dec"
			}
			apply(t, d, demo.Command{Action: act})
			apply(t, d, demo.Command{Action: "swap-next"})
		}
		if got := len(d.w.View(engine.Edge).Pods); got != engine.MaxPods {
			t.Fatalf("the busiest state has %d edge pods, want the quota %d", got, engine.MaxPods)
		}
		return d
	}
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSnapshotRoundTrips: Snapshot → JSON → Kind.Restore → Snapshot is the
// identity, the restored demo carries on exactly as the original would,
// and every snapshot fits the page's one message back with room to spare.
func TestSnapshotRoundTrips(t *testing.T) {
	for name, build := range states(t) {
		t.Run(name, func(t *testing.T) {
			d := build()
			raw := marshal(t, d.Snapshot())
			if len(raw) > 6<<10 {
				t.Fatalf("snapshot of %d bytes, over 6 KB", len(raw))
			}
			in, err := Kind.Restore(demo.Options{}, raw)
			if err != nil {
				t.Fatalf("restore: %v\n%s", err, raw)
			}
			r := in.(*Demo)
			if got := marshal(t, r.Snapshot()); string(got) != string(raw) {
				t.Fatalf("round trip:\n got %s\nwant %s", got, raw)
			}
			if note, ok := r.Note(); !ok || note.Kind != NoteRestored || note.At != r.Now() {
				t.Fatalf("restored demo's note %+v, %v", note, ok)
			}
			// Both carry on alike (from the millisecond the snapshot kept).
			for _, c := range []demo.Command{{Action: "pause", On: false}, {Action: "kill", Name: "pod-3"}, {Action: "replicas-dec"}} {
				e1, e2 := demo.Wrap(&Kind, d).Apply(c), demo.Wrap(&Kind, r).Apply(c)
				if (e1 == nil) != (e2 == nil) {
					t.Fatalf("%+v: original %v, restored %v", c, e1, e2)
				}
			}
			// Each follows its own timer (the restored one is up to a
			// millisecond earlier, where the snapshot cut the clock).
			untilQuiet(t, d, 200)
			untilQuiet(t, r, 200)
			// Up to the millisecond the snapshot cut: times aside, the same.
			s1, s2 := timeless(d.Snapshot()), timeless(r.Snapshot())
			if !equalJSON(t, s1, s2) {
				t.Fatalf("the restored demo went elsewhere:\n%s\n%s", marshal(t, s1), marshal(t, s2))
			}
		})
	}
}

// timeless is a snapshot with its times zeroed.
func timeless(s Snapshot) Snapshot {
	s.Now, s.World.Now = 0, 0
	if s.World.Lesson != nil {
		l := *s.World.Lesson
		l.At = 0
		s.World.Lesson = &l
	}
	for _, sd := range []*Side{&s.World.Level, &s.World.Edge} {
		sd.Stream.Events = slices.Clone(sd.Stream.Events)
		for i := range sd.Stream.Events {
			sd.Stream.Events[i].EmittedAt, sd.Stream.Events[i].DeliveredAt = 0, 0
		}
		sd.Stream.Queue = nil
	}
	return s
}

// TestForgedSnapshotsAreRefused: anything this package could not have
// written is refused, with an error and no demo.
func TestForgedSnapshotsAreRefused(t *testing.T) {
	good := string(marshal(t, states(t)["in flight"]().Snapshot()))
	tests := []struct {
		name string
		raw  string
	}{
		{"not JSON", `{"v":1`},
		{"trailing data", good + `{}`},
		{"an unknown field", strings.Replace(good, `"v":1,`, `"v":1,"extra":1,`, 1)},
		{"an unknown field in the world", strings.Replace(good, `"world":{`, `"world":{"extra":1,`, 1)},
		{"another version", strings.Replace(good, `"v":1,"kind"`, `"v":2,"kind"`, 1)},
		{"another demo's kind", strings.Replace(good, `"kind":"triggers"`, `"kind":"reconcile"`, 1)},
		{"an unknown speed", strings.Replace(good, `"speed":"1"`, `"speed":"3"`, 1)},
		{"clocks that disagree", strings.Replace(good, `"now":450,"paused"`, `"now":451,"paused"`, 1)},
		{"a negative clock", strings.Replace(strings.Replace(good, `"now":450`, `"now":-1`, 2), `"now":450`, `"now":-1`, 1)},
		{"the world's version", strings.Replace(good, `"world":{"v":1`, `"world":{"v":0`, 1)},
		{"desired out of range", strings.Replace(good, `"desired":3`, `"desired":11`, 1)},
		{"an event with a value too many", strings.Replace(good, `"died","pod-2",0,0,"delivered","",0,1,400]`, `"died","pod-2",0,0,"delivered","",0,1,400,0]`, 1)},
		{"an event with a value too few", strings.Replace(good, `"died","pod-2",0,0,"delivered","",0,1,400]`, `"died","pod-2",0,0,"delivered","",0,1]`, 1)},
		{"an event with a null", strings.Replace(good, `"died","pod-2",0,0,"delivered","",0,1,400]`, `"died","pod-2",0,0,"delivered","",0,null,400]`, 1)},
		{"an event as an object", strings.Replace(good, `[1,"died","pod-2",0,0,"delivered","",0,1,400]`, `{"seq":1}`, 1)},
		{"an event of an unknown kind", strings.Replace(good, `"died","pod-2"`, `"exploded","pod-2"`, 1)},
		{"an event of an unknown fate", strings.Replace(good, `"died","pod-2",0,0,"delivered"`, `"died","pod-2",0,0,"lost"`, 1)},
		{"an event delivered before it was emitted", strings.Replace(good, `"died","pod-2",0,0,"delivered","",0,1,400]`, `"died","pod-2",0,0,"delivered","",300,1,200]`, 1)},
		{"a fractional count", strings.Replace(good, `"died","pod-2",0,0,"delivered","",0,1,400]`, `"died","pod-2",0,0,"delivered","",0,1.5,400]`, 1)},
		{"a pod of an unknown phase", strings.Replace(good, `"phase":"Running"`, `"phase":"Sleeping"`, 1)},
		{"a pod named by no sequence", strings.Replace(good, `"name":"pod-1"`, `"name":"pod-99"`, 1)},
		{"an edge memory of a bad name", strings.Replace(good, `"known":[`, `"known":["db-1",`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.raw == good {
				t.Fatal("the forgery did not change the snapshot: fix the test")
			}
			in, err := Kind.Restore(demo.Options{}, json.RawMessage(tt.raw))
			if err == nil || in != nil {
				t.Fatalf("restored %s", tt.raw)
			}
		})
	}
}

// TestEventsAreWrittenAsEncodingJSONWritesArrays: an event and a copy in
// flight are written byte for byte as encoding/json writes the same values
// as an array, whatever their strings hold.
func TestEventsAreWrittenAsEncodingJSONWritesArrays(t *testing.T) {
	for _, e := range []Event{
		{},
		{Seq: 7, Kind: "add", Pod: "pod-3", Old: 2, New: 3, Fate: "delivered", EmittedAt: 1500, Delivered: 1, DeliveredAt: 2100},
		{Seq: 1 << 40, Kind: "del", Pod: `"<&>\`, Old: -1, Fate: "dropped", Loss: "ポッド", EmittedAt: -5},
	} {
		want, err := json.Marshal([]any{e.Seq, e.Kind, e.Pod, e.Old, e.New, e.Fate, e.Loss, e.EmittedAt, e.Delivered, e.DeliveredAt})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := e.MarshalJSON(); string(got) != string(want) {
			t.Errorf("event %+v written %s, want %s", e, got, want)
		}
	}
	c := Copy{Seq: 12, In: 340}
	if got, _ := c.MarshalJSON(); string(got) != "[12,340]" {
		t.Errorf("copy written %s", got)
	}
}

// TestSnapshotWrittenAsMarshalled: the snapshot a frame writes by hand
// (WriteSnapshotJSON, into arrays used again and again) is byte for byte
// json.Marshal of Snapshot, in every state here; the fuzzer (run) checks
// the same after every operation of its programs.
func TestSnapshotWrittenAsMarshalled(t *testing.T) {
	var last *Demo
	for name, mk := range states(t) {
		d := mk()
		checkSnapshotWritten(t, d)
		if last != nil {
			checkSnapshotWritten(t, last) // after another world's, in the same arrays
		}
		last = d
		if t.Failed() {
			t.Fatalf("in state %q", name)
		}
	}
}

// checkSnapshotWritten fails t unless d's written snapshot is json.Marshal
// of its Snapshot.
func checkSnapshotWritten(t *testing.T, d *Demo) {
	t.Helper()
	var b strings.Builder
	if err := d.WriteSnapshotJSON(&b); err != nil {
		t.Fatal(err)
	}
	if want := marshal(t, d.Snapshot()); b.String() != string(want) {
		t.Errorf("snapshot written\n%s\nwant\n%s", b.String(), want)
	}
}
