package triggers

import (
	"slices"
	"time"
)

// EventKind names what happened in a cluster. It, Fate and Loss are
// numbers, not their spellings, so that an Event holds no pointer: the
// collector never scans a session's streams (TestTheStreamHoldsNoPointer).
// The zero value is no event's: an Event that was never emitted.
type EventKind uint8

// The events a cluster emits, one per change, as a watch would.
const (
	PodCreated     EventKind = iota + 1 // Pod was created (Pending)
	PodRunning                          // Pod started Running
	PodDied                             // Pod became Failed (a kill)
	PodDeleted                          // Pod was deleted by the controller
	DesiredChanged                      // desired went from Old to New
)

// eventKinds spells the kinds, as the page's data-kind and snapshots do.
var eventKinds = [...]string{PodCreated: "created", PodRunning: "running", PodDied: "died",
	PodDeleted: "deleted", DesiredChanged: "desired"}

// String returns the kind's spelling, "" for the zero value.
func (k EventKind) String() string { return spell(eventKinds[:], k) }

// parseEventKind returns the kind s spells.
func parseEventKind(s string) (EventKind, bool) { return parse[EventKind](eventKinds[:], s) }

// actionable reports whether the edge controller does something when it
// hears an event of this kind: losing one of these is what leaves its world
// wrong for good.
func (k EventKind) actionable() bool { return k == PodDied || k == DesiredChanged }

// Fate is what the stream does with an event, decided when it is emitted.
// The zero value is no event's.
type Fate uint8

// The fates.
const (
	Delivered  Fate = iota + 1 // delivered once, DeliveryDelay after it was emitted
	Dropped                    // never delivered; Loss says why
	Duplicated                 // delivered twice, DuplicateGap apart
	Swapped                    // one of a pair delivered in the opposite order
)

// fates spells the fates, as the page's data-fate and snapshots do.
var fates = [...]string{Delivered: "delivered", Dropped: "dropped", Duplicated: "duplicated", Swapped: "swapped"}

// String returns the fate's spelling, "" for the zero value.
func (f Fate) String() string { return spell(fates[:], f) }

// parseFate returns the fate s spells.
func parseFate(s string) (Fate, bool) { return parse[Fate](fates[:], s) }

// Loss says why an event was dropped.
type Loss uint8

// The reasons an event is dropped.
const (
	LossNone     Loss = iota // not dropped
	LossBlip                 // emitted while the drop switch was on (a network blip)
	LossDown                 // emitted while the controllers were restarting: nobody listened
	LossRestart              // in flight when the controllers restarted
	LossOverflow             // emitted while MaxInFlight events were in flight
)

// losses spells the losses, as the page's data-loss and snapshots do.
var losses = [...]string{LossBlip: "blip", LossDown: "down", LossRestart: "restart", LossOverflow: "overflow"}

// String returns the loss's spelling, "" for LossNone.
func (l Loss) String() string { return spell(losses[:], l) }

// parseLoss returns the loss s spells; "" spells none, so it is refused
// like any unknown spelling.
func parseLoss(s string) (Loss, bool) { return parse[Loss](losses[:], s) }

// spell returns the spelling of v in names, "" for the zero value and for
// a value none spells.
func spell[T ~uint8](names []string, v T) string {
	if int(v) < len(names) {
		return names[v]
	}
	return ""
}

// parse returns the value whose spelling in names is s. The zero value's
// "" is no spelling: it is refused.
func parse[T ~uint8](names []string, s string) (T, bool) {
	for i, n := range names {
		if n != "" && n == s {
			return T(i), true
		}
	}
	return 0, false
}

// Event is one event of a stream from a cluster to its controller.
type Event struct {
	Seq int // 1, 2, … per stream, in emission order
	// Kind, Fate and Loss, a byte each, sit together: an Event is 64 bytes.
	Kind EventKind //
	Fate Fate      //
	Loss Loss      // set exactly when Fate is Dropped
	Pod  PodID     // the pod, for every kind but DesiredChanged
	Old  int       // DesiredChanged: the desired count before
	New  int       // DesiredChanged: the desired count after
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
	ev.Fate, ev.Loss, ev.Delivered, ev.DeliveredAt = Delivered, LossNone, 0, 0
	// No event overtakes a swapped pair: exactly those two are reordered.
	at := max(now+DeliveryDelay, s.swappedTail())
	switch {
	case blocked != LossNone:
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
