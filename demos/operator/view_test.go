package operator

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestView checks the fragments, the section, the snapshot and the golden
// renders of a fresh demo and of one that has acted and shows a refusal.
func TestView(t *testing.T) {
	demotest.Check(t, Kind, []demotest.State{
		{Name: "fresh", Build: func() demo.Instance { return Kind.New(demo.Options{}) }},
		{Name: "acted", Refusal: demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.member", "db-9"), Build: func() demo.Instance {
			d := Kind.New(demo.Options{})
			must(t, d.Apply(demo.Command{Action: "step"})) // restore
			must(t, d.Apply(demo.Command{Action: "step"})) // create db-1
			d.Advance(2 * time.Second)                     // db-1 ready
			must(t, d.Apply(demo.Command{Action: "step"})) // create db-2
			must(t, d.Apply(demo.Command{Action: "backup", On: false}))
			return d
		}},
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestLoadSteps: the load generator's steps are each answered by a frame.
func TestLoadSteps(t *testing.T) { demotest.CheckLoad(t, Kind) }

// TestTimelineReplays: every moment just after an action replays exactly
// from the timeline, and a link to the last one opens it.
func TestTimelineReplays(t *testing.T) {
	for seed := range uint64(racetest.Runs(8)) {
		demotest.CheckReplay(t, Kind, seed, 120)
	}
}

// notes are the demo's notes where it simplifies real Kubernetes, by
// topic; README.md lists them.
var notes = []string{"crd", "world", "scale-down", "one-move", "watch"}

// TestNotes: each note is on the page once, from its first load.
func TestNotes(t *testing.T) { demotest.Notes(t, Kind, notes...) }

// TestChartKeyFollowsItsAxis: the chart around its plot is rendered again
// whenever its axis spans another time, though no phase is new to its
// legend: a member killed every ten seconds brings Creating and Ready back
// while the demo grows older than the 20 s the axis spans at first
// (demotest.Keys fails when a fragment changes under the same key; a key
// without the span did).
func TestChartKeyFollowsItsAxis(t *testing.T) {
	live := demo.Start(&Kind, demo.Options{})
	keys := demotest.NewKeys(t, live, demo.View{Lang: ui.Ja, SID: demotest.SID})
	d := func() *Demo { return live.Instance().(*Demo) }
	must(t, live.Apply(demo.Command{Action: "controller", On: true}))
	keys.Step(t)
	for i := range 30 {
		live.Advance(1700 * time.Millisecond)
		keys.Step(t)
		if i%6 == 5 {
			must(t, live.Apply(demo.Command{Action: "kill-member", Name: d().Members()[0].Name}))
			keys.Step(t)
		}
	}
	var changes []time.Duration
	for _, h := range d().hist.All() {
		changes = append(changes, h.At)
	}
	if len(changes) < 8 || changes[len(changes)-1] < 40*time.Second {
		t.Fatalf("the phase changed at %v: the scene does not reach past the first span", changes)
	}
}
