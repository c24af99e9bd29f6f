package operator

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
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
