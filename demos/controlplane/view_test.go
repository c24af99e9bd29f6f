package controlplane

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
)

// TestView checks the fragments, the section, the snapshot and the golden
// renders of the guide's start and middle, the live cluster, and the two
// quiz situations part-way (one with a refusal shown).
func TestView(t *testing.T) {
	demotest.Check(t, Kind, []demotest.State{
		{Name: "guide-start", Build: func() demo.Instance { return Kind.New(demo.Options{}) }},
		{Name: "guide-5", Build: func() demo.Instance {
			d := NewDemo()
			for range 5 {
				must(t, d.Apply(demo.Command{Action: "guided-next"}))
			}
			return d
		}},
		{Name: "guide-9-dockershim", Build: func() demo.Instance {
			d := NewDemo()
			must(t, d.Apply(demo.Command{Action: "runtime", Name: "dockershim"}))
			for range 9 {
				must(t, d.Apply(demo.Command{Action: "guided-next"}))
			}
			return d
		}},
		{Name: "live", Build: func() demo.Instance {
			d := NewDemo()
			must(t, d.Apply(demo.Command{Action: "guided-finish"}))
			must(t, d.Apply(demo.Command{Action: "set-replicas", N: 5}))
			d.Advance(10 * time.Second)
			return d
		}},
		{Name: "scheduler-outage", Refusal: demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.nothing-due"), Build: func() demo.Instance {
			d := NewDemo()
			must(t, d.Apply(demo.Command{Action: "preset", Name: QuizScheduler}))
			d.Advance(20 * time.Second)
			return d
		}},
		{Name: "node-outage", Build: func() demo.Instance {
			d := NewDemo()
			must(t, d.Apply(demo.Command{Action: "guided-finish"}))
			must(t, d.Apply(demo.Command{Action: "set-replicas", N: 6}))
			d.Advance(10 * time.Second)
			must(t, d.Apply(demo.Command{Action: "preset", Name: QuizNode}))
			must(t, d.Apply(demo.Command{Action: "skip"}))
			d.Advance(5 * time.Second)
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

// TestTimelineReplays: every moment just after an action replays exactly
// from the timeline, and a link to the last one opens it.
func TestTimelineReplays(t *testing.T) {
	for seed := range uint64(racetest.Runs(8)) {
		demotest.CheckReplay(t, Kind, seed, 120)
	}
}
