package demos

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// BenchmarkFrame measures what a session spends on one visitor's action:
// decode it, apply it, let the demo's time run on, and render every
// fragment of the frame (the session renders them all to find which
// changed). It cycles through the kind's load steps, as cmd/loadgen does.
//
//	go test -run '^$' -bench Frame -benchmem ./demos
func BenchmarkFrame(b *testing.B) {
	for _, k := range All() {
		b.Run(k.Name, func(b *testing.B) {
			d := k.New(demo.Options{})
			v := demo.View{Lang: ui.Ja, SID: "bench"}
			var buf bytes.Buffer
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c := demo.Decode(&k, []byte(k.Load[i%len(k.Load)].Send))
				if c.Reject != nil {
					b.Fatalf("load step refused: %v", c.Reject)
				}
				if err := d.Apply(c); err != nil {
					b.Fatal(err)
				}
				d.Advance(time.Second)
				for _, f := range d.Fragments(v) {
					buf.Reset()
					if err := f.Comp.Render(context.Background(), &buf); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
