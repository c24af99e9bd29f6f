// Package demo is the contract between the server and the demos: what a
// demo package gives the server (a Kind), what a live demo does for the
// session that owns it (an Instance), and the wire format of the actions a
// visitor sends (Decode).
//
// The server knows demos only through this contract and the registry
// (package demos); a demo knows nothing of sessions, sockets or rooms.
package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
	"unsafe"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	"github.com/reconcile-demo/reconcile-demo/internal/jsonw"
	"github.com/reconcile-demo/reconcile-demo/templates"
)

// Options configure the timing of every demo; the zero value is usable.
type Options = sim.Options

// Kind describes one demo: how it is named and routed, how a live one is
// made, restored and driven.
type Kind struct {
	// Name is the demo kind: its routes /<Name> and /embed/<Name>, its root's
	// data-testid="<Name>-demo", the socket's ?demo=<Name>.
	Name string
	// Prefix is the id prefix of its fragments ("rc": rc-clock, rc-log, …).
	Prefix string
	// Chapter names the chapters it serves, as they are numbered ("000").
	Chapter string
	// Title and Summary say what it is, for the page title, the header's
	// navigation and the chapters' index; Short is the navigation's label.
	Title, Short, Summary func(l templates.Lang) string
	// OnIndex puts a live copy of the demo on the home page.
	OnIndex bool
	// Intro is the line under its title; nil for none.
	Intro func(l templates.Lang) string
	// Actions is its own closed set of actions. The framework adds the
	// pace (step, pause, speed, reset, and controller where the demo has
	// one), restore and the rooms' actions.
	Actions map[string]Action
	// Controller says the demo has one controller switch (the "controller"
	// action; its Instance is a Switch).
	Controller bool
	// StepText is the label of its step button; nil for the shared
	// 「1回調整」.
	StepText func(l templates.Lang) string
	// Kills says k kills something (a pod, a member): the help lists the
	// key even while nothing is there to kill.
	Kills bool
	// Parts declares the demo's section once, for all its sessions (see
	// Part): the framework renders its fragments when their keys change and
	// composes the page from the same list.
	Parts *Layout
	// New returns the demo's starting state.
	New func(opt Options) Instance
	// Restore rebuilds a demo from a snapshot its page kept, after checking
	// every field and bound; any snapshot the demo could not have written
	// is an error.
	Restore func(opt Options, snapshot json.RawMessage) (Instance, error)
	// Shared names the files of static/ the demo's view uses beside those
	// every page links (app.css, site.min.js): "cluster.css" (pods, the
	// stepper, badges), "diff.css" (the diff line), "chart.css" and
	// "chart.js" (templates.Chart: its look, and its scrolling with the
	// clock). A page links them, the stylesheets before the demo's own.
	Shared []string
	// CSS is the demo's own stylesheet (its package embeds it), served as
	// /static/demo-<Name>.css and linked by every page that shows the demo;
	// nil when the shared ones are all it needs.
	CSS []byte
	// PresentCSS is the demo's own projector layout (body.present), served
	// as /static/demo-<Name>-present.css and linked only by pages in
	// projector mode, after static/present.css; nil when it needs none.
	PresentCSS []byte
	// Replay is the version of the demo's behaviour that its timelines
	// (links to a moment) replay: bump it when the same actions would no
	// longer give the same states, so that older links say so instead of
	// showing a wrong moment. 0 is 1.
	Replay int
	// Load is what the load generator (cmd/loadgen) sends to exercise the
	// demo: steps it cycles through from the starting state, each of which
	// changes what the page shows, so every step is answered by a frame.
	Load []LoadStep
}

// LoadStep is one action of the load generator and how it knows the
// answer: the first frame after Send that contains Expect (a fragment of
// HTML, such as `data-testid="desired" data-value="4"`) answers it. Expect
// must not be on the page before the step.
type LoadStep struct {
	Send   string
	Expect string
}

// Instance is one live demo's own part, inside the framework (Live): its
// engine on the virtual clock and its actions; its kind declares its parts.
// It is owned by one goroutine and never shared, so it needs no locks; it
// never blocks and never sleeps.
type Instance interface {
	// Pace is its virtual clock: the framework reads it for the clock and
	// the controls, and carries out pause and speed on it.
	Pace
	// Advance lets d of the caller's (real) time pass.
	Advance(d time.Duration)
	// NextDue returns how much of the caller's time may pass before
	// something changes by itself, and false when nothing will: a converged
	// or paused demo reports false, so its session sets no timer at all.
	NextDue() (time.Duration, bool)
	// Apply carries out a decoded command: the demo's own actions, and
	// step, reset and controller, which only the demo knows how to do. It
	// returns a *Rejection, and changes nothing, when the command does not
	// fit the demo's state (an unknown pod, a count out of range).
	Apply(c Command) error
	// SnapshotJSON is the demo's state as its page keeps it, for a restore.
	SnapshotJSON() string
	// Reconciles returns how many reconciles the demo has run, for metrics.
	Reconciles() int
}

// Pace is a demo's virtual clock, as the framework drives it.
type Pace interface {
	Now() time.Duration
	Paused() bool
	SetPaused(paused bool)
	Speed() sim.Speed
	SetSpeed(sp sim.Speed)
}

// View is how a demo is rendered: for whom, in which language.
type View struct {
	Lang  templates.Lang
	SID   string // the session id the page keeps; "" for a room's followers
	WSURL string // the socket the page connects to (Section only)
	Error string // the refusal of the last bad action, in Lang, or ""
	Role  string // RoleOwner (the default, "") or RoleFollower: a room's reader, who watches but cannot act
	// Room is the owner's room panel; nil while no room is open.
	Room *templates.RoomProps
	// Origin is the site's origin ("https://host"), for links to a moment.
	Origin string
	// PageLinks links to a moment by path ("/reconcile?moment=…"): a page,
	// which every host serves alike (its socket's frames bring the links
	// on its Origin).
	PageLinks bool
	// Moment is set on a page opened from a link to a moment: the link's
	// timeline, which the page hands its socket to start there (Section
	// only).
	Moment string
	// pristine is set by Section for a demo as Start made it: its page
	// carries no snapshot.
	pristine bool
	// inPage is set by Section: the page is rendered whole, with the
	// fragments that frames send apart (the timeline's marks).
	inPage bool
}

// InPage reports whether the fragment is rendered for a page, whole: a
// fragment that holds a list (List) then renders it with its items, and
// else leaves the page's as it is (an empty element with hx-preserve).
func (v View) InPage() bool { return v.inPage }

// room returns the room panel's props for a demo of prefix.
func (v View) room(prefix string) templates.RoomProps {
	if v.Room == nil {
		return templates.RoomProps{Prefix: prefix}
	}
	p := *v.Room
	p.Prefix = prefix
	return p
}

// Strict decodes a snapshot into v, refusing unknown fields and trailing
// data.
func Strict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode snapshot: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("decode snapshot: data after the object")
	}
	return nil
}

// RestoreWith makes a Kind's Restore from a demo's own: the snapshot is
// decoded strictly into S, then rebuilt (and checked) by restore. A failed
// restore returns a nil Instance, never a typed nil inside one.
func RestoreWith[S any, D Instance](restore func(Options, S) (D, error)) func(Options, json.RawMessage) (Instance, error) {
	return func(opt Options, raw json.RawMessage) (Instance, error) {
		var snap S
		if err := Strict(raw, &snap); err != nil {
			return nil, err
		}
		d, err := restore(opt, snap)
		if err != nil {
			return nil, err
		}
		return d, nil
	}
}

// SnapshotWriter is a demo that writes its snapshot's JSON (SnapshotJSON)
// into the page as it encodes it (WriteJSON): the snapshot is the largest
// text of an action's frame, and a string of it is a copy thrown away.
type SnapshotWriter interface {
	WriteSnapshotJSON(w io.Writer) error
}

// WriteJSON writes v to w as json.Marshal returns it, in one Write, with
// no copy of its own: the encoder's buffer comes from its pool.
func WriteJSON(w io.Writer, v any) error {
	return json.NewEncoder(oneLine{w}).Encode(v)
}

// oneLine drops the newline that json.Encoder writes after a value.
type oneLine struct{ w io.Writer }

func (o oneLine) Write(p []byte) (int, error) {
	if n := len(p); n > 0 && p[n-1] == '\n' {
		_, err := o.w.Write(p[:n-1])
		return n, err
	}
	return o.w.Write(p)
}

// MustJSON returns v as JSON: snapshots are plain structs, so an error is
// a bug.
func MustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("demo: snapshot: " + err.Error())
	}
	// b is Marshal's own copy, never written again: the string is its
	// bytes, not a second copy of a demo's largest text.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// AppendEnvelope appends the envelope's fields as json.Marshal writes a
// struct that embeds it, from the opening brace: the caller appends the
// struct's other fields and closes it.
func AppendEnvelope(b []byte, env sim.Envelope) []byte {
	b = strconv.AppendInt(append(b, `{"v":`...), int64(env.V), 10)
	if env.Kind != "" {
		b = jsonw.String(append(b, `,"kind":`...), env.Kind)
	}
	b = strconv.AppendInt(append(b, `,"now":`...), env.Now, 10)
	b = strconv.AppendBool(append(b, `,"paused":`...), env.Paused)
	return jsonw.String(append(b, `,"speed":`...), env.Speed)
}
