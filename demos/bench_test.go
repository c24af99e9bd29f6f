package demos

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// BenchmarkFrame measures what a session spends on one visitor's action:
// decode it, apply it, let a second of the demo's time pass, and render
// the frame that answers it (only the fragments whose key changed, as the
// session does). It cycles through the kind's load steps, as cmd/loadgen
// does, and reports the fragments rendered per action. A visitor's session
// is five minutes acting once a second: every 300 actions a fresh session
// starts (its start is part of the cost), so the timeline, the log and the
// link a frame carries are as long as a real session's, not thousands of
// actions long.
//
//	go test -run '^$' -bench Frame -benchmem ./demos
func BenchmarkFrame(b *testing.B) {
	const sessionActions = 300
	for _, k := range All() {
		b.Run(k.Name, func(b *testing.B) {
			var live *demo.Live
			var r *demo.Renderer
			b.ReportAllocs()
			n, renders := 0, 0
			for i := 0; b.Loop(); i++ {
				if i%sessionActions == 0 {
					if r != nil {
						renders += r.Renders
					}
					live = demo.Start(&k, demo.Options{})
					// As an owner's session renders: links to the moment on
					// its origin, marks added to the page's.
					r = live.Renderer(demo.View{Lang: ui.Ja, SID: "bench", Origin: "https://demo.example"})
					r.Appends = true
					if _, err := r.Frame(nil); err != nil {
						b.Fatal(err)
					}
					r.Renders = 0
				}
				c := demo.Decode(&k, []byte(k.Load[i%len(k.Load)].Send))
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
			b.ReportMetric(float64(renders+r.Renders)/float64(n), "renders/op")
		})
	}
}
