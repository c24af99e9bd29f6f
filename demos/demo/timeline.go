package demo

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The timeline's actions, the framework's for every demo.
const (
	ActTimeline         = "timeline"          // show the moment At (virtual ms) of the past
	ActTimelineLive     = "timeline-live"     // show the present again
	ActTimelineContinue = "timeline-continue" // make the moment shown the present
	ActMoment           = "moment"            // a page opened from a link: start at its moment
)

// ReasonPast is a refused action while the page shows the past.
const ReasonPast = "past"

// logged reports whether an action of this name goes into the timeline:
// every demo's own and the pace; not the session's (restore, rooms) nor the
// timeline's own.
func logged(name string) bool {
	switch name {
	case "restore", RoomOpen, RoomClose, RoomClaim, ActTimeline, ActTimelineLive, ActTimelineContinue, ActMoment:
		return false
	}
	return true
}

// log appends an entry, folding the oldest history into the start when the
// log is full.
func (l *Live) log(e Entry) {
	l.tl.Entries = append(l.tl.Entries, e)
	l.changedLog()
	if len(l.tl.Entries) > MaxEntries {
		l.fold()
	}
}

func (l *Live) changedLog() {
	l.logV.Bump()
	l.moment = ""
}

// fold replays the oldest entries and makes the state they lead to the
// timeline's start: the timeline then begins there.
func (l *Live) fold() {
	cut := l.tl.Entries[foldEntries-1].At
	rn, err := l.replay(cut)
	if err != nil {
		// A log this session wrote replays, or the demo is not
		// deterministic: keep the newest entries on the present's state.
		l.tl = Timeline{Start: []byte(l.cur.in.SnapshotJSON()), StartAt: quantum(l.cur.in.Now())}
	} else {
		keep := l.tl.Entries[:0]
		for _, e := range l.tl.Entries {
			if e.At > cut {
				keep = append(keep, e)
			}
		}
		l.tl = Timeline{Start: []byte(rn.in.SnapshotJSON()), StartAt: cut, Entries: keep}
	}
	l.startZ = deflate(l.tl.Start)
	l.changedLog()
}

// replay rebuilds the demo at virtual time t from the timeline: its start,
// each action at its time, up to t. Every action is decoded and checked
// again, as it was when a visitor sent it.
func (l *Live) replay(t time.Duration) (*run, error) {
	in, err := l.startInstance()
	if err != nil {
		return nil, err
	}
	for _, e := range l.tl.Entries {
		if e.At > t {
			break
		}
		if err := l.replayEntry(in, e); err != nil {
			return nil, err
		}
	}
	if now := in.Now(); t > now {
		advanceVirtual(in, t-now)
	}
	return l.newRun(in), nil
}

// startInstance builds the timeline's start.
func (l *Live) startInstance() (Instance, error) {
	if l.tl.Start == nil {
		return l.kind.New(l.opt), nil
	}
	in, err := l.kind.Restore(l.opt, l.tl.Start)
	if err != nil {
		return nil, fmt.Errorf("timeline start: %w", err)
	}
	return in, nil
}

// replayEntry carries out one logged action at its time.
func (l *Live) replayEntry(in Instance, e Entry) error {
	now := in.Now()
	if e.At < now {
		return fmt.Errorf("action %s at %v, before %v: %w", e.Action, e.At, now, ErrMomentMalformed)
	}
	if e.At > now {
		advanceVirtual(in, e.At-now)
	}
	c := Decode(l.kind, e.wire(l.kind))
	if c.Reject != nil || c.Action != e.Action {
		return fmt.Errorf("action %s: %w", e.Action, ErrMomentMalformed)
	}
	if err := l.apply(in, c); err != nil {
		return fmt.Errorf("action %s at %v: %w: %w", e.Action, e.At, ErrMomentMalformed, err)
	}
	return nil
}

// showMoment shows the moment t of the past (the present's time included),
// paused, while the present runs on.
func (l *Live) showMoment(t time.Duration) error {
	now := quantum(l.cur.in.Now())
	if t < l.tl.StartAt || t > now {
		return Refuse(ReasonOutOfRange, "err.moment", ui.ClockText(l.tl.StartAt), ui.ClockText(now))
	}
	if l.past != nil && l.pastAt == t {
		return nil
	}
	rn, err := l.replay(t)
	if err != nil {
		return Refuse(ReasonPast, "err.replay")
	}
	l.past, l.pastAt, l.pastPaused = rn, t, rn.in.Paused()
	rn.in.SetPaused(true)
	l.logV.Bump()
	return nil
}

// showPresent shows the present again.
func (l *Live) showPresent() {
	if l.past != nil {
		l.past = nil
		l.logV.Bump()
	}
}

// continueHere makes the moment shown the present: it runs on from there
// as it was then (running or paused), and what came after is dropped.
func (l *Live) continueHere() error {
	if l.past == nil {
		return nil // the present already is
	}
	rn, t := l.past, l.pastAt
	rn.in.SetPaused(l.pastPaused)
	keep := 0
	for keep < len(l.tl.Entries) && l.tl.Entries[keep].At <= t {
		keep++
	}
	l.tl.Entries = l.tl.Entries[:keep:keep]
	l.cur, l.past = rn, nil
	l.applied++
	l.changedLog()
	return nil
}

// Moment returns the timeline written as a link's payload (see
// DecodeMoment).
func (l *Live) Moment() string {
	if l.moment == "" {
		l.moment = encodeMoment(l.kind, &l.tl, l.startZ)
	}
	return l.moment
}

// snapshotMoment is the timeline a page keeps beside its snapshot: none for
// a follower, who has no session to restore.
func (l *Live) snapshotMoment(v View) string {
	if v.Role == RoleFollower || l.tl.Start == nil && len(l.tl.Entries) == 0 {
		return ""
	}
	return l.Moment()
}

// Past reports whether the page shows a moment of the past, and which.
func (l *Live) Past() (time.Duration, bool) { return l.pastAt, l.past != nil }

// Timeline returns the log: where it starts and the actions since.
func (l *Live) Timeline() Timeline { return l.tl }

// ErrReplay is a timeline that does not replay on this build: an action
// refused, or a start that does not restore.
var ErrReplay = errors.New("the link's actions do not replay on this demo")

// OpenMoment rebuilds a demo of kind k at the moment at of a timeline written
// as payload (a link): replayed, paused, its timeline kept up to that
// moment, so the visitor can look around and play on. Errors wrap
// ErrMomentMalformed, ErrMomentVersion or ErrReplay.
func OpenMoment(k *Kind, opt Options, payload string, at time.Duration) (*Live, error) {
	tl, err := k.DecodeMoment(payload)
	if err != nil {
		return nil, err
	}
	last := tl.StartAt
	if n := len(tl.Entries); n > 0 {
		last = tl.Entries[n-1].At
	}
	if at < last || at > last+MaxReplay || at > sim.MaxClock {
		return nil, fmt.Errorf("moment %v out of the link's range: %w", at, ErrMomentMalformed)
	}
	l := &Live{kind: k, opt: opt, tl: *tl}
	l.startZ = deflate(tl.Start)
	rn, err := l.replay(at)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	l.cur = rn
	if !rn.in.Paused() {
		// The link opens paused: say so in the log, so that the timeline
		// replays the same pace.
		c := Decode(k, []byte(`{"action":"pause","paused":true}`))
		if err := l.Apply(c); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// ViewMoment rebuilds a demo of kind k from a timeline written as payload
// (a room's, as its follower's page holds it) and shows its moment at, as
// Apply of a timeline action would: a follower's own look at the past, which
// changes nothing of the room. Errors as OpenMoment's.
func ViewMoment(k *Kind, opt Options, payload string, at time.Duration) (*Live, error) {
	tl, err := k.DecodeMoment(payload)
	if err != nil {
		return nil, err
	}
	end := max(tl.StartAt, at)
	if n := len(tl.Entries); n > 0 {
		end = max(end, tl.Entries[n-1].At)
	}
	if end > sim.MaxClock || at > end {
		return nil, fmt.Errorf("moment %v out of the timeline: %w", at, ErrMomentMalformed)
	}
	l := &Live{kind: k, opt: opt, tl: *tl}
	l.startZ = deflate(tl.Start)
	rn, err := l.replay(end)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	l.cur = rn
	if err := l.showMoment(at); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	return l, nil
}

// RestoreTimeline gives a demo just rebuilt from its page's snapshot the
// timeline the page kept beside it. A timeline that does not read, or does
// not reach the snapshot's time, is dropped: the timeline then starts at the
// snapshot.
func (l *Live) RestoreTimeline(payload string) error {
	tl, err := l.kind.DecodeMoment(payload)
	if err != nil {
		return err
	}
	now := quantum(l.cur.in.Now())
	if n := len(tl.Entries); tl.StartAt > now || n > 0 && tl.Entries[n-1].At > now {
		return fmt.Errorf("a timeline past its snapshot: %w", ErrMomentMalformed)
	}
	l.tl, l.startZ = *tl, deflate(tl.Start)
	l.changedLog()
	return nil
}

// MomentURL is the link to the moment at of this demo: path is "/<kind>" or
// "/embed/<kind>", origin the site's ("https://host"). It carries the
// actions up to that moment, and none after.
func (l *Live) MomentURL(origin, path string, lang ui.Lang, at time.Duration) string {
	return l.momentLink(origin, path, lang, at).String()
}

// momentLink is MomentURL in parts, for a page to write as it escapes it.
func (l *Live) momentLink(origin, path string, lang ui.Lang, at time.Duration) ui.MomentLink {
	moment := l.Moment()
	if n := len(l.tl.Entries); n > 0 && l.tl.Entries[n-1].At > at {
		upTo := l.tl
		upTo.Entries = upTo.Entries[:0:0]
		for _, e := range l.tl.Entries {
			if e.At <= at {
				upTo.Entries = append(upTo.Entries, e)
			}
		}
		moment = encodeMoment(l.kind, &upTo, l.startZ)
	}
	return ui.MomentLink{Base: origin + path, At: at.Milliseconds(), En: lang == ui.En, Moment: moment}
}

// Marker is a demo whose notable events the timeline marks (a pod that
// failed, an event the edge side dropped, a node gone Unknown).
type Marker interface {
	// Marks returns the notable events it still remembers, oldest first, in
	// language lang.
	Marks(lang ui.Lang) []ui.TimelineMark
	// MarksKey changes whenever Marks would.
	MarksKey() uint64
}

// timelineKey changes whenever the timeline's panel would: the moment of
// the past it shows, and a follower's room timeline (its range, its marks
// and its link are fragments of their own: trackKey, marksKey, shareKey).
func (l *Live) timelineKey(v View) uint64 {
	k := Mix(B(l.past != nil), B(v.Role == RoleFollower), I(int(v.Lang[0])))
	if l.past != nil {
		k = Mix(k, uint64(l.pastAt.Milliseconds()))
	}
	if v.Role == RoleFollower {
		k = Mix(k, l.logV.Key())
	}
	return k
}

// trackKey changes whenever the timeline's range would: its span and the
// moment shown. An owner's range of the present ends where it starts
// (timelineProps: the page runs its end on to its clock), so an action,
// which only moves that end, sends none.
func (l *Live) trackKey(v View) uint64 {
	p := l.timelineProps(v, false)
	return Mix(uint64(p.Min), uint64(p.Max), uint64(p.Value), B(p.Past), I(int(v.Lang[0])))
}

// shareKey changes whenever the link to the moment shown would.
func (l *Live) shareKey(v View) uint64 {
	k := Mix(l.logV.Key(), Str(v.Origin), B(v.PageLinks), I(int(v.Lang[0])), B(l.past != nil))
	if l.past != nil {
		k = Mix(k, uint64(l.pastAt.Milliseconds()))
	}
	return k
}

// marksKey changes whenever the timeline's marks would.
func (l *Live) marksKey(v View) uint64 {
	k := Mix(l.logV.Key(), I(int(v.Lang[0])))
	if m, ok := l.cur.in.(Marker); ok {
		k = Mix(k, m.MarksKey())
	}
	return k
}

// timelineProps is the timeline as viewer v sees it. While an owner's page
// shows the present, the page runs the range's end on to its clock, as it
// runs the clock, and the link's moment is the last action's time. A
// follower's range ends at the room's last action. While it shows the
// past, the page's clock stands at the moment shown, so the end is the
// present's time, sent with every frame. Its marks are on a
// page only: frames send them apart (marks).
func (l *Live) timelineProps(v View, link bool) ui.TimelineProps {
	end := l.tl.StartAt
	if n := len(l.tl.Entries); n > 0 {
		end = l.tl.Entries[n-1].At
	}
	p := ui.TimelineProps{Prefix: l.kind.Prefix, Min: l.tl.StartAt.Milliseconds(), Max: end.Milliseconds(),
		Value: end.Milliseconds(), Follower: v.Role == RoleFollower}
	if p.Follower {
		// A follower looks at the room's past on its own: its page sends
		// the room's timeline with the moment it wants, and forks from it.
		p.Moment, p.Kind = l.Moment(), l.kind.Name
	}
	if l.past != nil {
		p.Past, p.Value, p.Max = true, l.pastAt.Milliseconds(), quantum(l.cur.in.Now()).Milliseconds()
	}
	if v.inPage {
		p.Marks, p.InPage, link = l.marks(v.Lang), true, true
	}
	switch {
	case !link:
	case v.pristine:
		p.ShareSoon = v.Origin != "" || v.PageLinks
	case v.Origin != "" || v.PageLinks:
		p.Share = l.momentLink(v.Origin, "/"+l.kind.Name, v.Lang, time.Duration(p.Value)*time.Millisecond)
	}
	if !p.Past && !p.Follower {
		// An owner's page runs the present's end on to its clock, from the
		// moment it draws the range (static/app.js, drawTimeline): the range
		// says only where it starts, and goes with that alone (trackKey).
		p.Max, p.Value = p.Min, p.Min
	}
	return p
}

// marks are the timeline's marks in language lang, oldest first: the
// visitor's actions and the demo's notable events (Marker) since the
// timeline's start, the newest ui.MaxMarks of them, in the order of their
// times; an event at an action's time comes first (a demo's time runs up
// to a moment before an action is taken there, and an event the action
// causes at once comes with it in the same frame). Marks leave from
// the start only, so that a page adds the new ones to those it has: once
// the demo forgets an event, the marks before it go too.
func (l *Live) marks(lang ui.Lang) []ui.TimelineMark {
	refs, events := l.markRefs(lang)
	return l.markList(refs, events)
}

// markRef is a mark, before its label is written: the index of an action
// in the log, or (-1-i) the demo's event i.
type markRef int

// markRefs are the marks as marks lists them, with the events they refer
// to: no action's label is written.
func (l *Live) markRefs(lang ui.Lang) ([]markRef, []ui.TimelineMark) {
	rn := l.cur
	var events []ui.TimelineMark
	if m, ok := rn.in.(Marker); ok {
		events = m.Marks(lang)
	}
	for _, at := range rn.seen {
		if len(events) > 0 && at >= events[0].At {
			break
		}
		rn.horizon, rn.forgot = max(rn.horizon, at), true
	}
	rn.seen = rn.seen[:0]
	for _, e := range events {
		rn.seen = append(rn.seen, e.At)
	}
	min := l.tl.StartAt.Milliseconds()
	if rn.forgot {
		min = max(min, rn.horizon+1)
	}
	first := max(0, len(l.tl.Entries)-ui.MaxMarks)
	out := make([]markRef, 0, len(l.tl.Entries)-first+len(events))
	ev := 0
	for j := first; j < len(l.tl.Entries); j++ {
		at := l.tl.Entries[j].At.Milliseconds()
		for ; ev < len(events) && events[ev].At <= at; ev++ {
			if events[ev].At >= min {
				out = append(out, markRef(-1-ev))
			}
		}
		if at >= min {
			out = append(out, markRef(j))
		}
	}
	for ; ev < len(events); ev++ {
		if events[ev].At >= min {
			out = append(out, markRef(-1-ev))
		}
	}
	return out[max(0, len(out)-ui.MaxMarks):], events
}

// markList writes the marks refs refer to.
func (l *Live) markList(refs []markRef, events []ui.TimelineMark) []ui.TimelineMark {
	out := make([]ui.TimelineMark, len(refs))
	for j, m := range refs {
		if m < 0 {
			out[j] = events[-1-m]
			continue
		}
		e := &l.tl.Entries[m]
		out[j] = ui.TimelineMark{At: e.At.Milliseconds(), Kind: "action", Label: actionLabel(*e)}
	}
	return out
}

// refKey is the key of the mark m refers to (equal keys, equal HTML): an
// event's is markKey, an action's reads what its label is made of without
// writing it.
func (l *Live) refKey(m markRef, events []ui.TimelineMark) uint64 {
	if m < 0 {
		return markKey(events[-1-m])
	}
	e := &l.tl.Entries[m]
	k := Mix(uint64(e.At.Milliseconds()), actionMark, Str(e.Action))
	for _, a := range e.Args {
		k = Mix(k, uint64(len(a)), maphash.Bytes(keySeed, a))
	}
	return k
}

// actionMark sets the keys of actions' marks apart from events'.
const actionMark = 0x61637469

// markKey identifies a mark for good: equal keys, equal HTML.
func markKey(m ui.TimelineMark) uint64 { return Mix(uint64(m.At), Str(m.Kind), Str(m.Label)) }

// added reports what a page that shows sent must do to show cur: drop its
// first drop marks and add cur's last t. False when that cannot make cur
// (a mark went from the middle, one came before the last sent).
func added(sent, cur []uint64) (drop, t int, ok bool) {
	if len(sent) == 0 {
		return 0, 0, false
	}
	last := sent[len(sent)-1]
	for t := 0; t < len(cur); t++ {
		if cur[len(cur)-1-t] != last {
			continue
		}
		old := len(cur) - t // how many of sent stay: its last old
		if old <= len(sent) && slices.Equal(sent[len(sent)-old:], cur[:old]) {
			return len(sent) - old, t, true
		}
	}
	return 0, 0, false
}

// prepended is added from a list's other end: how many of sent's last
// items leave, and how many of cur's first are new, when that makes cur
// of sent.
func prepended(sent, cur []uint64) (drop, t int, ok bool) {
	if len(sent) == 0 {
		return 0, 0, false
	}
	for t := 0; t < len(cur); t++ {
		if cur[t] != sent[0] {
			continue
		}
		old := len(cur) - t // how many of sent stay: its first old
		if old <= len(sent) && slices.Equal(sent[:old], cur[t:]) {
			return len(sent) - old, t, true
		}
	}
	return 0, 0, false
}

// actionLabel says a logged action in a mark's tooltip: its name and its
// fields' values.
func actionLabel(e Entry) string {
	s := e.Action
	for _, a := range e.Args {
		if a == nil {
			continue
		}
		v := string(a)
		if len(v) >= 2 && v[0] == '"' {
			v = v[1 : len(v)-1]
		}
		s += " " + v
	}
	return Clip(s)
}
