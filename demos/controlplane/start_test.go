package controlplane

import (
	"sync"
	"testing"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// startState is everything a page can see of the shared starting state.
func startState(t *testing.T) string {
	t.Helper()
	d := &Demo{c: start}
	return observable(d) + demo.MustJSON(start.Snapshot()) + demo.MustJSON(start.Events()) + demo.MustJSON(start.InFlight())
}

// An untouched demo reads the shared starting state and holds no cluster
// of its own; the first command gives it one, and no command on any demo
// ever changes the shared one.
func TestUntouchedDemosShareTheStart(t *testing.T) {
	want := startState(t)
	if fresh := (&Demo{c: cp.New(Seed)}); observable(fresh)+demo.MustJSON(fresh.c.Snapshot()) != observable(&Demo{c: start})+demo.MustJSON(start.Snapshot()) {
		t.Fatal("start differs from a new cluster")
	}
	d := NewDemo()
	live := demo.Wrap(&Kind, d)
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		v := demo.View{Lang: l, SID: "s"}
		demotest.RenderAll(t, live, v)
		demotest.RenderOne(t, live.Section(v))
	}
	live.Advance(3600e9)
	live.NextDue()
	must(t, live.Apply(demo.Command{Action: "pause", On: true}))
	must(t, live.Apply(demo.Command{Action: "pause", On: false}))
	if d.c != nil {
		t.Fatal("viewing, waiting and pausing an untouched demo made it a cluster of its own")
	}
	for op := byte(opNext); op <= opReset; op++ {
		for _, arg := range []byte{0, 1, 2, 5, 7} {
			live := demo.Wrap(&Kind, NewDemo())
			live = runOp(t, live, op, arg)
			for i := range 3 { // and a few more, from wherever that left it
				live = runOp(t, live, byte(i*5+int(arg))%(opReset+1), arg)
			}
			if got := startState(t); got != want {
				t.Fatalf("op %d arg %d changed the shared start:\n got %s\nwant %s", op, arg, got, want)
			}
		}
	}
}

// A page that was never touched, restored (after a restart, or a hidden
// tab's return), shares the start again; one that was touched does not.
func TestRestoredUntouchedDemoSharesTheStart(t *testing.T) {
	untouched := NewDemo()
	untouched.SetSpeed(sim.Double)
	d := roundTrip(t, untouched)
	if d.c != nil {
		t.Fatal("an untouched demo, restored, holds a cluster of its own")
	}
	if d.Speed() != sim.Double {
		t.Fatalf("speed %v after restore", d.Speed())
	}
	touched := NewDemo()
	if _, err := touched.Next(); err != nil {
		t.Fatal(err)
	}
	if d := roundTrip(t, touched); d.c == nil || d.Cluster().Guide().Step != 1 {
		t.Fatal("a demo one step into the guide, restored, lost its step")
	}
}

// Sessions read the shared start at once while others act on their own
// clusters (go test -race finds a write to start).
func TestStartIsReadConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			live := demo.Wrap(&Kind, NewDemo())
			r := live.Renderer(demo.View{Lang: ui.Ja, SID: "s"})
			for j := range 20 {
				if _, err := r.All(); err != nil {
					t.Error(err)
				}
				if i%2 == 1 && j == 10 {
					if err := live.Apply(demo.Command{Action: "guided-next"}); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
}
