package triggers

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// BenchmarkKeyedFrame measures what a session spends on one visitor's
// action: decode it, apply it, let a second of the demo's time pass, and
// render the frame that answers it (only the fragments whose key changed,
// as the session does). It cycles through the load generator's steps and
// reports the fragments rendered per action.
//
//	go test -run '^$' -bench KeyedFrame -benchmem ./demos/triggers
func BenchmarkKeyedFrame(b *testing.B) {
	live := demo.Start(&Kind, demo.Options{})
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: "bench"})
	if _, err := r.Frame(nil); err != nil {
		b.Fatal(err)
	}
	r.Renders = 0
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		c := demo.Decode(&Kind, []byte(Kind.Load[i%len(Kind.Load)].Send))
		if c.Reject != nil {
			b.Fatalf("load step refused: %v", c.Reject)
		}
		if err := live.Apply(c); err != nil {
			b.Fatal(err)
		}
		live.Advance(time.Second)
		if _, err := r.Frame(nil); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(r.Renders)/float64(n), "renders/op")
}
