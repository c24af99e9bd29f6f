package triggers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
	"github.com/reconcile-demo/reconcile-demo/internal/jsonw"
)

// Snapshot is the demo as the page keeps it: the envelope (version, kind,
// clock and pace) and the engine's world (both clusters, the edge
// controller's memory, both streams with the events in flight, the switches
// and the lesson). Times are virtual milliseconds. The controllers' logs are
// not kept: a restored demo starts them with a note that it was restored.
//
// The envelope's now and the world's now are the same clock, written twice
// (once for every demo's envelope, once for the engine's own snapshot):
// restore refuses a snapshot where they differ.
type Snapshot struct {
	sim.Envelope
	World World `json:"world"`
}

// World is engine.Snapshot with each stream's events and copies in flight
// written as arrays instead of objects. The page sends its snapshot back in
// one socket message of at most 8 KB; a stream keeps up to StreamShown +
// MaxInFlight events, and with their keys spelled out a busy world's
// snapshot passes 9 KB, without them it stays near half that. Every value
// is the engine's, which checks them all in its Restore.
type World struct {
	V       int                 `json:"v"`
	Now     int64               `json:"now"`
	Desired int                 `json:"desired"`
	Drop    bool                `json:"drop,omitempty"`
	DownIn  int64               `json:"downIn,omitempty"`
	Level   Side                `json:"level"`
	Edge    Side                `json:"edge"`
	Known   []string            `json:"known"`
	Lesson  *engine.LessonState `json:"lesson,omitempty"`
}

// Side is engine.SideState with a compact stream.
type Side struct {
	Seq    int               `json:"seq"`
	Pods   []engine.PodState `json:"pods"`
	Stream Stream            `json:"stream"`
}

// Stream is engine.StreamState with its events and copies as arrays.
type Stream struct {
	Seq      int     `json:"seq"`
	DupNext  bool    `json:"dupNext,omitempty"`
	SwapNext bool    `json:"swapNext,omitempty"`
	Held     int     `json:"held,omitempty"`
	Events   []Event `json:"events"`
	Queue    []Copy  `json:"queue"`
}

// Event is an engine.EventState written as
// [seq, kind, pod, old, new, fate, loss, emittedAt, delivered, deliveredAt].
type Event engine.EventState

// Copy is an engine.CopyState written as [seq, in].
type Copy engine.CopyState

// MarshalJSON writes the event as an array.
func (e Event) MarshalJSON() ([]byte, error) {
	return appendEvent(make([]byte, 0, 96), engine.EventState(e)), nil
}

// appendEvent appends e as an Event's array.
func appendEvent(b []byte, e engine.EventState) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(e.Seq), 10)
	for _, s := range [...]string{e.Kind, e.Pod} {
		b = jsonw.String(append(b, ','), s)
	}
	for _, n := range [...]int{e.Old, e.New} {
		b = strconv.AppendInt(append(b, ','), int64(n), 10)
	}
	for _, s := range [...]string{e.Fate, e.Loss} {
		b = jsonw.String(append(b, ','), s)
	}
	b = strconv.AppendInt(append(b, ','), e.EmittedAt, 10)
	b = strconv.AppendInt(append(b, ','), int64(e.Delivered), 10)
	b = strconv.AppendInt(append(b, ','), e.DeliveredAt, 10)
	return append(b, ']')
}

// UnmarshalJSON reads an event's array: exactly its ten values, each of its
// type (no null, no fraction, no other length).
func (e *Event) UnmarshalJSON(b []byte) error {
	var x Event
	if err := decodeArray(b, &x.Seq, &x.Kind, &x.Pod, &x.Old, &x.New, &x.Fate, &x.Loss, &x.EmittedAt, &x.Delivered, &x.DeliveredAt); err != nil {
		return fmt.Errorf("event: %w", err)
	}
	*e = x
	return nil
}

// MarshalJSON writes the copy as an array.
func (c Copy) MarshalJSON() ([]byte, error) {
	return appendCopy(nil, engine.CopyState(c)), nil
}

// appendCopy appends c as a Copy's array.
func appendCopy(b []byte, c engine.CopyState) []byte {
	b = strconv.AppendInt(append(b, '['), int64(c.Seq), 10)
	b = strconv.AppendInt(append(b, ','), c.In, 10)
	return append(b, ']')
}

// UnmarshalJSON reads a copy's array of exactly two numbers.
func (c *Copy) UnmarshalJSON(b []byte) error {
	var x Copy
	if err := decodeArray(b, &x.Seq, &x.In); err != nil {
		return fmt.Errorf("copy in flight: %w", err)
	}
	*c = x
	return nil
}

// decodeArray reads a JSON array of exactly len(into) values into them.
func decodeArray(b []byte, into ...any) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) != len(into) {
		return fmt.Errorf("%d values, want %d", len(raw), len(into))
	}
	for i, r := range raw {
		if bytes.Equal(bytes.TrimSpace(r), []byte("null")) {
			return fmt.Errorf("value %d is null", i)
		}
		if err := json.Unmarshal(r, into[i]); err != nil {
			return fmt.Errorf("value %d: %w", i, err)
		}
	}
	return nil
}

func compactWorld(s engine.Snapshot) World {
	return World{V: s.V, Now: s.Now, Desired: s.Desired, Drop: s.Drop, DownIn: s.DownIn,
		Level: compactSide(s.Level), Edge: compactSide(s.Edge), Known: s.Known, Lesson: s.Lesson}
}

func compactSide(s engine.SideState) Side {
	st := s.Stream
	out := Side{Seq: s.Seq, Pods: s.Pods, Stream: Stream{Seq: st.Seq, DupNext: st.DupNext, SwapNext: st.SwapNext, Held: st.Held,
		Events: make([]Event, len(st.Events)), Queue: make([]Copy, len(st.Queue))}}
	for i, e := range st.Events {
		out.Stream.Events[i] = Event(e)
	}
	for i, c := range st.Queue {
		out.Stream.Queue[i] = Copy(c)
	}
	return out
}

// engine returns the world as the engine's snapshot.
func (w World) engine() engine.Snapshot {
	return engine.Snapshot{V: w.V, Now: w.Now, Desired: w.Desired, Drop: w.Drop, DownIn: w.DownIn,
		Level: w.Level.engine(), Edge: w.Edge.engine(), Known: w.Known, Lesson: w.Lesson}
}

func (s Side) engine() engine.SideState {
	st := s.Stream
	out := engine.SideState{Seq: s.Seq, Pods: s.Pods, Stream: engine.StreamState{Seq: st.Seq, DupNext: st.DupNext,
		SwapNext: st.SwapNext, Held: st.Held, Events: make([]engine.EventState, len(st.Events)), Queue: make([]engine.CopyState, len(st.Queue))}}
	for i, e := range st.Events {
		out.Stream.Events[i] = engine.EventState(e)
	}
	for i, c := range st.Queue {
		out.Stream.Queue[i] = engine.CopyState(c)
	}
	return out
}

// Snapshot returns the demo's snapshot.
func (d *Demo) Snapshot() Snapshot {
	return Snapshot{Envelope: d.Envelope(Name), World: compactWorld(d.w.Snapshot())}
}

// RestoreDemo rebuilds a demo from a snapshot after checking every field
// and bound (the envelope here, the world in the engine's Restore). It
// returns an error, and no demo, for any snapshot this package could not
// have written.
func RestoreDemo(snap Snapshot) (*Demo, error) {
	clock, err := snap.Envelope.Clock(Name)
	if err != nil {
		return nil, err
	}
	w, err := engine.Restore(snap.World.engine())
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if w.Now() != clock.Now() {
		return nil, fmt.Errorf("snapshot: the world's clock %dms and the envelope's %dms differ", snap.World.Now, snap.Now)
	}
	now := time.Duration(snap.Now) * time.Millisecond
	return newDemo(clock, w, &sim.Event{Kind: NoteRestored, At: now}), nil
}

// written is what WriteSnapshotJSON reuses from one frame to the next: the
// engine's snapshot's arrays and the JSON's bytes.
type written struct {
	snap engine.Snapshot
	b    []byte
}

var writtenPool = sync.Pool{New: func() any { return new(written) }}

// appendSnapshot appends the snapshot of env and s as json.Marshal writes
// Snapshot{env, compactWorld(s)}, field for field: a frame writes the
// snapshot every time the world moves, and encoding/json finds its way
// through the structs by reflection, with an allocation for each event.
// TestSnapshotWrittenAsMarshalled holds the two equal, world after world.
func appendSnapshot(b []byte, env sim.Envelope, s *engine.Snapshot) []byte {
	b = demo.AppendEnvelope(b, env)
	b = strconv.AppendInt(append(b, `,"world":{"v":`...), int64(s.V), 10)
	b = strconv.AppendInt(append(b, `,"now":`...), s.Now, 10)
	b = strconv.AppendInt(append(b, `,"desired":`...), int64(s.Desired), 10)
	if s.Drop {
		b = append(b, `,"drop":true`...)
	}
	if s.DownIn != 0 {
		b = strconv.AppendInt(append(b, `,"downIn":`...), s.DownIn, 10)
	}
	b = appendSide(append(b, `,"level":`...), &s.Level)
	b = appendSide(append(b, `,"edge":`...), &s.Edge)
	b = append(b, `,"known":`...)
	if s.Known == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, n := range s.Known {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.String(b, n)
		}
		b = append(b, ']')
	}
	if s.Lesson != nil {
		b = jsonw.String(append(b, `,"lesson":{"reason":`...), s.Lesson.Reason)
		b = strconv.AppendInt(append(b, `,"at":`...), s.Lesson.At, 10)
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

// appendSide appends a Side: the pods as objects, the stream's events and
// copies as arrays.
func appendSide(b []byte, s *engine.SideState) []byte {
	b = strconv.AppendInt(append(b, `{"seq":`...), int64(s.Seq), 10)
	b = append(b, `,"pods":`...)
	if s.Pods == nil { // compactSide passes the pods on as they are
		b = append(b, "null"...)
	} else {
		b = appendList(b, s.Pods, podJSON)
	}
	st := &s.Stream
	b = strconv.AppendInt(append(b, `,"stream":{"seq":`...), int64(st.Seq), 10)
	if st.DupNext {
		b = append(b, `,"dupNext":true`...)
	}
	if st.SwapNext {
		b = append(b, `,"swapNext":true`...)
	}
	if st.Held != 0 {
		b = strconv.AppendInt(append(b, `,"held":`...), int64(st.Held), 10)
	}
	b = appendList(append(b, `,"events":`...), st.Events, appendEvent)
	b = appendList(append(b, `,"queue":`...), st.Queue, appendCopy)
	return append(b, "}}"...)
}

// podJSON appends a pod as encoding/json writes a PodState.
func podJSON(b []byte, p engine.PodState) []byte {
	b = jsonw.String(append(b, `{"name":`...), p.Name)
	b = jsonw.String(append(b, `,"phase":`...), p.Phase)
	if p.StartsIn != 0 {
		b = strconv.AppendInt(append(b, `,"startsIn":`...), p.StartsIn, 10)
	}
	return append(b, '}')
}

// appendList appends xs as a JSON array of what each writes, [] for nil
// too (compactSide makes the stream's lists anew, never nil).
func appendList[E any](b []byte, xs []E, each func([]byte, E) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, x)
	}
	return append(b, ']')
}
