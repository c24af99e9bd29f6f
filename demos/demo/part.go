package demo

import (
	"hash/maphash"
	"math"
	"sync"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// A demo declares its section once, for all its sessions, as a list of
// parts (Kind.Parts). A fragment is an element with an id that frames
// replace: it has a key, a cheap summary of the inputs it reads (a version,
// a count) that changes whenever they do, and a component. Both are
// functions of the demo (the session's Instance), so the list holds no
// session's state: a session costs its demo, not a copy of its layout. The
// framework (Live) renders a fragment only when its key changed since the
// last frame of the same viewer, sends it only when its HTML changed, and
// composes the page's section from the same list, so the page and the
// frames can never disagree on what a fragment is.
//
// What the page draws from its own clock between frames (a countdown's
// text, a chart's scrolling) is not an input: a fragment need not be sent
// again because only time moved on. A key must never come back for other
// content: a demo whose counters
// start again (a reset builds its state afresh) mixes in an epoch that only
// grows.
//
// Boxes group parts in a <div class="…"> for the layout (Around, in an
// element of the demo's own); static parts (the one-line notes where a
// demo simplifies, titles) render once with the page and never change.

// Layout is a demo's section as declared (Declare): its parts, and every
// fragment in section order with the framework's own (the clock, the
// timeline, its range, marks and link, the room) around the demo's, listed once for all
// sessions of the kind.
type Layout struct {
	parts []Part
	once  sync.Once
	frags []Part
}

// Declare declares a demo's section: its parts, in the page's order.
func Declare(parts ...Part) *Layout { return &Layout{parts: parts} }

// fragments returns every fragment of the section for a kind of prefix,
// with the shared ones named: listed on first use, then kept.
func (s *Layout) fragments(prefix string) []Part {
	s.once.Do(func() {
		s.frags = append(s.frags, Part{ID: prefix + "-clock", shared: sharedClock})
		var walk func(ps []Part)
		walk = func(ps []Part) {
			for _, p := range ps {
				switch {
				case p.layout() != nil:
					walk(p.more.parts)
				case p.ID != "" || p.shared != notShared:
					p.ID = sharedID(prefix, p)
					s.frags = append(s.frags, p)
					if p.more != nil {
						walk(p.more.held)
					}
				}
			}
		}
		walk(s.parts)
		s.frags = append(s.frags, Part{ID: prefix + "-timeline", shared: sharedTimeline},
			Part{ID: prefix + "-timeline-track", shared: sharedTrack},
			Part{ID: prefix + "-timeline-marks", shared: sharedMarks},
			Part{ID: prefix + "-timeline-share", shared: sharedShare},
			Part{ID: prefix + "-room", shared: sharedRoom})
	})
	return s.frags
}

// sharedID returns the id of a part: a shared fragment's is the prefix's.
func sharedID(prefix string, p Part) string {
	switch p.shared {
	case sharedControls:
		return prefix + "-controls"
	case sharedError:
		return prefix + "-error"
	case sharedLive:
		return prefix + "-live"
	case sharedSnapshot:
		return prefix + "-snapshot"
	}
	return p.ID
}

// Part is one piece of a demo's section: a fragment, a box of parts, static
// content, or one of the framework's shared fragments.
type Part struct {
	// ID is a fragment's element id; "" for a box or static content.
	ID string
	// Key summarizes what the fragment reads of the demo: equal keys mean
	// equal HTML for the same viewer. Nil for static content.
	Key func(in Instance) uint64
	// Comp renders the part of the demo for a viewer.
	Comp func(in Instance, v View) templ.Component

	shared shared    // one of the framework's fragments
	more   *partMore // what few parts have (a box, an enclosure, the live region)
}

// partMore is what a box, an enclosure or the live region has beside a
// Part's own fields.
type partMore struct {
	class  string                              // a box: the class of its <div>
	parts  []Part                              // a box's parts, or an enclosure's
	around bool                                // an enclosure: Comp renders parts as its children
	text   func(in Instance, l ui.Lang) string // the live region's sentence
	log    *logMore                            // a log panel's source
	list   *listMore                           // a list's source
	held   []Part                              // the lists a fragment holds (Holding)
}

// listMore is a list's source, for frames that send only its items that
// changed or came (Renderer.Appends).
type listMore struct {
	items func(in Instance, items []Item) []Item
	item  func(in Instance, l ui.Lang, j int) templ.Component
}

// logMore is a log panel's source, for frames that add its new lines to
// the page's (Renderer.Appends).
type logMore struct {
	prefix      string
	lines       func(in Instance, l ui.Lang) []ui.LogLine
	title       func(l ui.Lang) string
	newestFirst bool
	items       func(in Instance, keys []uint64) []uint64        // LogSource.Items, or nil
	newest      func(in Instance, l ui.Lang, n int) []ui.LogLine // LogSource.Newest, with items
}

// layout returns p's box or enclosure, or nil.
func (p *Part) layout() *partMore {
	if p.more != nil && (p.more.class != "" || p.more.around) {
		return p.more
	}
	return nil
}

// shared names a fragment every demo has, rendered by the framework.
type shared int

const (
	notShared shared = iota
	sharedControls
	sharedError
	sharedSnapshot
	sharedLive
	sharedLog
	sharedList
)

// Fragment declares a fragment of demos of type D: the element with id,
// rendered by comp whenever key changes. Both are given the session's
// demo: method expressions ((*Demo).fooKey) serve.
func Fragment[D Instance](id string, key func(d D) uint64, comp func(d D, v View) templ.Component) Part {
	return Part{ID: id,
		Key:  func(in Instance) uint64 { return key(in.(D)) },
		Comp: func(in Instance, v View) templ.Component { return comp(in.(D), v) }}
}

// Static declares content that is rendered with the page only: it carries
// no id and no frame ever replaces it. It reads no demo: the page shows it
// whatever the state.
func Static(comp func(v View) templ.Component) Part {
	return Part{Comp: func(_ Instance, v View) templ.Component { return comp(v) }}
}

// Note declares a one-line note where the demo simplifies real
// Kubernetes: static content, on the page from its first load whatever the
// state, placed next to the part it concerns. topic names it (data-topic)
// for tests and the demo's README; text says it in a language.
func Note(topic string, text func(l ui.Lang) string) Part {
	return Static(func(v View) templ.Component { return ui.Note(topic, text(v.Lang)) })
}

// Box lays parts out inside <div class="class">.
func Box(class string, parts ...Part) Part {
	return Part{more: &partMore{class: class, parts: parts}}
}

// Around lays parts out inside the element comp renders, where it says
// { children... }: a wrapper that is more than a <div class="…"> (a
// <section> with a heading and test ids of its own). Like a box, it is
// rendered with the page only, and reads no demo; its parts are fragments
// like any other.
func Around(comp func(v View) templ.Component, parts ...Part) Part {
	return Part{Comp: func(_ Instance, v View) templ.Component { return comp(v) },
		more: &partMore{parts: parts, around: true}}
}

// Controls places the pace controls (the controller switch where the demo
// has one, step, pause, speed and reset): <prefix>-controls.
func Controls() Part { return Part{shared: sharedControls} }

// Error places the refusal of the viewer's last bad action: <prefix>-error.
func Error() Part { return Part{shared: sharedError} }

// Snapshot places the demo's state for the page to keep: <prefix>-snapshot.
func Snapshot() Part { return Part{shared: sharedSnapshot} }

// LiveText places the polite live region that says each reconcile in one
// sentence: <prefix>-live. key changes whenever text would.
func LiveText[D Instance](key func(d D) uint64, text func(d D, l ui.Lang) string) Part {
	return Part{shared: sharedLive,
		Key:  func(in Instance) uint64 { return key(in.(D)) },
		more: &partMore{text: func(in Instance, l ui.Lang) string { return text(in.(D), l) }}}
}

// LogSource is a log the page shows of demos of type D: a key that
// changes with every event (the newest event's number, with the demo's
// epoch if a reset starts the numbers again), its newest lines in a
// language, and its title.
type LogSource[D Instance] struct {
	Key   func(d D) uint64
	Lines func(d D, l ui.Lang) []ui.LogLine
	Title func(l ui.Lang) string
	// NewestFirst says Lines come newest first (the panel lists them so):
	// frames then add new lines at the list's start.
	NewestFirst bool
	// Items, when set, appends to keys the identity of each line Lines
	// returns, in the same order, without formatting any: a value that
	// changes whenever the line's text would (an entry's number with the
	// demo's epoch, where entries never change once written), within the
	// demo (the framework tells demos apart: a moment of the past is
	// replayed into a demo of its own). A frame that
	// adds lines to the page's then formats only those (Newest), where it
	// formatted the whole panel to find them.
	Items func(d D, keys []uint64) []uint64
	// Newest, with Items, returns the n newest of Lines' lines in l, in
	// Lines' order.
	Newest func(d D, l ui.Lang, n int) []ui.LogLine
}

// EventLog is the LogSource of a demo's sim.Log, whose numbers start again
// only with a new epoch (a reset): its key and its lines' identities are
// the events' numbers within the epoch, so a frame formats only the lines
// it adds (lines formats events in a language).
func EventLog[D Instance](log func(d D) *sim.Log, epoch func(d D) uint64,
	lines func(l ui.Lang, events []sim.Event) []ui.LogLine, title func(l ui.Lang) string) LogSource[D] {
	return LogSource[D]{
		Key:   func(d D) uint64 { return Mix(epoch(d), uint64(log(d).Seq())) },
		Lines: func(d D, l ui.Lang) []ui.LogLine { return lines(l, log(d).Newest(ui.LogShown)) },
		Title: title,
		Items: func(d D, keys []uint64) []uint64 {
			n, ep := len(keys), epoch(d)
			keys = log(d).AppendSeqs(keys, ui.LogShown)
			for j := n; j < len(keys); j++ {
				keys[j] = Mix(ep, keys[j])
			}
			return keys
		},
		Newest: func(d D, l ui.Lang, n int) []ui.LogLine { return lines(l, log(d).Newest(n)) },
	}
}

// Log places a log panel owning id (the demo's prefix for its main log,
// "<prefix>-log"; another prefix for a second log).
func Log[D Instance](prefix string, src LogSource[D]) Part {
	lines := func(in Instance, l ui.Lang) []ui.LogLine { return src.Lines(in.(D), l) }
	m := &logMore{prefix: prefix, lines: lines, title: src.Title, newestFirst: src.NewestFirst}
	if src.Items != nil {
		m.items = func(in Instance, keys []uint64) []uint64 { return src.Items(in.(D), keys) }
		m.newest = func(in Instance, l ui.Lang, n int) []ui.LogLine { return src.Newest(in.(D), l, n) }
	}
	return Part{ID: prefix + "-log", shared: sharedLog,
		Key: func(in Instance) uint64 { return src.Key(in.(D)) },
		Comp: func(in Instance, v View) templ.Component {
			return ui.Log(v.Lang, prefix, src.Title(v.Lang), lines(in, v.Lang))
		},
		more: &partMore{log: m}}
}

// Item is one item of a list (ListSource): its identity, which it keeps
// while it is on the page, and its key, which changes whenever its HTML
// would.
type Item struct{ ID, Key uint64 }

// ListSource is a list the page shows of demos of type D whose items
// change in place (a stream's events, delivered or lost, newer ones
// coming and the oldest leaving), where a log's lines never change. A
// frame sends only the items whose key changed, each as an element of its
// own that replaces the page's of the same id, with the items that came at
// the list's end and how many of its oldest left. A list comes whole on a
// page's first frame, to a room's followers, and when it changed
// otherwise (emptied, cut in its middle, reordered).
type ListSource[D Instance] struct {
	// Key changes whenever any item's would, or the items themselves.
	Key func(d D) uint64
	// Items appends to items each item of the list, in the page's order,
	// formatting none. An identity must stand for the same item within
	// the demo (the framework tells demos apart: a moment of the past is
	// replayed into a demo of its own), as a log's must.
	Items func(d D, items []Item) []Item
	// Whole renders the list: an <ol> owning the fragment's id, holding
	// every item.
	Whole func(d D, v View) templ.Component
	// Item renders item j of those Items gave: an <li> with an id of its
	// own, unique in the page.
	Item func(d D, l ui.Lang, j int) templ.Component
}

// List places a list owning id. It may sit inside another fragment, which
// then renders it whole on the page (View.InPage) and else as an empty
// element with hx-preserve, as the timeline holds its marks: the page
// keeps its own, which the list's frames keep up to date.
func List[D Instance](id string, src ListSource[D]) Part {
	return Part{ID: id, shared: sharedList,
		Key:  func(in Instance) uint64 { return src.Key(in.(D)) },
		Comp: func(in Instance, v View) templ.Component { return src.Whole(in.(D), v) },
		more: &partMore{list: &listMore{
			items: func(in Instance, items []Item) []Item { return src.Items(in.(D), items) },
			item:  func(in Instance, l ui.Lang, j int) templ.Component { return src.Item(in.(D), l, j) },
		}}}
}

// Holding declares that fragment p holds lists (List): it renders them
// inside itself, whole on the page and else as the page has them, and
// each is a fragment of its own in frames, after p.
func Holding(p Part, lists ...Part) Part {
	m := partMore{}
	if p.more != nil {
		m = *p.more
	}
	m.held = append(m.held, lists...)
	p.more = &m
	return p
}

// Keys.

// Mix combines values into one key: equal inputs give equal keys, and a
// change of any input changes the key (but for a 2^-64 chance).
func Mix(vals ...uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range vals {
		h ^= v
		h *= 1099511628211
		h ^= h >> 29
	}
	return h
}

// B is a bool as a key input.
func B(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// I is an int as a key input.
func I(n int) uint64 { return uint64(n) }

// Str is a string as a key input.
func Str(s string) uint64 { return maphash.String(keySeed, s) }

// F64 is a float as a key input.
func F64(f float64) uint64 { return math.Float64bits(f) }

var keySeed = maphash.MakeSeed()

// Version counts the changes of some state a fragment reads: the demo
// bumps it wherever that state changes, and the fragment's key reads it.
type Version uint64

// Bump records a change.
func (v *Version) Bump() { *v++ }

// Key returns the version as a key input.
func (v *Version) Key() uint64 { return uint64(*v) }
