package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"html"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// Live is a demo at work: a demo's Instance inside the framework, which
// owns what every demo shares: the pace actions (pause and speed here; step,
// reset and the controller switch are passed to the demo, which alone knows
// what they do), the shared fragments (clock, controls, error, log, live,
// snapshot, timeline, room), the rendering of frames from the demo's
// declared parts, and the timeline: the log of every action, from which
// any past moment is replayed and shown, continued or shared. It is owned
// by one goroutine, like the Instance inside it.
type Live struct {
	kind *Kind
	opt  Options
	cur  *run // the present
	// past is a moment of the timeline shown instead of the present (the
	// present runs on meanwhile); nil while the page shows the present.
	past       *run
	pastAt     time.Duration
	pastPaused bool // whether the moment shown was paused: continue keeps it

	tl      Timeline
	startZ  []byte  // tl.Start deflated, for links
	logV    Version // grows with every change of the log or of what is shown
	applied uint64  // accepted commands: the snapshot's key reads it
	moment  string  // the log written as a link's payload; "" until asked, and after a change
	// pristine: the demo is as Start made it (no time passed, no action,
	// no timeline), the state a session started from nothing reaches too.
	// Its page needs no snapshot.
	pristine bool
}

// run is one Instance: the present, or a moment replayed from the log.
type run struct {
	in Instance
	// id tells runs apart for good (runIDs): what identifies a line of a
	// log within a run (LogSource.Items) may stand for another line in
	// another (a moment of the past replayed, a demo reset or restored).
	id uint64
	// The timeline's marks leave from its start only: when the demo
	// forgets a notable event (Marker), every mark up to it goes too.
	horizon int64   // virtual ms: no mark at or before it is shown, once forgot
	forgot  bool    // the demo forgot an event it had marked
	seen    []int64 // the times of the events Marks gave last
}

// Start returns a live demo of kind k in its starting state.
func Start(k *Kind, opt Options) *Live {
	l := &Live{kind: k, opt: opt, pristine: true}
	l.cur = l.newRun(k.New(opt))
	return l
}

// Resume rebuilds a live demo of kind k from a snapshot its page kept; see
// Kind.Restore. Its timeline starts there.
func Resume(k *Kind, opt Options, snapshot json.RawMessage) (*Live, error) {
	in, err := k.Restore(opt, snapshot)
	if err != nil {
		return nil, err
	}
	l := &Live{kind: k, opt: opt}
	l.cur = l.newRun(in)
	l.tl = Timeline{Start: bytes.Clone(snapshot), StartAt: quantum(in.Now())}
	l.startZ = deflate(l.tl.Start)
	return l, nil
}

// Wrap puts a demo of kind k inside the framework. Its timeline starts at
// its present state, which a replay cannot rebuild: Wrap is for tests.
func Wrap(k *Kind, in Instance) *Live {
	l := &Live{kind: k}
	l.cur = l.newRun(in)
	return l
}

func (l *Live) newRun(in Instance) *run { return &run{in: in, id: runIDs.Add(1)} }

var runIDs atomic.Uint64

// frags returns every fragment of the kind, in section order: the clock,
// the layout's, the timeline, its marks, the room.
func (l *Live) frags() []Part { return l.kind.Parts.fragments(l.kind.Prefix) }

const (
	sharedClock shared = iota + 100
	sharedRoom
	sharedTimeline
	sharedMarks // the timeline's marks: in the timeline on a page, a fragment of their own in frames
	sharedTrack // the timeline's range, as its marks
	sharedShare // the timeline's link to the moment shown, as its marks
)

// comp returns fragment p of run rn for viewer v: the demo's own, or one
// of the framework's.
func (l *Live) comp(rn *run, p *Part, v View) templ.Component {
	pre := l.kind.Prefix
	in := rn.in
	switch p.shared {
	case sharedClock:
		return ui.Clock(v.Lang, clockOf(pre, in))
	case sharedControls:
		return ui.Controls(v.Lang, l.controls(in, v))
	case sharedError:
		return ui.ErrorBox(v.Lang, pre, v.Error)
	case sharedLive:
		return ui.Live(pre, p.more.text(in, v.Lang))
	case sharedSnapshot:
		// The page keeps the present, whatever moment it shows. A page of
		// a pristine demo carries none: a session started from nothing is
		// in the same state, and its first frame brings the snapshot.
		if v.pristine {
			return ui.Snapshot(pre, v.SID, "", "")
		}
		if sw, ok := l.cur.in.(SnapshotWriter); ok {
			return ui.SnapshotTo(pre, v.SID, sw.WriteSnapshotJSON, l.snapshotMoment(v))
		}
		return ui.Snapshot(pre, v.SID, l.cur.in.SnapshotJSON(), l.snapshotMoment(v))
	case sharedTimeline:
		return ui.Timeline(v.Lang, l.timelineProps(v, false))
	case sharedTrack:
		return ui.TimelineTrack(v.Lang, l.timelineProps(v, false))
	case sharedShare:
		return ui.TimelineShare(v.Lang, l.timelineProps(v, true))
	case sharedMarks:
		return ui.TimelineMarks(pre, l.marks(v.Lang))
	case sharedRoom:
		return ui.RoomPanel(v.Lang, v.room(pre))
	}
	return p.Comp(in, v)
}

// demoKey returns the key of fragment p that depends on the demo in
// alone: the clock's, the controls', or one the demo declared.
func demoKey(in Instance, p *Part) uint64 {
	switch p.shared {
	case sharedClock:
		return Mix(uint64(in.Now().Milliseconds()), B(stopped(in)), uint64(in.Speed()))
	case sharedControls:
		return Mix(B(controller(in)), B(in.Paused()), uint64(in.Speed()))
	}
	return p.Key(in)
}

func clockOf(prefix string, in Instance) ui.ClockProps {
	return ui.ClockProps{Prefix: prefix, Ms: in.Now().Milliseconds(), Paused: stopped(in), Speed: in.Speed().String()}
}

// Freezer is a demo whose time can stand still of itself, whatever the
// visitor's pace (controlplane's guide moves only by its buttons): while it
// is Frozen, its clock shows paused, and the pause button still shows the
// visitor's choice.
type Freezer interface{ Frozen() bool }

// stopped reports whether a demo's clock stands still: paused by the
// visitor, or frozen by the demo.
func stopped(in Instance) bool {
	if f, ok := in.(Freezer); ok && f.Frozen() {
		return true
	}
	return in.Paused()
}

// Switch is a demo with one controller switch (Kind.Controller).
type Switch interface{ Controller() bool }

func controller(in Instance) bool {
	s, ok := in.(Switch)
	return ok && s.Controller()
}

func (l *Live) controls(in Instance, v View) ui.ControlProps {
	step := ui.T(v.Lang, "ctl.step")
	if l.kind.StepText != nil {
		step = l.kind.StepText(v.Lang)
	}
	return ui.ControlProps{Prefix: l.kind.Prefix, HasController: l.kind.Controller, Controller: controller(in),
		Paused: in.Paused(), Speed: in.Speed().String(), StepText: step, HasReset: true,
		Disabled: v.Role == RoleFollower || l.past != nil}
}

// shown is the run the page shows: the moment replayed, or the present.
func (l *Live) shown() *run {
	if l.past != nil {
		return l.past
	}
	return l.cur
}

// Kind returns the demo's kind.
func (l *Live) Kind() *Kind { return l.kind }

// Instance returns the present demo.
func (l *Live) Instance() Instance { return l.cur.in }

// Advance lets d of the caller's time pass in the present.
func (l *Live) Advance(d time.Duration) {
	if d > 0 {
		l.pristine = false
	}
	l.cur.in.Advance(d)
}

// NextDue returns how much of the caller's time may pass before something
// changes by itself in the present, and false when nothing will.
func (l *Live) NextDue() (time.Duration, bool) { return l.cur.in.NextDue() }

// Reconciles returns how many reconciles the present demo has run.
func (l *Live) Reconciles() int { return l.cur.in.Reconciles() }

// Now returns the present's virtual time.
func (l *Live) Now() time.Duration { return l.cur.in.Now() }

// Apply carries out a decoded command of the demo's set. The timeline's
// actions move what the page shows; while it shows the past, any other
// action is refused. Pause and speed are carried out here, anything else
// by the demo, always on a whole millisecond of virtual time (so that a
// replay, which logs milliseconds, meets every action exactly), and logged.
// A *Rejection means it changed nothing.
func (l *Live) Apply(c Command) error {
	l.pristine = false
	switch c.Action {
	case ActTimeline:
		return l.showMoment(time.Duration(c.At) * time.Millisecond)
	case ActTimelineLive:
		l.showPresent()
		return nil
	case ActTimelineContinue:
		return l.continueHere()
	}
	if l.past != nil {
		return Refuse(ReasonPast, "err.past")
	}
	in := l.cur.in
	if frac := in.Now() % time.Millisecond; frac != 0 {
		advanceVirtual(in, time.Millisecond-frac)
	}
	at := in.Now() // an action may move time on (a step to the next beat): a replay applies it where it began
	if err := l.apply(l.cur.in, c); err != nil {
		return err
	}
	if e, ok := entryOf(l.kind, c, at); ok {
		l.log(e)
	}
	return nil
}

// apply carries out c on in: pause and speed here, the rest in the demo.
func (l *Live) apply(in Instance, c Command) error {
	switch c.Action {
	case "pause":
		in.SetPaused(c.On)
	case "speed":
		in.SetSpeed(c.Speed)
	default:
		if err := in.Apply(c); err != nil {
			return err
		}
	}
	l.applied++
	return nil
}

// advanceVirtual lets exactly d of virtual time pass in a demo, whatever
// its pace.
func advanceVirtual(in Instance, d time.Duration) {
	paused, speed := in.Paused(), in.Speed()
	in.SetPaused(false)
	in.SetSpeed(sim.Normal)
	for d > 0 {
		step := min(d, 12*time.Hour)
		in.Advance(step)
		d -= step
	}
	in.SetPaused(paused)
	in.SetSpeed(speed)
}

// quantum rounds a virtual time up to a whole millisecond.
func quantum(t time.Duration) time.Duration {
	return (t + time.Millisecond - 1).Truncate(time.Millisecond)
}

// Fragments returns every fragment of the demo, in the section's order,
// each with its id, key and component.
func (l *Live) Fragments() []Part { return l.frags() }

// Section renders the whole demo for a page, composed from the parts the
// demo declared: the frame (head, clock, room panel), the layout, the
// timeline.
func (l *Live) Section(v View) templ.Component {
	k, rn := l.kind, l.shown()
	v.pristine, v.inPage = l.pristine, true
	d := ui.DemoProps{Kind: k.Name, Prefix: k.Prefix, Lang: v.Lang, SID: v.SID, WSURL: v.WSURL, Role: v.Role,
		Kills: k.Kills, Title: k.Title(v.Lang), Clock: clockOf(k.Prefix, rn.in)}
	if k.Intro != nil {
		d.Intro = k.Intro(v.Lang)
	}
	if v.Moment != "" {
		d.Moment, d.MomentAt = v.Moment, momentURLAt(quantum(l.cur.in.Now()))
	}
	body := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if err := l.renderParts(ctx, w, rn, k.Parts.parts, v); err != nil {
			return err
		}
		return ui.Timeline(v.Lang, l.timelineProps(v, true)).Render(ctx, w)
	})
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return ui.Demo(d).Render(templ.WithChildren(ctx, body), w)
	})
}

func (l *Live) renderParts(ctx context.Context, w io.Writer, rn *run, ps []Part, v View) error {
	for _, p := range ps {
		if m := p.layout(); m != nil && m.class != "" {
			if _, err := io.WriteString(w, `<div class="`+html.EscapeString(m.class)+`">`); err != nil {
				return err
			}
			if err := l.renderParts(ctx, w, rn, m.parts, v); err != nil {
				return err
			}
			if _, err := io.WriteString(w, `</div>`); err != nil {
				return err
			}
			continue
		}
		if m := p.layout(); m != nil && m.around {
			parts := m.parts
			body := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error { return l.renderParts(ctx, w, rn, parts, v) })
			if err := p.Comp(rn.in, v).Render(templ.WithChildren(ctx, body), w); err != nil {
				return err
			}
			continue
		}
		if err := l.comp(rn, &p, v).Render(ctx, w); err != nil {
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
	// Full is set when HTML adds to the fragment the page has (the marks
	// new to it): Full renders the whole fragment as of this frame, for a
	// page that never got the fragment HTML adds to (a frame not yet sent
	// when the next came).
	Full func() []byte
}

// Renderer renders one viewer's frames of a live demo: it remembers, for
// each fragment, the key it last rendered and the hash of the HTML it last
// sent, so a frame costs what changed. It belongs to the goroutine that
// owns the Live.
type Renderer struct {
	live *Live
	// View is the viewer: language, session id, role, and the refusal shown.
	View View
	rn   *run     // the run the keys were taken from
	keys []uint64 // the key each fragment was last rendered with
	sums []uint64 // the hash of the HTML last sent; 0: never sent
	// Renders counts the fragments rendered, for tests.
	Renders int
	// Appends lets frames add the timeline's new marks to the page's
	// instead of sending them all: for a page whose every frame is sent,
	// or else its mailbox asks Full (an owner's socket; not a room's
	// followers, whose frames travel the bus and may be lost).
	Appends bool
	// lists are, by fragment, the keys of the items the page shows (the
	// marks, a log's lines), when Appends; a list's (List) are its items'
	// identities, then their keys.
	lists [][]uint64
	ends  []int // FrameInto's: where each fragment it appended ends in its buffer
	// HoldSnapshot leaves the snapshot out of the frames while it is set,
	// once the page has one: the page keeps it for a restart, and a slower
	// beat serves that as well (the caller sends it when it is owed,
	// SnapshotOwed). The snapshot was most of a busy frame's cost.
	HoldSnapshot bool
	// SnapshotSent is set by a frame that carried the snapshot.
	SnapshotSent bool
	snapOwed     bool // SnapshotOwed
}

// SnapshotOwed reports whether the page's snapshot may be older than the
// present's: a frame that changed something went while it was held. It
// reads a flag Frame keeps (the caller asks at every wake; the snapshot's
// key reads every fragment's).
func (r *Renderer) SnapshotOwed() bool { return r.snapOwed }

// Renderer returns a renderer of v's frames that has sent nothing yet.
func (l *Live) Renderer(v View) *Renderer {
	r := &Renderer{live: l, View: v}
	r.follow()
	return r
}

// follow takes its keys from the run the page shows now: a moment of the
// past, or the present. Every fragment is rendered again; those whose HTML
// did not change are not sent.
func (r *Renderer) follow() {
	rn := r.live.shown()
	if r.rn == rn {
		return
	}
	r.rn = rn
	n := len(r.live.frags())
	if len(r.sums) != n {
		r.sums = make([]uint64, n)
	}
	if len(r.keys) != n {
		r.keys = make([]uint64, n)
	}
	for i := range r.keys {
		r.keys[i] = ^uint64(0) // render, whatever its key
	}
}

// Len returns how many fragments the renderer renders.
func (r *Renderer) Len() int { return len(r.live.frags()) }

// Reset makes the next frame send every fragment: the page may have missed
// frames (a new connection), or the demo was replaced.
func (r *Renderer) Reset() { clear(r.sums) }

// Retarget points the renderer at another live demo (a restore replaced
// it) and sends everything next.
func (r *Renderer) Retarget(l *Live) {
	r.live, r.rn = l, nil
	r.follow()
	r.Reset()
}

// Key returns the key of fragment i (of Live.Fragments) for this viewer.
func (r *Renderer) Key(i int) uint64 {
	rn := r.live.shown()
	frags := r.live.frags()
	p := &frags[i]
	switch p.shared {
	case sharedError:
		return Str(r.View.Error)
	case sharedRoom:
		rp := r.View.room(r.live.kind.Prefix)
		return Mix(B(rp.Open), Str(rp.Code), Str(rp.URL), I(rp.Followers), B(rp.Refused))
	case sharedTimeline:
		return r.live.timelineKey(r.View)
	case sharedTrack:
		return r.live.trackKey(r.View)
	case sharedShare:
		return r.live.shareKey(r.View)
	case sharedMarks:
		return r.live.marksKey(r.View)
	case sharedSnapshot:
		// The snapshot holds the whole present: it changes with any of the
		// present's fragments, with its clock, with any accepted command
		// (which may change what no fragment shows), and with the log.
		cur := r.live.cur
		in := cur.in
		k := Mix(r.live.applied, r.live.logV.Key(), uint64(in.Now().Milliseconds()), B(in.Paused()), uint64(in.Speed()))
		for j := range frags {
			if sh := frags[j].shared; sh != sharedSnapshot && sh != sharedError && sh != sharedRoom && sh < sharedTimeline {
				k = Mix(k, demoKey(in, &frags[j]))
			}
		}
		return k
	}
	return demoKey(rn.in, p)
}

// Frame appends to out the fragments that changed since the last frame:
// those whose key changed are rendered, and those whose HTML differs from
// what was sent are appended. Their HTML is the receiver's.
func (r *Renderer) Frame(out []Rendered) ([]Rendered, error) {
	return r.FrameInto(out, nil)
}

// FrameInto is Frame writing the HTML of the fragments it appends into to
// (at its end): a buffer the receiver keeps until they are sent, then
// reuses (a frame's HTML was the largest of an action's allocations). The
// HTML appended is valid while to is neither written nor reset. A nil to:
// each fragment's HTML is allocated for the receiver to keep (Frame).
func (r *Renderer) FrameInto(out []Rendered, to *bytes.Buffer) ([]Rendered, error) {
	r.follow()
	r.SnapshotSent = false
	held, before := false, len(out)
	buf := to
	if buf == nil {
		buf = getBuffer()
		defer buffers.Put(buf)
	}
	// Offsets into buf of the HTML appended: buf may move as it grows, so
	// the slices are taken at the end.
	r.ends = r.ends[:0]
	base := buf.Len()
	// One templ context for the frame's fragments: each Render would make
	// its own. It dedupes only scripts and CSS components, which no
	// fragment has.
	ctx := templ.InitializeContext(context.Background())
	frags := r.live.frags()
	for i := range frags {
		p := &frags[i]
		if p.shared == sharedRoom && r.View.Role == RoleFollower {
			continue // a follower's page has no room panel of its own
		}
		if p.shared == sharedSnapshot && r.HoldSnapshot && r.sums[i] != 0 {
			held = true
			continue
		}
		k := r.Key(i)
		if r.sums[i] != 0 && r.keys[i] == k {
			continue
		}
		if p.shared == sharedSnapshot {
			r.snapOwed = false // rendered: the page has the present's, or gets it now
		}
		start := buf.Len()
		if p.shared == sharedMarks && r.Appends {
			out = r.appendMarks(ctx, out, i, k, buf)
		} else if p.shared == sharedLog && r.Appends {
			out = r.appendLog(ctx, out, i, k, buf)
		} else if p.shared == sharedList && r.Appends {
			out = r.appendList(ctx, out, i, k, buf)
		} else {
			r.Renders++
			if err := r.live.comp(r.rn, p, r.View).Render(ctx, buf); err != nil {
				buf.Truncate(base)
				return out[:before], fmt.Errorf("render %s: %w", p.ID, err)
			}
			r.keys[i] = k
			// The hash covers the fragment's id (its HTML starts with it),
			// and is never 0, which means "never sent".
			h := maphash.Bytes(htmlSeed, buf.Bytes()[start:]) | 1
			if r.sums[i] == h {
				buf.Truncate(start)
				continue
			}
			r.sums[i] = h
			if p.shared == sharedSnapshot {
				r.SnapshotSent = true
			}
			out = append(out, Rendered{ID: p.ID})
		}
		if len(out) > before+len(r.ends) {
			r.ends = append(r.ends, buf.Len())
		}
	}
	if held && len(out) > before {
		r.snapOwed = true
	}
	b, start := buf.Bytes(), base
	for j, end := range r.ends {
		out[before+j].HTML = b[start:end:end]
		start = end
	}
	if to == nil {
		for j := before; j < len(out); j++ {
			out[j].HTML = bytes.Clone(out[j].HTML)
		}
	}
	return out, nil
}

// appendMarks sends the timeline's marks (fragment i, whose key is now k)
// to a page that appends.
func (r *Renderer) appendMarks(ctx context.Context, out []Rendered, i int, k uint64, buf *bytes.Buffer) []Rendered {
	l := r.live
	refs, events := l.markRefs(r.View.Lang)
	keys := getKeys()
	defer putKeys(keys)
	for _, m := range refs {
		*keys = append(*keys, l.refKey(m, events))
	}
	pre := l.kind.Prefix
	return r.appendItems(ctx, out, i, k, *keys, buf, func() templ.Component { return ui.TimelineMarks(pre, l.markList(refs, events)) },
		func(drop, t int) templ.Component {
			return ui.TimelineMarksAdded(pre, drop, l.markList(refs[len(refs)-t:], events))
		})
}

// appendLog sends log fragment i (whose key is now k) to a page that
// appends. A busy log gains a line or two a frame, and its panel was the
// largest fragment of most frames. A log whose lines have identities
// (LogSource.Items) formats only the lines it adds.
func (r *Renderer) appendLog(ctx context.Context, out []Rendered, i int, k uint64, buf *bytes.Buffer) []Rendered {
	src, lang, in := r.live.frags()[i].more.log, r.View.Lang, r.rn.in
	scratch := getKeys()
	keys := *scratch // oldest first, whatever order the panel shows
	defer func() { *scratch = keys; putKeys(scratch) }()
	var lines []ui.LogLine
	if src.items != nil {
		keys = src.items(in, keys)
		shown := ui.Newest(keys) // as the panel shows Lines
		for j, key := range shown {
			shown[j] = Mix(key, I(int(lang[0])), r.rn.id)
		}
		keys = append(keys[:0], shown...)
		if src.newestFirst {
			slices.Reverse(keys)
		}
	} else {
		lines = ui.Newest(src.lines(in, lang))
		keys = slices.Grow(keys, len(lines))[:len(lines)]
		for j, ln := range lines {
			if src.newestFirst {
				j = len(lines) - 1 - j
			}
			keys[j] = Mix(I(ln.Seq), Str(ln.At), Str(ln.Kind), Str(ln.Text))
		}
	}
	return r.appendItems(ctx, out, i, k, keys, buf,
		func() templ.Component {
			if lines == nil {
				lines = ui.Newest(src.lines(in, lang))
			}
			return ui.Log(lang, src.prefix, src.title(lang), lines)
		},
		func(drop, t int) templ.Component {
			switch {
			case lines == nil:
				return ui.LogAdded(src.prefix, drop, src.newest(in, lang, t), src.newestFirst)
			case src.newestFirst:
				return ui.LogAdded(src.prefix, drop, lines[:t], true)
			}
			return ui.LogAdded(src.prefix, drop, lines[len(lines)-t:], false)
		})
}

// appendItems sends list fragment i (whose key is now k) to a page that
// appends, given the keys of its items, oldest first (the caller's: the
// renderer keeps a copy, in the array of the last): the items new to the
// page and how many of its oldest leave (add), when that makes the list;
// else the whole fragment (whole). A frame that adds carries the whole as
// its Full.
func (r *Renderer) appendItems(ctx context.Context, out []Rendered, i int, k uint64, keys []uint64, buf *bytes.Buffer,
	whole func() templ.Component, add func(drop, t int) templ.Component) []Rendered {
	if len(r.lists) != len(r.keys) {
		r.lists = make([][]uint64, len(r.keys))
	}
	sent := r.lists[i]
	if r.sums[i] == 0 {
		sent = nil // the page has none of ours
	}
	drop, t, ok := added(sent, keys)
	r.keys[i] = k
	r.lists[i], r.sums[i] = append(r.lists[i][:0], keys...), Mix(keys...)|1 // sent is read no more
	id := r.live.frags()[i].ID
	if ok && t == 0 && drop == 0 {
		return out
	}
	r.Renders++
	if !ok {
		_ = whole().Render(ctx, buf) // a bytes.Buffer takes every write
		return append(out, Rendered{ID: id})
	}
	_ = add(drop, t).Render(ctx, buf)
	// Full runs later, if at all (the mailbox asks it): its HTML is its own.
	return append(out, Rendered{ID: id, Full: func() []byte {
		r.Renders++
		var b bytes.Buffer
		_ = whole().Render(context.Background(), &b)
		return b.Bytes()
	}})
}

// appendList sends list fragment i (List, whose key is now k) to a page
// that appends: the items that came at one end of the list and how many
// left from the other, then each kept item whose key changed, as an
// element that replaces the page's; else the whole list. A frame that sends items carries the
// whole as its Full.
func (r *Renderer) appendList(ctx context.Context, out []Rendered, i int, k uint64, buf *bytes.Buffer) []Rendered {
	p := &r.live.frags()[i]
	src, lang, in := p.more.list, r.View.Lang, r.rn.in
	scratch := itemScratch.Get().(*[]Item)
	items := src.items(in, (*scratch)[:0])
	defer func() { *scratch = items[:0]; itemScratch.Put(scratch) }()
	// The page's order: identities, then keys; as the renderer keeps them.
	n := len(items)
	cur := getKeys()
	defer putKeys(cur)
	now := slices.Grow(*cur, 2*n)[:2*n]
	*cur = now
	for j, it := range items {
		now[j], now[n+j] = Mix(it.ID, r.rn.id), Mix(it.Key, I(int(lang[0])))
	}
	if len(r.lists) != len(r.keys) {
		r.lists = make([][]uint64, len(r.keys))
	}
	sent := r.lists[i]
	if r.sums[i] == 0 {
		sent = nil // the page has none of ours
	}
	// The items that came, at the list's end or at its start (atStart),
	// and how many of the page's leave from the other end.
	m := len(sent) / 2
	drop, t, ok := added(sent[:m], now[:n])
	atStart := false
	if !ok {
		drop, t, ok = prepended(sent[:m], now[:n])
		atStart = ok
	}
	var few [16]int
	changed := few[:0]
	if ok {
		kept, was := now[n:], sent[m+drop:] // the kept items' keys, now and as the page has them
		if atStart {
			kept, was = now[n+t:], sent[m:]
		}
		for j := range n - t {
			if kept[j] != was[j] {
				changed = append(changed, j)
			}
		}
		if atStart {
			for j := range changed {
				changed[j] += t
			}
		}
	}
	r.keys[i] = k
	r.lists[i], r.sums[i] = append(r.lists[i][:0], now...), Mix(now...)|1 // sent is read no more
	if ok && t == 0 && drop == 0 && len(changed) == 0 {
		return out
	}
	r.Renders++
	if !ok {
		_ = p.Comp(in, r.View).Render(ctx, buf) // a bytes.Buffer takes every write
		return append(out, Rendered{ID: p.ID})
	}
	if t > 0 || drop > 0 {
		from, swap := n-t, `beforeend`
		if atStart {
			from, swap = 0, `afterbegin`
		}
		buf.WriteString(`<ol id="` + html.EscapeString(p.ID) + `" hx-swap-oob="` + swap + `"`)
		if drop > 0 {
			buf.WriteString(` data-drop="` + strconv.Itoa(drop) + `"`)
		}
		buf.WriteString(`>`)
		for j := from; j < from+t; j++ {
			_ = src.item(in, lang, j).Render(ctx, buf)
		}
		buf.WriteString(`</ol>`)
	}
	for _, j := range changed {
		_ = src.item(in, lang, j).Render(ctx, buf)
	}
	// Full runs later, if at all (the mailbox asks it): its HTML is its own.
	v := r.View
	return append(out, Rendered{ID: p.ID, Full: func() []byte {
		r.Renders++
		var b bytes.Buffer
		_ = p.Comp(in, v).Render(context.Background(), &b)
		return b.Bytes()
	}})
}

// itemScratch holds a list's items while a frame compares them with those
// the page has.
var itemScratch = sync.Pool{New: func() any { return new([]Item) }}

// Render renders fragment i (of Live.Fragments) for this viewer.
func (r *Renderer) Render(i int, w io.Writer) error {
	return r.live.comp(r.live.shown(), &r.live.frags()[i], r.View).Render(context.Background(), w)
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

// keyScratch holds the keys of a list's items while a frame compares them
// with those the page has.
var keyScratch = sync.Pool{New: func() any { return new([]uint64) }}

func getKeys() *[]uint64 {
	k := keyScratch.Get().(*[]uint64)
	*k = (*k)[:0]
	return k
}

func putKeys(k *[]uint64) { keyScratch.Put(k) }
