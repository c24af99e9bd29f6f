package pipeline

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/internal/jsonw"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// A demo nobody has touched shows the shared starting state, so each of its
// fragments is the same for every session that views it in one language
// and role, and so is its snapshot at one pace: they are rendered once and
// their HTML kept. A new visitor's page and its socket's first frame (which
// sends every fragment) then copy them instead of rendering them. Bounded:
// the demo's fragments in two languages and two roles, the snapshot at six
// paces (paused or not, three speeds).

// freshKey names one rendering of a fragment of the starting state.
type freshKey struct {
	id       string
	lang     ui.Lang
	readOnly bool
}

var (
	freshHTML     sync.Map // freshKey → []byte
	freshSnapshot sync.Map // sim.Envelope → string
)

// kept returns fragment id's component, whose HTML is kept in freshHTML
// while the demo shows the starting state.
func kept(id string, comp func(*Demo, demo.View) templ.Component) func(*Demo, demo.View) templ.Component {
	return func(d *Demo, v demo.View) templ.Component {
		if d.w != nil {
			return comp(d, v)
		}
		key := freshKey{id: id, lang: v.Lang, readOnly: readOnly(v)}
		if h, ok := freshHTML.Load(key); ok {
			return rawHTML(h.([]byte))
		}
		return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
			var b bytes.Buffer
			if err := comp(d, v).Render(ctx, &b); err != nil {
				return err // not kept: rendered again next time
			}
			freshHTML.Store(key, b.Bytes())
			_, err := w.Write(b.Bytes())
			return err
		})
	}
}

// rawHTML is a component that writes HTML rendered before.
func rawHTML(b []byte) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// SnapshotJSON returns the snapshot the page keeps; the starting state's
// is made once per pace.
func (d *Demo) SnapshotJSON() string {
	if d.w != nil {
		_, raw := d.snapshot()
		return raw
	}
	env := d.clk.Envelope(Name)
	if raw, ok := freshSnapshot.Load(env); ok {
		return raw.(string)
	}
	_, raw := d.snapshot()
	freshSnapshot.Store(env, raw)
	return raw
}

// WriteSnapshotJSON writes SnapshotJSON as the engine writes the world
// (AppendSnapshotJSON), into a pooled buffer: no snapshot is built and no
// string made. A world too large to be written plain is packed.
func (d *Demo) WriteSnapshotJSON(out io.Writer) error {
	if d.w == nil {
		_, err := io.WriteString(out, d.SnapshotJSON())
		return err
	}
	bp := snapshotBuffers.Get().(*[]byte)
	defer snapshotBuffers.Put(bp)
	env := d.clk.Envelope(Name)
	b := append(demo.AppendEnvelope((*bp)[:0], env), `,"world":`...)
	n := len(b)
	b = d.World().AppendSnapshotJSON(b)
	if len(b)+1 > MaxPlainBytes {
		packed := pack(b[n:])
		b = append(demo.AppendEnvelope(b[:0], env), `,"packed":`...)
		b = jsonw.String(b, packed)
	}
	b = append(b, '}')
	*bp = b // keeps what it grew to for the next
	_, err := out.Write(b)
	return err
}

// snapshotBuffers are WriteSnapshotJSON's.
var snapshotBuffers = sync.Pool{New: func() any { return new([]byte) }}
