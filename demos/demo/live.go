package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"html"
	"io"
	"sync"
	"time"

	"github.com/a-h/templ"

	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// Live is a demo at work: a demo's Instance inside the framework, which
// owns what every demo shares: the pace actions (pause and speed here; step,
// reset and the controller switch are passed to the demo, which alone knows
// what they do), the shared fragments (clock, controls, error, log, live,
// snapshot, room), and the rendering of frames from the demo's declared
// parts. It is owned by one goroutine, like the Instance inside it.
type Live struct {
	kind    *Kind
	in      Instance
	layout  []Part // the demo's parts, as declared
	frags   []Part // every fragment, in section order: the clock, the layout's, the room
	applied uint64 // accepted commands: the snapshot's key reads it
}

// Start returns a live demo of kind k in its starting state.
func Start(k *Kind, opt Options) *Live { return Wrap(k, k.New(opt)) }

// Resume rebuilds a live demo of kind k from a snapshot its page kept; see
// Kind.Restore.
func Resume(k *Kind, opt Options, snapshot json.RawMessage) (*Live, error) {
	in, err := k.Restore(opt, snapshot)
	if err != nil {
		return nil, err
	}
	return Wrap(k, in), nil
}

// Wrap puts a demo of kind k inside the framework.
func Wrap(k *Kind, in Instance) *Live {
	l := &Live{kind: k, in: in, layout: in.Parts()}
	l.frags = append(l.frags, l.bind(Part{ID: k.Prefix + "-clock", shared: sharedClock}))
	var walk func(ps []Part)
	walk = func(ps []Part) {
		for _, p := range ps {
			switch {
			case p.class != "" || p.wrap != nil:
				walk(p.parts)
			case p.ID != "" || p.shared != notShared:
				l.frags = append(l.frags, l.bind(p))
			}
		}
	}
	walk(l.layout)
	l.frags = append(l.frags, l.bind(Part{ID: k.Prefix + "-room", shared: sharedRoom}))
	return l
}

// bind gives a shared fragment its id, key and component.
func (l *Live) bind(p Part) Part {
	pre := l.kind.Prefix
	in := l.in
	switch p.shared {
	case sharedClock:
		p.Key = func() uint64 { return Mix(uint64(in.Now().Milliseconds()), B(l.stopped()), uint64(in.Speed())) }
		p.Comp = func(v View) templ.Component { return ui.Clock(v.Lang, l.clock()) }
	case sharedControls:
		p.ID = pre + "-controls"
		p.Key = func() uint64 { return Mix(B(l.controller()), B(in.Paused()), uint64(in.Speed())) }
		p.Comp = func(v View) templ.Component { return ui.Controls(v.Lang, l.controls(v)) }
	case sharedError:
		p.ID = pre + "-error"
		p.Comp = func(v View) templ.Component { return ui.ErrorBox(v.Lang, pre, v.Error) }
	case sharedLive:
		p.ID = pre + "-live"
		text := p.text
		p.Comp = func(v View) templ.Component { return ui.Live(pre, text(v.Lang)) }
	case sharedSnapshot:
		p.ID = pre + "-snapshot"
		p.Comp = func(v View) templ.Component { return ui.Snapshot(pre, v.SID, in.SnapshotJSON()) }
	case sharedRoom:
		p.Comp = func(v View) templ.Component { return ui.RoomPanel(v.Lang, v.room(pre)) }
	}
	return p
}

const (
	sharedClock shared = iota + 100
	sharedRoom
)

func (l *Live) clock() ui.ClockProps {
	return ui.ClockProps{Prefix: l.kind.Prefix, Ms: l.in.Now().Milliseconds(), Paused: l.stopped(), Speed: l.in.Speed().String()}
}

// Freezer is a demo whose time can stand still of itself, whatever the
// visitor's pace (controlplane's guide moves only by its buttons): while it
// is Frozen, its clock shows paused, and the pause button still shows the
// visitor's choice.
type Freezer interface{ Frozen() bool }

// stopped reports whether the demo's clock stands still: paused by the
// visitor, or frozen by the demo.
func (l *Live) stopped() bool {
	if f, ok := l.in.(Freezer); ok && f.Frozen() {
		return true
	}
	return l.in.Paused()
}

// Switch is a demo with one controller switch (Kind.Controller).
type Switch interface{ Controller() bool }

func (l *Live) controller() bool {
	s, ok := l.in.(Switch)
	return ok && s.Controller()
}

func (l *Live) controls(v View) ui.ControlProps {
	step := ui.T(v.Lang, "ctl.step")
	if l.kind.StepText != nil {
		step = l.kind.StepText(v.Lang)
	}
	return ui.ControlProps{Prefix: l.kind.Prefix, HasController: l.kind.Controller, Controller: l.controller(),
		Paused: l.in.Paused(), Speed: l.in.Speed().String(), StepText: step, HasReset: true, Disabled: v.Role == RoleFollower}
}

// Kind returns the demo's kind.
func (l *Live) Kind() *Kind { return l.kind }

// Instance returns the demo inside.
func (l *Live) Instance() Instance { return l.in }

// Advance lets d of the caller's time pass.
func (l *Live) Advance(d time.Duration) { l.in.Advance(d) }

// NextDue returns how much of the caller's time may pass before something
// changes by itself, and false when nothing will.
func (l *Live) NextDue() (time.Duration, bool) { return l.in.NextDue() }

// Reconciles returns how many reconciles the demo has run.
func (l *Live) Reconciles() int { return l.in.Reconciles() }

// Apply carries out a decoded command of the demo's set: pause and speed
// here, anything else in the demo. A *Rejection means it changed nothing.
func (l *Live) Apply(c Command) error {
	switch c.Action {
	case "pause":
		l.in.SetPaused(c.On)
	case "speed":
		l.in.SetSpeed(c.Speed)
	default:
		if err := l.in.Apply(c); err != nil {
			return err
		}
	}
	l.applied++
	return nil
}

// Fragments returns every fragment of the demo, in the section's order,
// each with its id, key and component.
func (l *Live) Fragments() []Part { return l.frags }

// Section renders the whole demo for a page, composed from the parts the
// demo declared: the frame (head, clock, room panel), then the layout.
func (l *Live) Section(v View) templ.Component {
	k := l.kind
	d := ui.DemoProps{Kind: k.Name, Prefix: k.Prefix, Lang: v.Lang, SID: v.SID, WSURL: v.WSURL, Role: v.Role,
		Kills: k.Kills, Title: k.Title(v.Lang), Clock: l.clock()}
	if k.Intro != nil {
		d.Intro = k.Intro(v.Lang)
	}
	body := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error { return l.renderParts(ctx, w, l.layout, v) })
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return ui.Demo(d).Render(templ.WithChildren(ctx, body), w)
	})
}

func (l *Live) renderParts(ctx context.Context, w io.Writer, ps []Part, v View) error {
	for _, p := range ps {
		if p.class != "" {
			if _, err := io.WriteString(w, `<div class="`+html.EscapeString(p.class)+`">`); err != nil {
				return err
			}
			if err := l.renderParts(ctx, w, p.parts, v); err != nil {
				return err
			}
			if _, err := io.WriteString(w, `</div>`); err != nil {
				return err
			}
			continue
		}
		if p.wrap != nil {
			parts := p.parts
			body := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error { return l.renderParts(ctx, w, parts, v) })
			if err := p.wrap(v).Render(templ.WithChildren(ctx, body), w); err != nil {
				return err
			}
			continue
		}
		if p.shared != notShared {
			p = l.bind(p)
		}
		if err := p.Comp(v).Render(ctx, w); err != nil {
			return fmt.Errorf("render %s: %w", p.ID, err)
		}
	}
	return nil
}

// Roles of a viewer.
const (
	RoleOwner    = "owner"
	RoleFollower = "follower"
)

// Rendered is a fragment rendered for a frame: its id and its HTML, which
// the receiver owns.
type Rendered struct {
	ID   string
	HTML []byte
}

// Renderer renders one viewer's frames of a live demo: it remembers, for
// each fragment, the key it last rendered and the hash of the HTML it last
// sent, so a frame costs what changed. It belongs to the goroutine that
// owns the Live.
type Renderer struct {
	live *Live
	// View is the viewer: language, session id, role, and the refusal shown.
	View View
	keys []uint64 // the key each fragment was last rendered with
	sums []uint64 // the hash of the HTML last sent; 0: never sent
	// Renders counts the fragments rendered, for tests.
	Renders int
}

// Renderer returns a renderer of v's frames that has sent nothing yet.
func (l *Live) Renderer(v View) *Renderer {
	return &Renderer{live: l, View: v, keys: make([]uint64, len(l.frags)), sums: make([]uint64, len(l.frags))}
}

// Len returns how many fragments the renderer renders.
func (r *Renderer) Len() int { return len(r.live.frags) }

// Reset makes the next frame send every fragment: the page may have missed
// frames (a new connection), or the demo was replaced.
func (r *Renderer) Reset() { clear(r.sums) }

// Retarget points the renderer at another live demo (a restore replaced
// it) and sends everything next.
func (r *Renderer) Retarget(l *Live) {
	r.live = l
	r.keys, r.sums = make([]uint64, len(l.frags)), make([]uint64, len(l.frags))
}

// Key returns the key of fragment i (of Live.Fragments) for this viewer.
func (r *Renderer) Key(i int) uint64 {
	p := &r.live.frags[i]
	switch p.shared {
	case sharedError:
		return Str(r.View.Error)
	case sharedRoom:
		rp := r.View.room(r.live.kind.Prefix)
		return Mix(B(rp.Open), Str(rp.Code), Str(rp.URL), I(rp.Followers))
	case sharedSnapshot:
		// The snapshot holds the whole state: it changes with any fragment,
		// with the clock, and with any accepted command (which may change
		// what no fragment shows).
		in := r.live.in
		k := Mix(r.live.applied, uint64(in.Now().Milliseconds()), B(in.Paused()), uint64(in.Speed()))
		for j := range r.live.frags {
			if sh := r.live.frags[j].shared; sh != sharedSnapshot && sh != sharedError && sh != sharedRoom {
				k = Mix(k, r.live.frags[j].Key())
			}
		}
		return k
	}
	return p.Key()
}

// Frame appends to out the fragments that changed since the last frame:
// those whose key changed are rendered, and those whose HTML differs from
// what was sent are appended.
func (r *Renderer) Frame(out []Rendered) ([]Rendered, error) {
	buf := getBuffer()
	defer buffers.Put(buf)
	for i := range r.live.frags {
		p := &r.live.frags[i]
		if p.shared == sharedRoom && r.View.Role == RoleFollower {
			continue // a follower's page has no room panel of its own
		}
		k := r.Key(i)
		if r.sums[i] != 0 && r.keys[i] == k {
			continue
		}
		buf.Reset()
		r.Renders++
		if err := p.Comp(r.View).Render(context.Background(), buf); err != nil {
			return out, fmt.Errorf("render %s: %w", p.ID, err)
		}
		r.keys[i] = k
		// The hash covers the fragment's id (its HTML starts with it), and
		// is never 0, which means "never sent".
		h := maphash.Bytes(htmlSeed, buf.Bytes()) | 1
		if r.sums[i] == h {
			continue
		}
		r.sums[i] = h
		out = append(out, Rendered{ID: p.ID, HTML: bytes.Clone(buf.Bytes())})
	}
	return out, nil
}

// Render renders fragment i (of Live.Fragments) for this viewer.
func (r *Renderer) Render(i int, w io.Writer) error {
	return r.live.frags[i].Comp(r.View).Render(context.Background(), w)
}

// All renders every fragment, whatever was sent: a whole demo for a page
// that joins.
func (r *Renderer) All() ([]Rendered, error) {
	r.Reset()
	return r.Frame(nil)
}

var htmlSeed = maphash.MakeSeed()

// buffers are the scratch space of rendering frames: every frame of every
// session passes through one.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer {
	b := buffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}
