package triggers

import (
	"fmt"
	"slices"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

// SnapshotVersion is the version of the snapshots this package writes and
// reads. A snapshot of another version is refused.
const SnapshotVersion = 1

// Snapshot is the whole world as the page keeps it: both clusters, the edge
// controller's memory, both streams with the events in flight, the switches
// and the lesson. Times are virtual milliseconds: Now and the *At fields
// since the world began, the *In fields from Now. The controllers' logs are
// not kept: a restored world starts them empty.
type Snapshot struct {
	V       int          `json:"v"`
	Now     int64        `json:"now"`
	Desired int          `json:"desired"`
	Drop    bool         `json:"drop,omitempty"`
	DownIn  int64        `json:"downIn,omitempty"` // while restarting: how long until the controllers are up
	Level   SideState    `json:"level"`
	Edge    SideState    `json:"edge"`
	Known   []string     `json:"known"` // the edge controller's memory, sorted
	Lesson  *LessonState `json:"lesson,omitempty"`
}

// SideState is one side's cluster and stream in a snapshot.
type SideState struct {
	Seq    int         `json:"seq"` // the number of the last pod created
	Pods   []PodState  `json:"pods"`
	Stream StreamState `json:"stream"`
}

// PodState is one pod in a snapshot. StartsIn is set for Pending pods only.
type PodState struct {
	Name     string `json:"name"`
	Phase    string `json:"phase"`
	StartsIn int64  `json:"startsIn,omitempty"`
}

// StreamState is one stream in a snapshot.
type StreamState struct {
	Seq      int          `json:"seq"` // the Seq of the last event emitted
	DupNext  bool         `json:"dupNext,omitempty"`
	SwapNext bool         `json:"swapNext,omitempty"`
	Held     int          `json:"held,omitempty"` // Seq of the event waiting for its swap partner
	Events   []EventState `json:"events"`
	Queue    []CopyState  `json:"queue"` // copies in flight, in delivery order
}

// EventState is one event in a snapshot.
type EventState struct {
	Seq         int    `json:"seq"`
	Kind        string `json:"kind"`
	Pod         string `json:"pod,omitempty"`
	Old         int    `json:"old,omitempty"`
	New         int    `json:"new,omitempty"`
	Fate        string `json:"fate"`
	Loss        string `json:"loss,omitempty"`
	EmittedAt   int64  `json:"emittedAt"`
	Delivered   int    `json:"delivered,omitempty"`
	DeliveredAt int64  `json:"deliveredAt,omitempty"`
}

// CopyState is one copy of an event in flight.
type CopyState struct {
	Seq int   `json:"seq"`
	In  int64 `json:"in"`
}

// LessonState is the lesson in a snapshot.
type LessonState struct {
	Reason string `json:"reason"`
	At     int64  `json:"at"`
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// Snapshot returns the world's snapshot.
func (w *World) Snapshot() Snapshot {
	var snap Snapshot
	w.SnapshotInto(&snap)
	return snap
}

// SnapshotInto writes the world's snapshot into snap, as Snapshot returns
// it, reusing the arrays of snap's slices: a page's snapshot is written
// with every frame, and Snapshot would build every slice of it anew. What
// snap held before is overwritten, so nothing else may still read it.
func (w *World) SnapshotInto(snap *Snapshot) {
	*snap = Snapshot{V: SnapshotVersion, Now: ms(w.now), Desired: w.desired, Drop: w.drop,
		Level: w.sideState(Level, snap.Level), Edge: w.sideState(Edge, snap.Edge),
		Known: w.edge.AppendKnown(snap.Known[:0]), Lesson: snap.Lesson}
	if snap.Known == nil {
		snap.Known = []string{} // as Known returns it: [] in JSON, not null
	}
	if w.down {
		snap.DownIn = ms(w.upAt - w.now)
	}
	if w.lesson.Row == RowNone {
		snap.Lesson = nil
	} else {
		if snap.Lesson == nil {
			snap.Lesson = new(LessonState)
		}
		*snap.Lesson = LessonState{Reason: string(w.lesson.Reason), At: ms(w.lesson.At)}
	}
}

// sideState returns side s's state, its slices appended to the arrays of
// into's.
func (w *World) sideState(s Side, into SideState) SideState {
	sd := &w.sides[s]
	var buf [16]reconcile.Pod
	pods := w.appendPods(s, buf[:0])
	st := SideState{Seq: w.levelCl.Seq(), Pods: reuse(into.Pods, len(pods))}
	for _, p := range pods {
		ps := PodState{Name: p.Name, Phase: p.Phase.String()}
		if at, ok := sd.startAt[p.Name]; ok {
			ps.StartsIn = ms(at - w.now)
		}
		st.Pods = append(st.Pods, ps)
	}
	if s == Edge {
		st.Seq = w.edgeCl.Seq()
	}
	str := &sd.stream
	st.Stream = StreamState{Seq: str.seq, DupNext: str.dupNext, SwapNext: str.swapNext, Held: str.held,
		Events: reuse(into.Stream.Events, len(str.events)), Queue: reuse(into.Stream.Queue, len(str.queue))}
	for _, e := range str.events {
		es := EventState{Seq: e.Seq, Kind: e.Kind.String(), Pod: e.Pod.String(), Old: e.Old, New: e.New,
			Fate: e.Fate.String(), Loss: e.Loss.String(), EmittedAt: ms(e.EmittedAt), Delivered: e.Delivered}
		if e.Delivered > 0 {
			es.DeliveredAt = ms(e.DeliveredAt)
		}
		st.Stream.Events = append(st.Stream.Events, es)
	}
	for _, d := range str.queue {
		st.Stream.Queue = append(st.Stream.Queue, CopyState{Seq: d.seq, In: ms(d.at - w.now)})
	}
	return st
}

// maxCopyIn bounds how far ahead a copy in flight can be due. No event
// overtakes a swapped pair, so pairs emitted back to back queue one behind
// the other, SwapGap each; at most MaxInFlight events are in flight, so
// fewer than MaxInFlight pairs chain; a duplicate's second copy adds
// DuplicateGap.
const maxCopyIn = DeliveryDelay + MaxInFlight*SwapGap + DuplicateGap

// Restore rebuilds a world from a snapshot after checking every field and
// bound. It returns an error, and no world, for any snapshot this package
// could not have written.
func Restore(snap Snapshot) (*World, error) {
	w, err := restore(snap)
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	return w, nil
}

func restore(snap Snapshot) (*World, error) {
	if snap.V != SnapshotVersion {
		return nil, fmt.Errorf("version %d, want %d", snap.V, SnapshotVersion)
	}
	if snap.Now < 0 || snap.Now > maxNowMs {
		return nil, fmt.Errorf("time %d out of range", snap.Now)
	}
	if snap.Desired < 0 || snap.Desired > MaxDesired {
		return nil, fmt.Errorf("desired %d out of range [0, %d]", snap.Desired, MaxDesired)
	}
	if snap.DownIn < 0 || snap.DownIn > RestartTime.Milliseconds() {
		return nil, fmt.Errorf("restart time left %d out of range", snap.DownIn)
	}
	now := time.Duration(snap.Now) * time.Millisecond
	w := &World{now: now, desired: snap.Desired, drop: snap.Drop, down: snap.DownIn > 0,
		upAt: now + time.Duration(snap.DownIn)*time.Millisecond, tickAt: nextTick(now)}

	// The level side: chapter 000's cluster, rebuilt by its own Restore.
	// Its controller never lets more than MaxDesired pods exist.
	lpods, lstart, err := restorePods(snap.Level, MaxDesired, now)
	if err != nil {
		return nil, fmt.Errorf("level: %w", err)
	}
	if w.levelCl, err = reconcile.Restore(lpods, snap.Level.Seq); err != nil {
		return nil, fmt.Errorf("level: %w", err)
	}
	w.level = reconcile.New(snap.Desired)

	epods, estart, err := restorePods(snap.Edge, MaxPods, now)
	if err != nil {
		return nil, fmt.Errorf("edge: %w", err)
	}
	w.edgeCl = newCluster()
	w.edgeCl.seq = snap.Edge.Seq
	for _, p := range epods {
		w.edgeCl.pods[p.Name] = &reconcile.Pod{Name: p.Name, Phase: p.Phase}
	}

	if len(snap.Known) > MaxKnown {
		return nil, fmt.Errorf("edge controller knows %d pods, at most %d", len(snap.Known), MaxKnown)
	}
	if w.down && len(snap.Known) > 0 {
		return nil, fmt.Errorf("edge controller remembers pods while restarting")
	}
	for i, n := range snap.Known {
		if _, ok := podNumber(n, snap.Edge.Seq); !ok {
			return nil, fmt.Errorf("edge controller knows bad pod name %q", n)
		}
		if i > 0 && snap.Known[i-1] >= n {
			return nil, fmt.Errorf("edge controller's memory not sorted or not unique")
		}
	}
	w.edge = NewEdgeController(snap.Known...)

	for s, st := range [2]SideState{snap.Level, snap.Edge} {
		str, err := restoreStream(st.Stream, st.Seq, now, w.down)
		if err != nil {
			return nil, fmt.Errorf("%v stream: %w", Side(s), err)
		}
		w.sides[s].stream = str
	}
	w.sides[Level].startAt, w.sides[Edge].startAt = lstart, estart

	if l := snap.Lesson; l != nil {
		r := Reason(l.Reason)
		if r.row() == RowNone {
			return nil, fmt.Errorf("lesson reason %q unknown", l.Reason)
		}
		if l.At < 0 || l.At > snap.Now {
			return nil, fmt.Errorf("lesson at %d, now %d", l.At, snap.Now)
		}
		w.lesson = Lesson{Row: r.row(), Reason: r, At: time.Duration(l.At) * time.Millisecond}
	}
	return w, nil
}

// podNumber returns N for pod-N with 1 <= N <= seq.
func podNumber(name string, seq int) (int, bool) {
	id, ok := ParsePod(name)
	if !ok || seq < 1 || uint64(id) > uint64(seq) {
		return 0, false
	}
	return int(id), true
}

// restorePods checks one side's pods (reconcile.Restore checks the rest:
// names, uniqueness, the sequence) and returns them with their start times.
func restorePods(st SideState, maxPods int, now time.Duration) ([]reconcile.Pod, map[string]time.Duration, error) {
	if st.Seq < 0 || st.Seq > reconcile.MaxSeq {
		return nil, nil, fmt.Errorf("seq %d out of range", st.Seq)
	}
	if len(st.Pods) > maxPods {
		return nil, nil, fmt.Errorf("%d pods, at most %d", len(st.Pods), maxPods)
	}
	pods := make([]reconcile.Pod, len(st.Pods))
	startAt := map[string]time.Duration{}
	for i, p := range st.Pods {
		phase, err := parsePhase(p.Phase)
		if err != nil {
			return nil, nil, err
		}
		if _, ok := podNumber(p.Name, st.Seq); !ok {
			return nil, nil, fmt.Errorf("bad pod name %q", p.Name)
		}
		if i > 0 && st.Pods[i-1].Name >= p.Name {
			return nil, nil, fmt.Errorf("pods not sorted or not unique at %q", p.Name)
		}
		pods[i] = reconcile.Pod{Name: p.Name, Phase: phase}
		switch {
		case phase == reconcile.Pending:
			if p.StartsIn < 0 || p.StartsIn > StartDelay.Milliseconds() {
				return nil, nil, fmt.Errorf("pod %q starts in %dms, out of range", p.Name, p.StartsIn)
			}
			startAt[p.Name] = now + time.Duration(p.StartsIn)*time.Millisecond
		case p.StartsIn != 0:
			return nil, nil, fmt.Errorf("pod %q is %s but has a start time", p.Name, p.Phase)
		}
	}
	return pods, startAt, nil
}

func parsePhase(s string) (reconcile.Phase, error) {
	for _, p := range []reconcile.Phase{reconcile.Pending, reconcile.Running, reconcile.Failed} {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown pod phase %q", s)
}

// restoreStream checks one stream against what emit, deliver, lose and trim
// can leave behind.
func restoreStream(st StreamState, podSeq int, now time.Duration, down bool) (stream, error) {
	s := stream{seq: st.Seq, dupNext: st.DupNext, swapNext: st.SwapNext, held: st.Held}
	if st.Seq < 0 || st.Seq > reconcile.MaxSeq {
		return s, fmt.Errorf("seq %d out of range", st.Seq)
	}
	if len(st.Events) > StreamShown+MaxInFlight || len(st.Queue) > 2*MaxInFlight {
		return s, fmt.Errorf("%d events and %d copies in flight, too many", len(st.Events), len(st.Queue))
	}
	if down && (len(st.Queue) > 0 || st.Held != 0) {
		return s, fmt.Errorf("events in flight while the controllers are restarting")
	}
	for i, es := range st.Events {
		e, err := restoreEvent(es, podSeq, now)
		if err != nil {
			return s, fmt.Errorf("event %d: %w", es.Seq, err)
		}
		if e.Seq < 1 || e.Seq > st.Seq || (i > 0 && e.Seq <= s.events[i-1].Seq) {
			return s, fmt.Errorf("event seq %d out of order", e.Seq)
		}
		s.events = append(s.events, e)
	}
	// The last StreamShown events emitted are always kept.
	if shown := min(StreamShown, st.Seq); len(s.events) < shown {
		return s, fmt.Errorf("%d events kept, want at least %d", len(s.events), shown)
	}
	for i := range min(StreamShown, st.Seq) {
		if got, want := s.events[len(s.events)-1-i].Seq, st.Seq-i; got != want {
			return s, fmt.Errorf("event %d missing", want)
		}
	}
	last := time.Duration(0)
	for _, c := range st.Queue {
		if c.In < 0 || c.In > maxCopyIn.Milliseconds() {
			return s, fmt.Errorf("copy of event %d due in %dms, out of range", c.Seq, c.In)
		}
		at := now + time.Duration(c.In)*time.Millisecond
		if at < last {
			return s, fmt.Errorf("copies in flight out of order")
		}
		last = at
		s.queue = append(s.queue, delivery{seq: c.Seq, at: at})
	}
	if st.Held != 0 {
		i, ok := s.find(st.Held)
		if !ok || s.events[i].Fate != Swapped || s.events[i].Delivered != 0 {
			return s, fmt.Errorf("held event %d is not an undelivered swapped event", st.Held)
		}
		// Until its partner comes, every event emitted after it was dropped.
		for _, e := range s.events[i+1:] {
			if e.Fate != Dropped {
				return s, fmt.Errorf("event %d got through while %d waited for it", e.Seq, st.Held)
			}
		}
	}
	for _, e := range s.events {
		queued := 0
		for _, d := range s.queue {
			if d.seq == e.Seq {
				queued++
			}
		}
		if e.Seq == s.held && queued > 0 {
			return s, fmt.Errorf("held event %d is also in flight", e.Seq)
		}
		if e.Delivered+queued > e.Fate.copies() || (e.Seq == s.held && e.Fate.copies() == 0) {
			return s, fmt.Errorf("event %d (%s) has %d copies delivered and %d in flight", e.Seq, e.Fate.String(), e.Delivered, queued)
		}
	}
	for i, d := range s.queue {
		j, ok := s.find(d.seq)
		if !ok {
			return s, fmt.Errorf("copy in flight of unknown event %d", d.seq)
		}
		// A copy is due at most maxCopyIn after its event was emitted; the
		// first of a swapped pair waited for the second and is exempt.
		e := s.events[j]
		if e.Fate != Swapped && ms(now)+st.Queue[i].In > ms(e.EmittedAt)+maxCopyIn.Milliseconds() {
			return s, fmt.Errorf("copy of event %d due too late", d.seq)
		}
	}
	// Older events are kept only while pending.
	for i, e := range s.events[:len(s.events)-min(StreamShown, len(s.events))] {
		if !s.pending(e.Seq) {
			return s, fmt.Errorf("event %d kept though delivered", s.events[i].Seq)
		}
	}
	if s.inFlight() > MaxInFlight {
		return s, fmt.Errorf("%d events in flight, at most %d", s.inFlight(), MaxInFlight)
	}
	return s, nil
}

func restoreEvent(es EventState, podSeq int, now time.Duration) (Event, error) {
	e := Event{Seq: es.Seq, Old: es.Old, New: es.New, Delivered: es.Delivered,
		EmittedAt: time.Duration(es.EmittedAt) * time.Millisecond}
	kind, ok := parseEventKind(es.Kind)
	if !ok {
		return e, fmt.Errorf("unknown kind %q", es.Kind)
	}
	e.Kind = kind
	if e.Kind == DesiredChanged {
		if es.Pod != "" || e.Old < 0 || e.Old > MaxDesired || e.New < 0 || e.New > MaxDesired || e.Old == e.New {
			return e, fmt.Errorf("bad desired change %q %d → %d", es.Pod, e.Old, e.New)
		}
	} else {
		n, ok := podNumber(es.Pod, podSeq)
		if !ok || e.Old != 0 || e.New != 0 {
			return e, fmt.Errorf("bad pod %q", es.Pod)
		}
		e.Pod = PodID(n)
	}
	fate, ok := parseFate(es.Fate)
	e.Fate = fate
	switch {
	case !ok:
		return e, fmt.Errorf("unknown fate %q", es.Fate)
	case fate != Dropped:
		if es.Loss != "" {
			return e, fmt.Errorf("%s with a loss", fate.String())
		}
	default:
		loss, ok := parseLoss(es.Loss)
		if !ok {
			return e, fmt.Errorf("dropped with loss %q", es.Loss)
		}
		e.Loss = loss
	}
	if es.EmittedAt < 0 || e.EmittedAt > now {
		return e, fmt.Errorf("emitted at %d, now %v", es.EmittedAt, now)
	}
	if e.Delivered < 0 || e.Delivered > e.Fate.copies() {
		return e, fmt.Errorf("%s delivered %d times", e.Fate.String(), e.Delivered)
	}
	switch {
	case e.Delivered > 0:
		e.DeliveredAt = time.Duration(es.DeliveredAt) * time.Millisecond
		if es.DeliveredAt < es.EmittedAt || e.DeliveredAt > now {
			return e, fmt.Errorf("delivered at %d, emitted at %d", es.DeliveredAt, es.EmittedAt)
		}
	case es.DeliveredAt != 0:
		return e, fmt.Errorf("never delivered but has a delivery time")
	}
	return e, nil
}

// reuse returns s emptied, with room for n elements, and never nil: a
// snapshot's lists are [] in JSON, not null, even when empty.
func reuse[S ~[]E, E any](s S, n int) S {
	s = slices.Grow(s[:0], n)
	if s == nil {
		s = S{}
	}
	return s
}
