package operator

import (
	"encoding/json"
	"reflect"
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

func degraded(at int64) markWant {
	return markWant{At: at, Ja: "Degraded: 復元元 backup-07-28 が見つからない", En: "Degraded: backup-07-28 not found"}
}

func leaderLost(at int64, name string) markWant {
	return markWant{At: at, Ja: "リーダー " + name + " が居なくなった", En: "the leader " + name + " is gone"}
}

func ready(at int64) markWant {
	return markWant{At: at, Ja: "宣言どおりに揃った(Ready)", En: "as declared: Ready"}
}

// readyByItself switches the controller on and waits until the resource is
// Ready (restored at 1s, db-1..3 created at 2, 3 and 4s, db-1 elected at
// 6s, Ready at 7s) and a second more.
func readyByItself(t *testing.T, d *Demo) {
	act(t, d, demo.Command{Action: "controller", On: true})
	wait(d, 8*time.Second)
}

// TestMarks: the timeline marks where the controller stopped at Degraded
// for the missing backup, where it found its leader gone, and where the
// resource became Ready, at the virtual time it did; not its other moves,
// nor the visitor's own actions.
func TestMarks(t *testing.T) {
	tests := []struct {
		name string
		play func(t *testing.T, d *Demo)
		want []markWant
	}{
		{"fresh: nothing yet", func(t *testing.T, d *Demo) {}, nil},
		{"one step per move: only Ready is marked", func(t *testing.T, d *Demo) {
			act(t, d, demo.Command{Action: "step"}) // restore
			for range 3 {
				act(t, d, demo.Command{Action: "step"}) // create
			}
			wait(d, 2*time.Second)                  // every member ready
			act(t, d, demo.Command{Action: "step"}) // elect db-1
			act(t, d, demo.Command{Action: "step"}) // Ready
			act(t, d, demo.Command{Action: "step"}) // nothing to do
		}, []markWant{ready(2000)}},
		{"the running controller reaches Ready by itself", readyByItself, []markWant{ready(7000)}},
		{"Degraded with the backup missing, and Ready once it is back", func(t *testing.T, d *Demo) {
			act(t, d, demo.Command{Action: "backup", On: false})
			act(t, d, demo.Command{Action: "controller", On: true})
			wait(d, 3*time.Second)                  // Degraded at the 1s tick
			act(t, d, demo.Command{Action: "step"}) // still Degraded: no news
			act(t, d, demo.Command{Action: "backup", On: true})
			wait(d, 10*time.Second) // restored at 4s, …, Ready at 10s
		}, []markWant{degraded(1000), ready(10000)}},
		{"the leader killed: lost, and Ready again", func(t *testing.T, d *Demo) {
			readyByItself(t, d)
			act(t, d, demo.Command{Action: "kill-member", Name: "db-1"})
			wait(d, 6*time.Second) // db-4 at 9s, ready at 10.5s, db-1 found gone at 11s
		}, []markWant{ready(7000), leaderLost(11000, "db-1"), ready(12000)}},
		{"another member killed: only Ready again", func(t *testing.T, d *Demo) {
			readyByItself(t, d)
			act(t, d, demo.Command{Action: "kill-member", Name: "db-3"})
			wait(d, 6*time.Second)
		}, []markWant{ready(7000), ready(11000)}},
		{"with the controller off, nothing happens and nothing is marked", func(t *testing.T, d *Demo) {
			readyByItself(t, d)
			act(t, d, demo.Command{Action: "controller", On: false})
			act(t, d, demo.Command{Action: "kill-member", Name: "db-1"})
			act(t, d, demo.Command{Action: "members-inc"})
			wait(d, 10*time.Second)
		}, []markWant{ready(7000)}},
		{"a reset keeps the marks before it", func(t *testing.T, d *Demo) {
			act(t, d, demo.Command{Action: "backup", On: false})
			act(t, d, demo.Command{Action: "step"})
			act(t, d, demo.Command{Action: "reset"})
			wait(d, time.Second)
			act(t, d, demo.Command{Action: "step"}) // Degraded again, from Pending
		}, []markWant{degraded(0), degraded(1000)}},
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
	act(t, d, demo.Command{Action: "backup", On: false})
	var want []markWant
	for range maxMarks + 5 {
		act(t, d, demo.Command{Action: "step"}) // Degraded
		want = append(want, degraded(d.Now().Milliseconds()))
		act(t, d, demo.Command{Action: "reset"})
		wait(d, frame)
	}
	demotest.CheckMarks(t, d, want[len(want)-maxMarks:])
}

// TestMarksKeyChangesExactlyWithTheMarks: frame after frame, the key
// changes when, and only when, the marks do; idle frames leave it alone.
func TestMarksKeyChangesExactlyWithTheMarks(t *testing.T) {
	d := Kind.New(demo.Options{}).(*Demo)
	cmd := func(c demo.Command) func() { return func() { act(t, d, c) } }
	script := map[int]func(){ // frame → what the visitor does then
		0:   cmd(demo.Command{Action: "backup", On: false}),
		1:   cmd(demo.Command{Action: "controller", On: true}),
		30:  cmd(demo.Command{Action: "step"}),
		40:  cmd(demo.Command{Action: "backup", On: true}),
		150: func() { d.SetPaused(true) },
		160: func() { d.SetPaused(false) },
		170: cmd(demo.Command{Action: "kill-member", Name: "db-1"}),
		250: func() { d.SetSpeed(sim.Double) },
		260: cmd(demo.Command{Action: "members-inc"}),
	}
	key, marks := d.MarksKey(), d.Marks(ui.Ja)
	changes := 0
	for f := range 400 {
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
	// Degraded; Ready; the leader lost, Ready; Ready with four members.
	if changes != 5 || len(marks) != 5 {
		t.Fatalf("the key changed %d times for %d marks, want 5: %v", changes, len(marks), marks)
	}
}

// TestMarksSurviveTheSnapshot: a demo rebuilt from its page's snapshot
// has the same marks, and marks what follows as the original does.
func TestMarksSurviveTheSnapshot(t *testing.T) {
	d := Kind.New(demo.Options{}).(*Demo)
	act(t, d, demo.Command{Action: "backup", On: false})
	act(t, d, demo.Command{Action: "controller", On: true})
	wait(d, 2*time.Second)
	act(t, d, demo.Command{Action: "backup", On: true})
	wait(d, 10*time.Second)
	act(t, d, demo.Command{Action: "kill-member", Name: "db-1"})
	wait(d, 2345*ms) // db-4 created, not ready yet
	in, err := Kind.Restore(demo.Options{}, json.RawMessage(d.SnapshotJSON()))
	if err != nil {
		t.Fatal(err)
	}
	r := in.(*Demo)
	want := []markWant{degraded(1000), ready(9000)}
	demotest.CheckMarks(t, d, want)
	demotest.CheckMarks(t, r, want)
	for _, x := range []*Demo{d, r} {
		wait(x, 5*time.Second)
	}
	want = append(want, leaderLost(15000, "db-1"), ready(16000))
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
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: demotest.SID})
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
	do(`{"action":"backup","present":false}`)
	do(`{"action":"controller","on":true}`)
	if _, err := r.Frame(nil); err != nil {
		t.Fatal(err)
	}
	if n := timelineFrames(900 * ms); n != 0 {
		t.Fatalf("the timeline's marks were sent %d times before anything happened", n)
	}
	if n := timelineFrames(200 * ms); n != 1 {
		t.Fatalf("the timeline's marks were sent %d times as the resource went Degraded, want once", n)
	}
	if n := timelineFrames(5 * time.Second); n != 0 {
		t.Fatalf("the timeline's marks were sent %d times while the demo sat Degraded", n)
	}
	do(`{"action":"backup","present":true}`) // at 6.1s
	timelineFrames(8 * time.Second)          // restored at 7s, …, Ready at 13s

	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		demotest.CheckShownMarks(t, live, l, []demotest.ShownMark{demotest.Action(0, "backup false"),
			demotest.Action(0, "controller true"), demotest.Action(6100, "backup true")},
			[]markWant{degraded(1000), ready(13000)})
	}
}
