package controlplane

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// BenchmarkKeyedFrame measures what a session spends on one visitor's
// action: decode it, apply it, let the demo's time run on, and render the
// frame, which renders only the fragments whose keys changed. It cycles
// through the kind's load steps, as cmd/loadgen does, and reports how many
// fragments each frame rendered.
//
//	go test -run '^$' -bench KeyedFrame -benchmem ./demos/controlplane
func BenchmarkKeyedFrame(b *testing.B) {
	live := demo.Start(&Kind, demo.Options{})
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: "bench"})
	if _, err := r.Frame(nil); err != nil { // the page's first frame: everything
		b.Fatal(err)
	}
	first := r.Renders
	b.ReportAllocs()
	n := 0
	for ; b.Loop(); n++ {
		c := demo.Decode(&Kind, []byte(Kind.Load[n%len(Kind.Load)].Send))
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
	}
	b.ReportMetric(float64(r.Renders-first)/float64(n), "renders/op")
}
