package reconcile

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// frame is how much virtual time a test lets pass between two frames.
const frame = 100 * ms

// wait lets dur pass frame by frame, as a session's timer would.
func wait(d demo.Instance, dur time.Duration) {
	for ; dur > 0; dur -= frame {
		d.Advance(min(dur, frame))
	}
}

// act applies a visitor's command; a refused one fails the test.
func act(t *testing.T, d demo.Instance, c demo.Command) {
	t.Helper()
	if err := d.Apply(c); err != nil {
		t.Fatalf("%s refused: %v", c.Action, err)
	}
}

type markWant = demotest.MarkWant

func inSync(at int64, n int) markWant {
	return markWant{At: at, Ja: "一致: " + strconv.Itoa(n) + " 個すべて Running", En: "in sync: all " + strconv.Itoa(n) + " Running"}
}

func replaced(at int64, n int) markWant {
	return markWant{At: at, Ja: "自己修復: Failed の Pod を作り直した(" + strconv.Itoa(n) + " 個)",
		En: "self-healing: Failed pods replaced (" + strconv.Itoa(n) + ")"}
}

// TestMarks: the timeline marks what the controller does on its own (it
// converges; it replaces Failed pods), at the virtual time it did it, and
// nothing the visitor does by itself.
func TestMarks(t *testing.T) {
	tests := []struct {
		name string
		play func(t *testing.T, d *Demo)
		want []markWant
	}{
		{"fresh: nothing yet", func(t *testing.T, d *Demo) {}, nil},
		{"the controller converges by itself", func(t *testing.T, d *Demo) {
			wait(d, 3*time.Second) // created at 1s, Running at 2.5s
		}, []markWant{inSync(2500, 3)}},
		{"a killed pod is replaced, and the loop converges again", func(t *testing.T, d *Demo) {
			wait(d, 3*time.Second)
			act(t, d, demo.Command{Action: "kill", Name: "pod-2"})
			wait(d, 3*time.Second) // pod-4 created at the 4s tick, Running at 5.5s
		}, []markWant{inSync(2500, 3), replaced(4000, 1), inSync(5500, 3)}},
		{"one step replaces every Failed pod at once", func(t *testing.T, d *Demo) {
			wait(d, 3*time.Second)
			act(t, d, demo.Command{Action: "controller", On: false})
			for _, p := range []string{"pod-1", "pod-2", "pod-3"} {
				act(t, d, demo.Command{Action: "kill", Name: p})
			}
			wait(d, 2*time.Second) // nobody repairs them
			act(t, d, demo.Command{Action: "step"})
			wait(d, 2*time.Second)
		}, []markWant{inSync(2500, 3), replaced(5000, 3), inSync(6500, 3)}},
		{"a Failed pod cleared by scaling down is not replaced", func(t *testing.T, d *Demo) {
			wait(d, 3*time.Second)
			act(t, d, demo.Command{Action: "kill", Name: "pod-3"})
			act(t, d, demo.Command{Action: "set-replicas", N: 2})
			wait(d, 2*time.Second) // the 4s tick deletes pod-3 and creates none
		}, []markWant{inSync(2500, 3), inSync(4000, 2)}},
		{"scaling up converges at the new count", func(t *testing.T, d *Demo) {
			wait(d, 3*time.Second)
			act(t, d, demo.Command{Action: "replicas-inc"})
			wait(d, 3*time.Second)
		}, []markWant{inSync(2500, 3), inSync(5500, 4)}},
		{"with the controller off, a kill marks nothing", func(t *testing.T, d *Demo) {
			wait(d, 3*time.Second)
			act(t, d, demo.Command{Action: "controller", On: false})
			act(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			act(t, d, demo.Command{Action: "set-replicas", N: 5})
			wait(d, 5*time.Second)
		}, []markWant{inSync(2500, 3)}},
		{"a reset keeps the marks before it", func(t *testing.T, d *Demo) {
			wait(d, 3*time.Second)
			act(t, d, demo.Command{Action: "reset"})
			wait(d, 3*time.Second) // created at the 4s tick again
		}, []markWant{inSync(2500, 3), inSync(5500, 3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Kind.New(demo.Options{}).(*Demo)
			tt.play(t, d)
			demotest.CheckMarks(t, d, tt.want)
		})
	}
}

// TestMarksKeepTheNewest: the demo remembers its newest maxMarks marks.
func TestMarksKeepTheNewest(t *testing.T) {
	d := Kind.New(demo.Options{}).(*Demo)
	wait(d, 3*time.Second)
	var want []markWant
	want = append(want, inSync(2500, 3))
	// Each scale-down converges at the next tick: one mark a second.
	for i := range maxMarks + 5 {
		n := 2 + i%2
		act(t, d, demo.Command{Action: "set-replicas", N: n})
		if n == 2 {
			wait(d, time.Second)
			want = append(want, inSync(d.Now().Milliseconds(), 2))
		} else {
			wait(d, 3*time.Second)
			want = append(want, inSync(d.Now().Milliseconds()-500, 3))
		}
	}
	demotest.CheckMarks(t, d, want[len(want)-maxMarks:])
}

// TestMarksKeyChangesExactlyWithTheMarks: frame after frame, the key
// changes when, and only when, the marks do; idle frames leave it alone.
func TestMarksKeyChangesExactlyWithTheMarks(t *testing.T) {
	d := Kind.New(demo.Options{}).(*Demo)
	cmd := func(c demo.Command) func() { return func() { act(t, d, c) } }
	script := map[int]func(){ // frame → what the visitor does then
		30:  cmd(demo.Command{Action: "kill", Name: "pod-2"}),
		80:  func() { d.SetPaused(true) },
		90:  func() { d.SetPaused(false) },
		100: cmd(demo.Command{Action: "controller", On: false}),
		101: cmd(demo.Command{Action: "kill", Name: "pod-1"}),
		140: cmd(demo.Command{Action: "step"}),
		200: func() { d.SetSpeed(sim.Double) },
		210: cmd(demo.Command{Action: "replicas-dec"}),
		220: cmd(demo.Command{Action: "step"}),
	}
	key, marks := d.MarksKey(), d.Marks(ui.Ja)
	changes := 0
	for f := range 300 {
		if do, ok := script[f]; ok {
			do()
		}
		d.Advance(frame)
		k, m := d.MarksKey(), d.Marks(ui.Ja)
		if (k != key) != !reflect.DeepEqual(m, marks) {
			t.Fatalf("frame %d at %v: key changed %v, marks changed %v\nwas %v\nnow %v", f, d.Now(), k != key, !reflect.DeepEqual(m, marks), marks, m)
		}
		if k != key {
			changes++
		}
		key, marks = k, m
	}
	// Converged; replaced, converged (the running controller); replaced,
	// converged (the first step); converged at 2 (the second step).
	if changes != 6 || len(marks) != 6 {
		t.Fatalf("the key changed %d times for %d marks, want 6: %v", changes, len(marks), marks)
	}
}

// TestMarksSurviveTheSnapshot: a demo rebuilt from its page's snapshot
// has the same marks, and marks what follows as the original does.
func TestMarksSurviveTheSnapshot(t *testing.T) {
	d := Kind.New(demo.Options{}).(*Demo)
	wait(d, 3*time.Second)
	act(t, d, demo.Command{Action: "kill", Name: "pod-2"})
	wait(d, 1234*ms) // the replacement made, not Running yet
	in, err := Kind.Restore(demo.Options{}, json.RawMessage(d.SnapshotJSON()))
	if err != nil {
		t.Fatal(err)
	}
	r := in.(*Demo)
	want := []markWant{inSync(2500, 3), replaced(4000, 1)}
	demotest.CheckMarks(t, d, want)
	demotest.CheckMarks(t, r, want)
	for _, x := range []*Demo{d, r} {
		wait(x, 2*time.Second)
		act(t, x, demo.Command{Action: "kill", Name: "pod-1"})
		wait(x, 3*time.Second)
	}
	want = append(want, inSync(5500, 3), replaced(7000, 1), inSync(8500, 3))
	demotest.CheckMarks(t, d, want)
	demotest.CheckMarks(t, r, want)
	if d.SnapshotJSON() != r.SnapshotJSON() {
		t.Fatalf("snapshots differ:\n%s\n%s", d.SnapshotJSON(), r.SnapshotJSON())
	}
}

// TestTimelineShowsTheMarks: a session's timeline marks (a fragment) hold each mark
// as a timeline-mark of kind event at its virtual ms, beside the visitor's
// actions; it is rendered again when a mark appears, and not in the idle
// frames between.
func TestTimelineShowsTheMarks(t *testing.T) {
	live := demo.Start(&Kind, demo.Options{})
	do := func(msg string) {
		t.Helper()
		c := demo.Decode(&Kind, []byte(msg))
		if c.Reject != nil {
			t.Fatalf("%s: %v", msg, c.Reject)
		}
		if err := live.Apply(c); err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
	}
	view := demo.View{Lang: ui.Ja, SID: demotest.SID}
	r := live.Renderer(view)
	timelineFrames := func(dur time.Duration) int {
		n := 0
		for ; dur > 0; dur -= frame {
			live.Advance(frame)
			fr, err := r.Frame(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fr {
				if f.ID == Prefix+"-timeline-marks" {
					n++
				}
			}
		}
		return n
	}
	if _, err := r.Frame(nil); err != nil {
		t.Fatal(err)
	}
	if n := timelineFrames(2400 * ms); n != 0 {
		t.Fatalf("the timeline's marks were sent %d times before anything happened", n)
	}
	if n := timelineFrames(200 * ms); n != 1 {
		t.Fatalf("the timeline's marks were sent %d times as the demo converged, want once", n)
	}
	if n := timelineFrames(5 * time.Second); n != 0 {
		t.Fatalf("the timeline's marks were sent %d times while the demo idled", n)
	}
	do(`{"action":"kill","pod":"pod-2"}`) // at 7.6s
	timelineFrames(3 * time.Second)       // replaced at 8s, Running at 9.5s

	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		demotest.CheckShownMarks(t, live, l, []demotest.ShownMark{demotest.Action(7600, "kill pod-2")},
			[]markWant{inSync(2500, 3), replaced(8000, 1), inSync(9500, 3)})
	}
}

// TestMarkLabelsAsWritten: a mark's label, read from the labels written
// once, is what formatting it says, for every kind, count and language
// (counts past the table's are formatted).
func TestMarkLabelsAsWritten(t *testing.T) {
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		for _, kind := range []string{EventConverged, MarkReplaced} {
			for n := -1; n <= 2*MaxDesired; n++ {
				e := sim.Event{Kind: kind, N: n}
				if got, want := markLabel(l, e), writeMarkLabel(l, e); got != want {
					t.Fatalf("%s mark of %d in %s: %q, want %q", kind, n, l, got, want)
				}
			}
		}
	}
}
