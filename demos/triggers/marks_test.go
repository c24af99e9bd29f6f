package triggers

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// frameStep is how much virtual time a test lets pass between two frames.
const frameStep = 100 * ms

// waitFrames lets dur pass frame by frame, as a session's timer would.
func waitFrames(d demo.Instance, dur time.Duration) {
	for ; dur > 0; dur -= frameStep {
		d.Advance(min(dur, frameStep))
	}
}

type markWant = demotest.MarkWant

// missedWant is the mark of an event the edge side lost: what it said
// (ja, en) and why it was lost (ja, en).
func missedWant(at int64, evJa, evEn, lossJa, lossEn string) markWant {
	return markWant{At: at, Ja: "edge 側が取りこぼし: " + evJa + "(" + lossJa + ")", En: "the edge side missed: " + evEn + " (" + lossEn + ")"}
}

func diedInBlip(at int64, pod string) markWant {
	return missedWant(at, pod+" 死亡", pod+" died", "瞬断", "network blip")
}

// lostKinds returns the kinds of the events side i (of sides) lost, as its
// stream shows them.
func lostKinds(d *Demo, i int) []string {
	var out []string
	for _, e := range d.w.View(sides[i]).Stream {
		if e.Fate.String() == "dropped" {
			out = append(out, e.Kind.String())
		}
	}
	return out
}

// TestMarks: the timeline marks the events the edge side lost and would
// have acted on, at the time they were emitted, with why they were lost;
// not the level side's losses, nor the edge side's other losses, nor the
// events delivered twice or out of order, nor the visitor's own actions.
func TestMarks(t *testing.T) {
	tests := []struct {
		name string
		play func(t *testing.T, d *Demo)
		want []markWant
	}{
		{"fresh: nothing yet", func(t *testing.T, d *Demo) {}, nil},
		{"a death lost in a blip", func(t *testing.T, d *Demo) {
			waitFrames(d, time.Second)
			apply(t, d, demo.Command{Action: "drop-events", On: true})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			apply(t, d, demo.Command{Action: "drop-events", On: false})
			waitFrames(d, 5*time.Second) // the level side catches up; the edge side never does
		}, []markWant{diedInBlip(1000, "pod-1")}},
		{"a change of desired lost in a blip", func(t *testing.T, d *Demo) {
			waitFrames(d, 1500*ms)
			apply(t, d, demo.Command{Action: "drop-events", On: true})
			apply(t, d, demo.Command{Action: "replicas-inc"})
			waitFrames(d, 5*time.Second)
		}, []markWant{missedWant(1500, "desired 3→4", "desired 3→4", "瞬断", "network blip")}},
		{"a death lost in the restart, another emitted while nobody listened", func(t *testing.T, d *Demo) {
			waitFrames(d, time.Second)
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			waitFrames(d, 200*ms) // still on its way
			apply(t, d, demo.Command{Action: "restart"})
			waitFrames(d, 500*ms)
			apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
			waitFrames(d, 5*time.Second)
		}, []markWant{
			missedWant(1000, "pod-1 死亡", "pod-1 died", "再起動で消えた", "lost in the restart"),
			missedWant(1700, "pod-2 死亡", "pod-2 died", "再起動中で誰も聞いていない", "nobody listening while restarting"),
		}},
		{"the edge side's own pod events lost: not marked", func(t *testing.T, d *Demo) {
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			waitFrames(d, 500*ms) // heard: pod-4 created, and its event emitted, on the edge side
			apply(t, d, demo.Command{Action: "drop-events", On: true})
			waitFrames(d, 5*time.Second) // pod-4's running and the level side's events are lost
			if got := lostKinds(d, edgeSide); !slices.Equal(got, []string{"running"}) {
				t.Fatalf("the edge side lost %v, want pod-4's running", got)
			}
			if len(lostKinds(d, levelSide)) == 0 {
				t.Fatal("the level side lost nothing")
			}
		}, nil},
		{"events delivered twice or out of order: not marked", func(t *testing.T, d *Demo) {
			apply(t, d, demo.Command{Action: "duplicate-next"})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			apply(t, d, demo.Command{Action: "swap-next"})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-3"})
			waitFrames(d, time.Second) // every copy delivered
			var fates []string
			for _, e := range d.w.View(sides[edgeSide]).Stream {
				if e.Kind.String() == "died" {
					fates = append(fates, e.Fate.String())
				}
			}
			if !slices.Equal(fates, []string{"duplicated", "swapped", "swapped"}) {
				t.Fatalf("the deaths were %v on the edge stream", fates)
			}
		}, nil},
		{"a reset forgets them with the streams", func(t *testing.T, d *Demo) {
			apply(t, d, demo.Command{Action: "drop-events", On: true})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			waitFrames(d, time.Second)
			apply(t, d, demo.Command{Action: "reset"})
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Kind.New(demo.Options{}).(*Demo)
			tt.play(t, d)
			demotest.CheckMarks(t, d, tt.want)
		})
	}
}

// TestMarksLastAsLongAsTheStreamShowsThem: a lost event stays marked while
// the edge stream shows it, and goes once StreamShown newer events pushed
// it out.
func TestMarksLastAsLongAsTheStreamShowsThem(t *testing.T) {
	d := Kind.New(demo.Options{}).(*Demo)
	apply(t, d, demo.Command{Action: "drop-events", On: true})
	apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
	apply(t, d, demo.Command{Action: "drop-events", On: false})
	want := []markWant{diedInBlip(0, "pod-1")}
	// Each change of desired is one event on the edge stream, and the
	// creates and deletes it makes are more.
	for i := 0; len(d.w.View(sides[edgeSide]).Stream) < 12 || d.w.View(sides[edgeSide]).Stream[0].Seq == 1; i++ {
		demotest.CheckMarks(t, d, want)
		apply(t, d, demo.Command{Action: []string{"replicas-inc", "replicas-dec"}[i%2]})
		waitFrames(d, 2*time.Second)
		if i > 20 {
			t.Fatal("the lost event never left the stream")
		}
	}
	demotest.CheckMarks(t, d, nil)
}

// TestMarksKeyChangesExactlyWithTheMarks: frame after frame, the key
// changes when, and only when, the marks do; idle frames, and frames where
// only delivered events and the level side's losses happen, leave it
// alone.
func TestMarksKeyChangesExactlyWithTheMarks(t *testing.T) {
	d := Kind.New(demo.Options{}).(*Demo)
	cmd := func(c demo.Command) func() { return func() { apply(t, d, c) } }
	script := map[int]func(){ // frame → what the visitor does then
		10:  cmd(demo.Command{Action: "kill", Name: "pod-1"}),
		40:  cmd(demo.Command{Action: "drop-events", On: true}),
		41:  cmd(demo.Command{Action: "kill", Name: "pod-2"}),
		42:  cmd(demo.Command{Action: "drop-events", On: false}),
		80:  cmd(demo.Command{Action: "pause", On: true}),
		90:  cmd(demo.Command{Action: "pause", On: false}),
		100: cmd(demo.Command{Action: "duplicate-next"}),
		101: cmd(demo.Command{Action: "replicas-inc"}),
		150: cmd(demo.Command{Action: "speed", Speed: sim.Double}),
		160: cmd(demo.Command{Action: "restart"}),
		161: cmd(demo.Command{Action: "replicas-dec"}),
		220: cmd(demo.Command{Action: "reset"}),
	}
	key, marks := d.MarksKey(), d.Marks(ui.Ja)
	changes := 0
	for f := range 300 {
		if do, ok := script[f]; ok {
			do()
		}
		d.Advance(frameStep)
		k, m := d.MarksKey(), d.Marks(ui.Ja)
		if (k != key) != !reflect.DeepEqual(m, marks) {
			t.Fatalf("frame %d at %v: key changed %v, marks changed %v\nwas %v\nnow %v", f, d.Now(), k != key, !reflect.DeepEqual(m, marks), marks, m)
		}
		if k != key {
			changes++
		}
		key, marks = k, m
	}
	// pod-2's death lost in the blip; desired 4→3 lost while restarting;
	// both forgotten at the reset.
	if changes != 3 || len(marks) != 0 {
		t.Fatalf("the key changed %d times, want 3, and %d marks are left: %v", changes, len(marks), marks)
	}
}

// TestMarksSurviveTheSnapshot: a demo rebuilt from its page's snapshot
// has the same marks, and marks what follows as the original does.
func TestMarksSurviveTheSnapshot(t *testing.T) {
	d := Kind.New(demo.Options{}).(*Demo)
	waitFrames(d, time.Second)
	apply(t, d, demo.Command{Action: "drop-events", On: true})
	apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
	apply(t, d, demo.Command{Action: "drop-events", On: false})
	waitFrames(d, 300*ms)
	apply(t, d, demo.Command{Action: "replicas-inc"})
	waitFrames(d, 200*ms) // desired 3→4 on its way
	in, err := Kind.Restore(demo.Options{}, json.RawMessage(d.SnapshotJSON()))
	if err != nil {
		t.Fatal(err)
	}
	r := in.(*Demo)
	want := []markWant{diedInBlip(1000, "pod-2")}
	demotest.CheckMarks(t, d, want)
	demotest.CheckMarks(t, r, want)
	for _, x := range []*Demo{d, r} {
		apply(t, x, demo.Command{Action: "restart"}) // desired 3→4 lost
		waitFrames(x, 3*time.Second)
	}
	want = append(want, missedWant(1300, "desired 3→4", "desired 3→4", "再起動で消えた", "lost in the restart"))
	demotest.CheckMarks(t, d, want)
	demotest.CheckMarks(t, r, want)
	if d.SnapshotJSON() != r.SnapshotJSON() {
		t.Fatalf("snapshots differ:\n%s\n%s", d.SnapshotJSON(), r.SnapshotJSON())
	}
}

// TestTimelineShowsTheMarks: a session's timeline marks (a fragment) hold each mark
// as a timeline-mark of kind event at its virtual ms, beside the visitor's
// actions; it is not rendered again while the sides work on their own.
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
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: demotest.SID})
	timelineFrames := func(dur time.Duration) int {
		n := 0
		for ; dur > 0; dur -= frameStep {
			live.Advance(frameStep)
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
	timelineFrames(1200 * ms)
	do(`{"action":"drop-events","on":true}`)
	do(`{"action":"kill","pod":"pod-3"}`)
	do(`{"action":"drop-events","on":false}`)
	if _, err := r.Frame(nil); err != nil {
		t.Fatal(err)
	}
	if n := timelineFrames(5 * time.Second); n != 0 {
		t.Fatalf("the timeline's marks were sent %d times while the level side caught up", n)
	}
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		demotest.CheckShownMarks(t, live, l, []demotest.ShownMark{demotest.Action(1200, "drop-events true"),
			demotest.Action(1200, "kill pod-3"), demotest.Action(1200, "drop-events false")},
			[]markWant{diedInBlip(1200, "pod-3")})
	}
}
