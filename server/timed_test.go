package server

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	tmpl "github.com/reconcile-demo/reconcile-demo/templates"
)

func renderAll(t *testing.T, frags []fragment) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range frags {
		var b bytes.Buffer
		if err := f.comp.Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		out[f.id] = b.String()
	}
	return out
}

// TestTimedFragmentsCoverWhatTimeChanges: when time passes without a log
// event, the session renders only the timed fragments. Every other fragment
// must then be unchanged, or the page would miss it.
func TestTimedFragmentsCoverWhatTimeChanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		demo func() demo
	}{
		{"reconcile, pods starting", func() demo {
			d := &rcDemo{sim.NewReplicaDemo(sim.Options{}, 3, true)}
			d.Advance(1100 * time.Millisecond) // created at 1 s, Pending until 2.5 s
			return d
		}},
		{"reconcile, converged", func() demo {
			d := &rcDemo{sim.NewReplicaDemo(sim.Options{}, 3, true)}
			d.Advance(3 * time.Second)
			return d
		}},
		{"operator, members starting", func() demo {
			d := &opDemo{sim.NewOperatorDemo(sim.Options{}, false)}
			d.Step()
			d.Step()
			d.Advance(100 * time.Millisecond)
			return d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, l := range []tmpl.Lang{tmpl.Ja, tmpl.En} {
				d := tc.demo()
				timed := map[string]bool{}
				for _, f := range d.fragments(l, goldenSID, "", false) {
					timed[f.id] = true
				}
				before := renderAll(t, d.fragments(l, goldenSID, "", true))
				for id := range timed {
					if _, ok := before[id]; !ok {
						t.Fatalf("timed fragment %s is not one of the demo's fragments", id)
					}
				}
				seq := d.EventSeq()
				d.Advance(300 * time.Millisecond)
				if d.EventSeq() != seq {
					t.Fatalf("the case must let only time pass, but an event was logged")
				}
				after := renderAll(t, d.fragments(l, goldenSID, "", true))
				changed := 0
				for id, html := range after {
					if html == before[id] {
						continue
					}
					changed++
					if !timed[id] {
						t.Errorf("%s: fragment %s changed with time alone but is not rendered on timed frames", l, id)
					}
				}
				if changed == 0 {
					t.Errorf("%s: nothing changed in 300 ms; the clock at least should have", l)
				}
			}
		})
	}
}
