package pipeline

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// BenchmarkKeyedFrame measures what a session spends on one visitor's
// action: decode it, apply it, let a second of the demo's time run on, and
// render the frame, which renders only the fragments whose keys changed.
// It cycles through the kind's load steps, as cmd/loadgen does, and
// reports how many fragments each action rendered.
//
//	go test -run '^$' -bench KeyedFrame -benchmem ./demos/pipeline
func BenchmarkKeyedFrame(b *testing.B) {
	live := demo.Start(&Kind, demo.Options{})
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: "bench"})
	out, err := r.Frame(nil) // the page's first frame: every fragment
	if err != nil {
		b.Fatal(err)
	}
	r.Renders = 0
	n := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := demo.Decode(&Kind, []byte(Kind.Load[i%len(Kind.Load)].Send))
		if c.Reject != nil {
			b.Fatalf("load step refused: %v", c.Reject)
		}
		if err := live.Apply(c); err != nil {
			b.Fatal(err)
		}
		live.Advance(time.Second)
		if out, err = r.Frame(out[:0]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(r.Renders)/float64(n), "renders/op")
}

// BenchmarkNewSession measures what a visitor who touches nothing costs:
// the demo in its starting state, its section for the page, and the
// socket's first frame (every fragment).
func BenchmarkNewSession(b *testing.B) {
	v := demo.View{Lang: ui.Ja, SID: "bench"}
	b.ReportAllocs()
	for b.Loop() {
		live := demo.Start(&Kind, demo.Options{})
		if err := live.Section(v).Render(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
		if _, err := live.Renderer(v).Frame(nil); err != nil {
			b.Fatal(err)
		}
	}
}
