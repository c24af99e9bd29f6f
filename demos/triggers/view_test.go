package triggers

import (
	"testing"
	"time"

	xhtml "golang.org/x/net/html"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

const ms = time.Millisecond

// TestView checks the fragments, the section, the snapshot and the golden
// renders of the chapter's stories: the fresh demo, a death lost in a blip,
// a duplicated death, a restart under way (with a refusal shown), swaps
// and duplicates armed with events in flight, and a pod starting on each
// side (its countdown).
func TestView(t *testing.T) {
	demotest.Check(t, Kind, []demotest.State{
		{Name: "fresh", Build: func() demo.Instance { return Kind.New(demo.Options{}) }},
		{Name: "dropped", Build: func() demo.Instance {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "drop-events", On: true})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			d.Advance(5 * time.Second) // the level side resyncs and replaces pod-1
			return d
		}},
		{Name: "duplicated", Build: func() demo.Instance {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "duplicate-next"})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
			d.Advance(5 * time.Second)
			return d
		}},
		{Name: "restarting", Refusal: demo.RefuseIn(words, demo.ReasonOutOfRange, "tr.err.restarting"), Build: func() demo.Instance {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
			d.Advance(100 * ms)
			apply(t, d, demo.Command{Action: "restart"})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
			d.Advance(700 * ms)
			return d
		}},
		{Name: "armed", Build: func() demo.Instance {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "speed", Speed: 2})
			apply(t, d, demo.Command{Action: "swap-next"})
			apply(t, d, demo.Command{Action: "replicas-inc"})
			d.Advance(100 * ms)
			apply(t, d, demo.Command{Action: "duplicate-next"})
			apply(t, d, demo.Command{Action: "pause", On: true})
			return d
		}},
		{Name: "starting", Build: func() demo.Instance {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "replicas-inc"})
			d.Advance(900 * ms) // delivered at 400 ms: each side creates pod-4
			return d
		}},
	})
}

// TestLogShowsItsNewestLines: a side's log shows its newest lines, newest
// first, even when a reset's note and a full log are more than the panel
// shows.
func TestLogShowsItsNewestLines(t *testing.T) {
	d := NewDemo()
	apply(t, d, demo.Command{Action: "reset"})
	for range engine.LogSize + 6 {
		apply(t, d, demo.Command{Action: "step"})
	}
	log := d.w.View(engine.Level).Log
	html := demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: ui.En, SID: demotest.SID})["tr-level-log"]
	lines := demotest.FindAll(demotest.Parse(t, html)[0], func(n *xhtml.Node) bool { return n.Data == "li" })
	if len(lines) != len(log) {
		t.Fatalf("%d lines shown, want the log's %d", len(lines), len(log))
	}
	for i, n := range lines {
		if got, want := demotest.Attr(n, "data-seq"), ui.Itoa(log[len(log)-1-i].Seq); got != want {
			t.Fatalf("line %d is entry %s, want %s (newest first)", i, got, want)
		}
	}
}

// apply carries out c as the session does: pause and speed in the
// framework, the rest in the demo.
func apply(t *testing.T, d *Demo, c demo.Command) {
	t.Helper()
	if err := demo.Wrap(&Kind, d).Apply(c); err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
}

// TestTimelineReplays: every moment just after an action replays exactly
// from the timeline, and a link to the last one opens it.
func TestTimelineReplays(t *testing.T) {
	for seed := range uint64(racetest.Runs(8)) {
		demotest.CheckReplay(t, Kind, seed, 120)
	}
}

// notes are the demo's notes where it simplifies real Kubernetes, by
// topic; README.md lists them.
var notes = []string{"delivery", "failed-pods", "resync", "relist", "quota"}

// TestNotes: each note is on the page once, from its first load.
func TestNotes(t *testing.T) { demotest.Notes(t, Kind, notes...) }
