package pipeline

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
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
		{Name: "classic", Build: func() demo.Instance {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "queue-kind", Name: "classic"})
			mustApply(t, d, demo.Command{Action: "secret-watch", On: true})
			mustApply(t, d, demo.Command{Action: "not-ready", Name: "requeue-true"})
			mustApply(t, d, demo.Command{Action: "dependency", On: false})
			d.Advance(3 * time.Second)
			return d
		}},
		{Name: "list", Refusal: refusalOf(t, appWithoutChild, demo.Command{Action: "child-edit", Name: "app-2"}), Build: func() demo.Instance {
			d := appWithoutChild()
			mustApply(t, d, demo.Command{Action: "create", Name: "app-3"})
			mustApply(t, d, demo.Command{Action: "controller", On: true})
			mustApply(t, d, demo.Command{Action: "child-edit", Name: "app-1"})
			d.Advance(350 * time.Millisecond) // app-1 on the worker; app-2, app-3 listed at low priority
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

// appWithoutChild is the starting state with app-2 created while the
// controller is off: an App with no child yet.
func appWithoutChild() *Demo {
	d := NewDemo()
	if err := d.Apply(demo.Command{Action: "controller", On: false}); err != nil {
		panic(err)
	}
	if err := d.Apply(demo.Command{Action: "create", Name: "app-2"}); err != nil {
		panic(err)
	}
	return d
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

// TestFreshFragmentsAreTheRenderedOnes: the starting state's kept HTML and
// snapshot are exactly what rendering it gives, in either language and
// role, at every pace, in frames and in the section.
func TestFreshFragmentsAreTheRenderedOnes(t *testing.T) {
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		for _, role := range []string{demo.RoleOwner, demo.RoleFollower} {
			for _, paused := range []bool{false, true} {
				for _, sp := range []sim.Speed{sim.Half, sim.Normal, sim.Double} {
					v := demo.View{Lang: l, SID: "sid-" + string(l), Role: role}
					kept, afresh := NewDemo(), NewDemo()
					afresh.own() // the same starting state, its own: rendered afresh
					for _, d := range []*Demo{kept, afresh} {
						d.SetPaused(paused)
						d.SetSpeed(sp)
					}
					want := demotest.RenderAll(t, demo.Wrap(&Kind, afresh), v)
					wantSection := demotest.RenderOne(t, demo.Wrap(&Kind, afresh).Section(v))
					for range 2 { // the first may fill the cache, the second reads it
						live := demo.Wrap(&Kind, kept)
						for id, h := range demotest.RenderAll(t, live, v) {
							if h != want[id] {
								t.Fatalf("%s %q paused %v speed %v: fragment %s differs from its render:\n%s\n%s", l, role, paused, sp, id, h, want[id])
							}
						}
						if demotest.RenderOne(t, live.Section(v)) != wantSection {
							t.Fatalf("%s %q paused %v speed %v: the section differs from its render", l, role, paused, sp)
						}
					}
				}
			}
		}
	}
	// A demo with its own engine renders afresh.
	d := NewDemo()
	mustApply(t, d, demo.Command{Action: "edit", Name: "app-1"})
	if got := demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: ui.Ja})["pp-api"]; !strings.Contains(got, `data-generation="2"`) {
		t.Fatal("an edited demo showed the starting state")
	}
}

// TestFramesRenderWhatChanged: a frame renders only the fragments whose
// inputs changed: the pace only the clock, the controls and the snapshot;
// time passing over a quiet demo only the clock and the snapshot.
func TestFramesRenderWhatChanged(t *testing.T) {
	live := demo.Start(&Kind, demo.Options{})
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: demotest.SID})
	frame := func(want int, what string) {
		t.Helper()
		r.Renders = 0
		if _, err := r.Frame(nil); err != nil {
			t.Fatal(err)
		}
		if r.Renders != want {
			t.Fatalf("%s: %d fragments rendered, want %d", what, r.Renders, want)
		}
	}
	frame(r.Len(), "the first frame")
	steps := []struct {
		what string
		cmd  demo.Command
		wait time.Duration
		want int
	}{
		{"speed", demo.Command{Action: "speed", Speed: sim.Double}, 0, 3},
		{"pause", demo.Command{Action: "pause", On: true}, 0, 3},
		{"resume", demo.Command{Action: "pause", On: false}, 0, 3},
		{"an hour of a quiet demo", demo.Command{}, time.Hour, 2},
		// The clock, the metrics, lanes ① ② ⑤ (the queue and the workers
		// are idle again), the report, the log, the live region and the
		// snapshot; not the settings nor the traps.
		{"an edit and its reconcile", demo.Command{Action: "edit", Name: "app-1"}, 2 * time.Second, 9},
		{"another quiet hour", demo.Command{}, time.Hour, 2},
	}
	for _, st := range steps {
		if st.cmd.Action != "" {
			if err := live.Apply(st.cmd); err != nil {
				t.Fatal(err)
			}
		}
		live.Advance(st.wait)
		frame(st.want, st.what)
	}
}

// TestKeysAsTheLogForgets: the log keeps its newest events only; when the
// last reconcile and the older writes leave it, the live region and the
// writes lane say so, and their keys change with them.
func TestKeysAsTheLogForgets(t *testing.T) {
	d := NewDemo()
	live := demo.Wrap(&Kind, d)
	keys := demotest.NewKeys(t, live, demo.View{Lang: ui.En, SID: demotest.SID})
	mustApply(t, d, demo.Command{Action: "controller", On: false})
	keys.Step(t)
	for i := range 130 { // one event each: no controller watches
		mustApply(t, d, demo.Command{Action: "edit", Name: "app-1"})
		if i%3 == 0 {
			d.Advance(time.Second)
		}
		keys.Step(t)
	}
	if s := d.liveLine(ui.En); s != "" {
		t.Fatalf("the live region still says %q", s)
	}
}

// busyDemos are demos that have logged every kind of event and show every
// kind of button: each trap on with its trigger, deletions with and
// without the controller, a missing dependency either way, and the truth
// pass's (truthDemos).
func busyDemos(t *testing.T) []*Demo {
	t.Helper()
	var out []*Demo
	for _, tr := range []string{"runaway", "conflict", "already-exists", "not-visible", "slow-object", "stampede", "stuck-finalizer"} {
		d := NewDemo()
		mustApply(t, d, demo.Command{Action: "workers", N: 2})
		mustApply(t, d, demo.Command{Action: "trap", Name: tr, On: true})
		d.Apply(demo.Command{Action: "create", Name: "app-2"})
		d.Apply(demo.Command{Action: "edit", Name: "app-1"})
		d.Advance(2 * time.Second)
		d.Apply(demo.Command{Action: "delete", Name: "app-2"})
		d.Advance(3 * time.Second)
		out = append(out, d)
	}
	d := NewDemo()
	mustApply(t, d, demo.Command{Action: "dependency", On: false})
	mustApply(t, d, demo.Command{Action: "not-ready", Name: "error"})
	d.Advance(3 * time.Second)
	mustApply(t, d, demo.Command{Action: "step"})
	mustApply(t, d, demo.Command{Action: "reset"})
	out = append(out, d, busy(t))
	return append(out, truthDemos(t)...)
}

// TestEveryEventIsSaid: the log says each event in a sentence of the
// catalog, in both languages.
func TestEveryEventIsSaid(t *testing.T) {
	kinds := map[string]bool{}
	for _, d := range busyDemos(t) {
		for _, e := range d.World().Events() {
			kinds[e.Kind] = true
			for _, l := range []ui.Lang{ui.Ja, ui.En} {
				s := eventText(l, e)
				if s == e.Kind && e.Kind != "reset" || strings.Contains(s, "pp.") || strings.Contains(s, "%!") {
					t.Fatalf("%s: event %+v is said %q", l, e, s)
				}
			}
		}
	}
	if len(kinds) < 12 {
		t.Fatalf("only %d kinds of event seen: %v", len(kinds), kinds)
	}
}

// TestEveryButtonSendsAValidAction: the hx-vals of every button on the
// page decodes to an action the demo accepts on the wire.
func TestEveryButtonSendsAValidAction(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range append(busyDemos(t), NewDemo()) {
		for _, l := range []ui.Lang{ui.Ja, ui.En} {
			for id, h := range demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: l, SID: "s"}) {
				for _, n := range demotest.Parse(t, h) {
					for _, b := range demotest.FindAll(n, func(n *html.Node) bool { return n.Data == "button" }) {
						_, sends := attr(b, "ws-send")
						_, disabled := attr(b, "disabled")
						v := demotest.Attr(b, "hx-vals")
						if !sends && disabled {
							continue // it sends nothing, and says so
						}
						if !sends || v == "" {
							t.Fatalf("%s: a button that sends nothing: %v", id, b.Attr)
						}
						if c := demo.Decode(&Kind, []byte(v)); c.Reject != nil {
							t.Fatalf("%s: %s is refused on the wire: %s", id, v, c.Reject.Text(ui.En))
						}
						seen[v] = true
					}
				}
			}
		}
	}
	if len(seen) < 40 {
		t.Fatalf("only %d distinct buttons seen", len(seen))
	}
}

// attr reports n's attribute key and whether n has it.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// TestWatchEventsOnTheirWayAreCapped: a full backlog (sixteen events) shows
// the first six and says how many more, so lane ② stays on a projector's
// first screen and a frame stays small.
func TestWatchEventsOnTheirWayAreCapped(t *testing.T) {
	d := busy(t)
	h := demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: ui.En})["pp-cache"]
	n := demotest.Parse(t, h)[0]
	if got := len(demotest.ByTestID(n, "watch-event")); got != flightLines {
		t.Fatalf("%d watch events shown, want %d", got, flightLines)
	}
	total := len(d.World().InFlight())
	if demotest.Attr(demotest.ByTestID(n, "inflight")[0], "data-value") != ui.Itoa(total) || total <= flightLines ||
		!strings.Contains(h, F(ui.En, "pp.inflight.more", total-flightLines)) {
		t.Fatalf("%d on their way; the lane says otherwise:\n%s", total, h)
	}
}

// TestTimelineReplays: every moment just after an action replays exactly
// from the timeline, and a link to the last one opens it.
func TestTimelineReplays(t *testing.T) {
	for seed := range uint64(racetest.Runs(8)) {
		demotest.CheckReplay(t, Kind, seed, 120)
	}
}
