package pipeline

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
)

// TestView checks the fragments, the section, the snapshot and the golden
// renders of states that show every part of the page: the starting state;
// an edit on its way through the lanes; the runaway loop on two workers; a
// missing dependency backing off; an App stuck Terminating with the
// controller off, beside a refusal.
func TestView(t *testing.T) {
	demotest.Check(t, Kind, []demotest.State{
		{Name: "fresh", Build: func() demo.Instance { return Kind.New(demo.Options{}) }},
		{Name: "edit", Build: func() demo.Instance {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "create", Name: "app-2"})
			mustApply(t, d, demo.Command{Action: "edit", Name: "app-1"})
			d.Advance(450 * time.Millisecond) // the edit has reached the cache; app-1 is on a worker
			return d
		}},
		{Name: "runaway", Build: func() demo.Instance {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "workers", N: 2})
			mustApply(t, d, demo.Command{Action: "trap", Name: "runaway", On: true})
			mustApply(t, d, demo.Command{Action: "create", Name: "app-2"})
			d.Advance(7 * time.Second)
			return d
		}},
		{Name: "backoff", Build: func() demo.Instance {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "dependency", On: false})
			mustApply(t, d, demo.Command{Action: "not-ready", Name: "error"})
			d.Advance(3 * time.Second)
			return d
		}},
		{Name: "stuck", Refusal: refusalOf(t, NewDemo, demo.Command{Action: "remove-finalizer", Name: "app-3"}), Build: func() demo.Instance {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "trap", Name: "stuck-finalizer", On: true})
			mustApply(t, d, demo.Command{Action: "delete", Name: "app-1"})
			mustApply(t, d, demo.Command{Action: "pause", On: true})
			return d
		}},
	})
}

// refusalOf returns the rejection c meets in a fresh demo.
func refusalOf(t *testing.T, fresh func() *Demo, c demo.Command) *demo.Rejection {
	t.Helper()
	r, ok := fresh().Apply(c).(*demo.Rejection)
	if !ok {
		t.Fatalf("%+v was not refused", c)
	}
	return r
}
