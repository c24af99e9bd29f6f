package triggers

import (
	"slices"
	"time"
)

// EventKind names what happened in a cluster.
type EventKind string

// The events a cluster emits, one per change, as a watch would.
const (
	PodCreated     EventKind = "created" // Pod was created (Pending)
	PodRunning     EventKind = "running" // Pod started Running
	PodDied        EventKind = "died"    // Pod became Failed (a kill)
	PodDeleted     EventKind = "deleted" // Pod was deleted by the controller
	DesiredChanged EventKind = "desired" // desired went from Old to New
)

// actionable reports whether the edge controller does something when it
// hears an event of this kind: losing one of these is what leaves its world
// wrong for good.
func (k EventKind) actionable() bool { return k == PodDied || k == DesiredChanged }

// Fate is what the stream does with an event, decided when it is emitted.
type Fate string

// The fates, as the page's data-fate spells them.
const (
	Delivered  Fate = "delivered"  // delivered once, DeliveryDelay after it was emitted
	Dropped    Fate = "dropped"    // never delivered; Loss says why
	Duplicated Fate = "duplicated" // delivered twice, DuplicateGap apart
	Swapped    Fate = "swapped"    // one of a pair delivered in the opposite order
)

// Loss says why an event was dropped.
type Loss string

// The reasons an event is dropped.
const (
	LossBlip     Loss = "blip"     // emitted while the drop switch was on (a network blip)
	LossDown     Loss = "down"     // emitted while the controllers were restarting: nobody listened
	LossRestart  Loss = "restart"  // in flight when the controllers restarted
	LossOverflow Loss = "overflow" // emitted while MaxInFlight events were in flight
)

// Event is one event of a stream from a cluster to its controller.
type Event struct {
	Seq  int       // 1, 2, … per stream, in emission order
	Kind EventKind //
	Pod  string    // the pod, for every kind but DesiredChanged
	Old  int       // DesiredChanged: the desired count before
	New  int       // DesiredChanged: the desired count after
	Fate Fate      //
	Loss Loss      // set exactly when Fate is Dropped
	// EmittedAt is when the cluster emitted it (virtual time).
	EmittedAt time.Duration
	// Delivered is how many copies reached the controller: 0, 1, or 2 for a
	// duplicated event. DeliveredAt is when the first one did (0 while none).
	Delivered   int
	DeliveredAt time.Duration
}

// copies is how many deliveries a fate promises.
func (f Fate) copies() int {
	switch f {
	case Delivered, Swapped:
		return 1
	case Duplicated:
		return 2
	}
	return 0
}

// delivery is one copy of an event in flight.
type delivery struct {
	seq int
	at  time.Duration
}

// stream carries the events of one cluster to its controller. Invariants:
// the queue is sorted by delivery time (ties in the order copies were
// queued); every queued copy and the held event belong to an event in
// events; events holds, in Seq order, the last StreamShown events emitted
// plus any older one still pending; at most MaxInFlight events are pending.
type stream struct {
	seq      int        // the Seq of the last event emitted
	events   []Event    // see above
	queue    []delivery // copies in flight
	held     int        // the first of a swapped pair, waiting for the second; 0 if none
	dupNext  bool       // the next event is duplicated
	swapNext bool       // the next two events are swapped
}

// emit records an event emitted at now and decides its fate. blocked, when
// set, drops it (the controller is down, or the drop switch is on); the
// armed duplicate and swap then wait for the next event that gets through.
func (s *stream) emit(ev Event, now time.Duration, blocked Loss) Event {
	s.seq++
	ev.Seq, ev.EmittedAt = s.seq, now
	ev.Fate, ev.Loss, ev.Delivered, ev.DeliveredAt = Delivered, "", 0, 0
	// No event overtakes a swapped pair: exactly those two are reordered.
	at := max(now+DeliveryDelay, s.swappedTail())
	switch {
	case blocked != "":
		ev.Fate, ev.Loss = Dropped, blocked
	case s.inFlight() >= MaxInFlight:
		ev.Fate, ev.Loss = Dropped, LossOverflow
	case s.held != 0:
		// The second of the pair overtakes the first.
		ev.Fate = Swapped
		s.enqueue(ev.Seq, at)
		s.enqueue(s.held, at+SwapGap)
		s.held = 0
	case s.swapNext:
		// The first of the pair waits for the second, however long it takes:
		// two events can only be swapped once both exist.
		ev.Fate = Swapped
		s.held = ev.Seq
		s.swapNext = false
	case s.dupNext:
		ev.Fate = Duplicated
		s.enqueue(ev.Seq, at)
		s.enqueue(ev.Seq, at+DuplicateGap)
		s.dupNext = false
	default:
		s.enqueue(ev.Seq, at)
	}
	s.events = append(s.events, ev)
	s.trim()
	return ev
}

// enqueue adds a copy after every copy due at or before at.
func (s *stream) enqueue(seq int, at time.Duration) {
	i := len(s.queue)
	for i > 0 && s.queue[i-1].at > at {
		i--
	}
	s.queue = slices.Insert(s.queue, i, delivery{seq: seq, at: at})
}

// swappedTail returns when the last copy of a swapped event in flight is
// due, and 0 when none is in flight.
func (s *stream) swappedTail() time.Duration {
	tail := time.Duration(0)
	for _, d := range s.queue {
		if i, ok := s.find(d.seq); ok && s.events[i].Fate == Swapped {
			tail = max(tail, d.at)
		}
	}
	return tail
}

// next returns when the first copy in flight is due.
func (s *stream) next() (time.Duration, bool) {
	if len(s.queue) == 0 {
		return 0, false
	}
	return s.queue[0].at, true
}

// deliver hands the first copy in flight to the controller now, and returns
// its event as it stands after the delivery.
func (s *stream) deliver(now time.Duration) (Event, bool) {
	if len(s.queue) == 0 {
		return Event{}, false
	}
	d := s.queue[0]
	s.queue = slices.Delete(s.queue, 0, 1)
	i, ok := s.find(d.seq)
	if !ok {
		return Event{}, false // unreachable: pending events are kept
	}
	e := &s.events[i]
	if e.Delivered == 0 {
		e.DeliveredAt = now
	}
	e.Delivered++
	out := *e
	s.trim()
	return out, true
}

// lose drops everything in flight, as a restart does: copies not delivered
// yet never will be. An event none of whose copies arrived becomes Dropped
// (LossRestart). It returns the events that lost every copy.
func (s *stream) lose() []Event {
	var lost []Event
	for i := range s.events {
		e := &s.events[i]
		if s.pending(e.Seq) && e.Delivered == 0 {
			e.Fate, e.Loss = Dropped, LossRestart
			lost = append(lost, *e)
		}
	}
	s.queue, s.held = nil, 0
	s.trim()
	return lost
}

// pending reports whether a copy of event seq is still in flight or held.
func (s *stream) pending(seq int) bool {
	if seq == s.held {
		return true
	}
	for _, d := range s.queue {
		if d.seq == seq {
			return true
		}
	}
	return false
}

// inFlight counts the events with a copy in flight or held.
func (s *stream) inFlight() int {
	n := 0
	for _, e := range s.events {
		if s.pending(e.Seq) {
			n++
		}
	}
	return n
}

// trim keeps the last StreamShown events and the pending ones.
func (s *stream) trim() {
	old := len(s.events) - StreamShown
	kept := s.events[:0]
	for i, e := range s.events {
		if i >= old || s.pending(e.Seq) {
			kept = append(kept, e)
		}
	}
	s.events = kept
}

// find returns the index of event seq.
func (s *stream) find(seq int) (int, bool) {
	for i := range s.events {
		if s.events[i].Seq == seq {
			return i, true
		}
	}
	return 0, false
}

// StreamEvent is an event as the page shows it: the event and where its
// copies are now.
type StreamEvent struct {
	Event
	// InFlight is how many copies are on their way (0, 1 or 2).
	InFlight int
	// Held is true for the first of a swapped pair, waiting for the second.
	Held bool
	// ArrivesIn is how long until the next copy arrives; 0 when none is in
	// flight.
	ArrivesIn time.Duration
}

// view returns the stream's events, oldest first.
func (s *stream) view(now time.Duration) []StreamEvent {
	return s.appendView(make([]StreamEvent, 0, len(s.events)), now)
}

// appendView appends view to out.
func (s *stream) appendView(out []StreamEvent, now time.Duration) []StreamEvent {
	for _, e := range s.events {
		v := StreamEvent{Event: e, Held: e.Seq == s.held}
		for _, d := range s.queue {
			if d.seq == e.Seq {
				if v.InFlight == 0 {
					v.ArrivesIn = d.at - now
				}
				v.InFlight++
			}
		}
		out = append(out, v)
	}
	return out
}
