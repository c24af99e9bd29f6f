package pipeline

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// A demo nobody has touched shows the shared starting state, so its
// fragments are the same for every session that views it in one language,
// pace and role: they are rendered once and their HTML kept, and a new
// session (whose first frame sends every fragment) renders nothing but its
// snapshot's session id. Bounded: two languages, three speeds, paused or
// not, two roles.

// freshKey names one rendering of the starting state.
type freshKey struct {
	lang   ui.Lang
	paused bool
	speed  sim.Speed
	role   string
}

// freshHTML holds, per freshKey, the HTML of every fragment but the
// snapshot, in Fragments' order, and the snapshot's JSON.
var freshHTML sync.Map // freshKey → *freshRender

type freshRender struct {
	ids      []string
	html     [][]byte
	snapshot string
}

// freshFragments returns the starting state's fragments from freshHTML,
// rendering them the first time.
func (d *Demo) freshFragments(v demo.View) []demo.Fragment {
	key := freshKey{lang: v.Lang, paused: d.Paused(), speed: d.Speed(), role: v.Role}
	r, ok := freshHTML.Load(key)
	if !ok {
		fr := &freshRender{}
		_, fr.snapshot = d.snapshot()
		for _, f := range d.fragments(v) {
			if f.ID == Prefix+"-snapshot" {
				continue
			}
			var b bytes.Buffer
			if err := f.Comp.Render(context.Background(), &b); err != nil {
				return d.fragments(v) // not kept: render it each time
			}
			fr.ids, fr.html = append(fr.ids, f.ID), append(fr.html, b.Bytes())
		}
		r, _ = freshHTML.LoadOrStore(key, fr)
	}
	fr := r.(*freshRender)
	out := make([]demo.Fragment, 0, len(fr.ids)+1)
	for i, id := range fr.ids {
		out = append(out, demo.Fragment{ID: id, Comp: rawHTML(fr.html[i])})
	}
	return append(out, demo.Fragment{ID: Prefix + "-snapshot", Comp: ui.Snapshot(Prefix, v.SID, fr.snapshot)})
}

// rawHTML is a component that writes HTML rendered before.
func rawHTML(b []byte) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
