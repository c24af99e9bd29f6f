package triggers

import (
	"errors"
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

// Bounds and timings of the demo. Times are virtual.
const (
	// MaxDesired is the largest desired count a visitor may declare.
	MaxDesired = 10
	// StartDesired is the desired count of a new world.
	StartDesired = 3
	// MaxPods bounds the pods of the edge side's cluster (Failed ones
	// included), as a ResourceQuota would: a create beyond it is refused.
	// The level side never holds more than MaxDesired.
	MaxPods = 24
	// MaxKnown bounds how many pod names the edge controller remembers.
	MaxKnown = MaxPods

	// StartDelay is how long a created pod stays Pending, as in the other demos.
	StartDelay = 1500 * time.Millisecond
	// Resync is the level controller's period: every multiple of it, it
	// recounts the world if it would change anything.
	Resync = time.Second
	// DeliveryDelay is how long an event takes from its cluster to its controller.
	DeliveryDelay = 400 * time.Millisecond
	// DuplicateGap is how long after the first copy a duplicated event's second copy arrives.
	DuplicateGap = 300 * time.Millisecond
	// SwapGap is how long after the second of a swapped pair the first arrives.
	SwapGap = 150 * time.Millisecond
	// RestartTime is how long a restart keeps both controllers down.
	RestartTime = 2 * time.Second

	// StreamShown is how many of the last events each stream keeps for the page.
	StreamShown = 12
	// MaxInFlight bounds the events in flight (or held) on a stream; one
	// emitted beyond it is dropped (LossOverflow).
	MaxInFlight = 24
	// LogSize is how many controller log entries each side keeps.
	LogSize = 24

	// maxAdvance bounds one Advance: a session that slept longer catches up a day.
	maxAdvance = 24 * time.Hour
	// maxNowMs bounds the virtual clock, in milliseconds (about 31 years).
	maxNowMs = int64(1e12)
	// maxClock is maxNowMs as a duration: the clock stops there.
	maxClock = time.Duration(maxNowMs) * time.Millisecond
)

// Side names one of the two mirrored halves of the demo.
type Side int

// The two sides.
const (
	Level Side = iota // chapter 000's reconcile.Controller over a reconcile.Cluster
	Edge              // the naive EdgeController over this package's Cluster
)

// String returns "level" or "edge".
func (s Side) String() string {
	if s == Edge {
		return "edge"
	}
	return "level"
}

// Trigger says what made a controller act (or log): a number, not its
// spelling, so that a log entry holds no pointer. The zero value is no
// entry's.
type Trigger uint8

// The triggers of log entries.
const (
	TriggerEvent   Trigger = iota + 1 // one or more events were delivered
	TriggerResync                     // the level controller's periodic recount
	TriggerStep                       // the visitor's single step
	TriggerRestart                    // the controller went down
	TriggerStartup                    // the controller came back up
)

// triggers spells the triggers.
var triggers = [...]string{TriggerEvent: "event", TriggerResync: "resync", TriggerStep: "step",
	TriggerRestart: "restart", TriggerStartup: "startup"}

// String returns the trigger's spelling, "" for the zero value.
func (t Trigger) String() string { return spell(triggers[:], t) }

// maxActions bounds the actions of one log entry. A level recount deletes
// the Failed pods, then creates the missing ones or deletes the excess: at
// most 2·MaxDesired, since its cluster never holds more than MaxDesired pods
// (only a recount creates, and it leaves desired of them), and at most
// MaxDesired can be Failed and then be replaced (desired 10, all ten
// killed). The edge controller takes two actions for a death and
// |new - old| <= MaxDesired for a change of desired. TestTheActionsOfAnEntryAreBounded
// reaches it.
const maxActions = 2 * MaxDesired

// LogEntry is one thing a controller did, structured for the page. The
// level side logs every Reconcile (a recount that finds nothing to do
// included: that is idempotence); the edge side logs every event it acted
// on, and not the ones it only noted (created, running, deleted change its
// memory, which SideView.Known shows). Both log going down and coming up.
type LogEntry struct {
	Seq     int           // increases by one per entry of a side; 0 for an entry not logged (a Step's edge entry that only noted)
	At      time.Duration // virtual time
	Trigger Trigger
	// Heard is the event that was delivered (the last of them when several
	// arrived at once on the level side); Seq 0 when none was. Copy is which
	// copy it was (2 for a duplicate's second).
	Heard Event
	Copy  int
	// Events is how many events were delivered at once (level side: one
	// recount answers them all, as a workqueue collapses one key).
	Events int
	// Desired, Alive and Failed are what the level controller counted before
	// it acted. The edge controller counts nothing: they stay 0.
	Desired, Alive, Failed int
	// Known is how many pods the edge controller remembers after acting.
	Known int
	// acts[:nActs] are its actions (Actions), held in place so that an
	// entry holds no pointer: the collector never scans a session's logs.
	acts  [maxActions]Action
	nActs uint8
}

// Actions returns what the controller did; empty: nothing to do (level:
// already converged). It shares the entry's array: it changes when the
// entry does.
func (e *LogEntry) Actions() []Action { return e.acts[:e.nActs] }

// add appends an action (maxActions says why there is room).
func (e *LogEntry) add(a Action) {
	e.acts[e.nActs] = a
	e.nActs++
}

// side holds what both halves have alike.
type side struct {
	startAt map[string]time.Duration // the Pending pods, and only those: when they run
	stream  stream
	log     []LogEntry // the last LogSize entries, oldest first
	logSeq  int
}

func (s *side) addLog(e LogEntry) LogEntry {
	s.logSeq++
	e.Seq = s.logSeq
	if len(s.log) == LogSize {
		copy(s.log, s.log[1:])
		s.log = s.log[:LogSize-1]
	}
	s.log = append(s.log, e)
	return e
}

// World is the demo: two clusters that receive the same visitor changes,
// each watched through its own event stream by its own controller: chapter
// 000's level-triggered Reconcile on the Level side, the naive
// EdgeController on the Edge side.
type World struct {
	now     time.Duration
	desired int  // declared on both sides (the level controller holds it too)
	drop    bool // the drop switch: every event emitted while on is dropped
	down    bool // both controllers are restarting until upAt
	upAt    time.Duration
	// tickAt is the level controller's next resync not yet considered; a
	// resync that would change nothing is skipped.
	tickAt time.Duration

	level   *reconcile.Controller
	levelCl *reconcile.Cluster
	edge    *EdgeController
	edgeCl  *Cluster
	sides   [2]side

	lesson Lesson
}

// New returns the starting world: desired 3 on both sides, both clusters
// converged with Running pods pod-1, pod-2, pod-3, both controllers up, the
// streams healthy and every switch off.
func New() *World {
	w := &World{desired: StartDesired, tickAt: Resync}
	// The level side's cluster is converged by its own controller, as the
	// chapter's code does it.
	w.level = reconcile.New(StartDesired)
	w.levelCl = reconcile.NewCluster()
	w.level.Reconcile(w.levelCl)
	w.levelCl.StartPending()
	w.edgeCl = newCluster()
	for range StartDesired {
		name, _ := w.edgeCl.create()
		w.edgeCl.start(name)
	}
	w.edge = NewEdgeController(names(w.edgeCl.Pods())...)
	for i := range w.sides {
		w.sides[i].startAt = map[string]time.Duration{}
	}
	return w
}

func names(pods []reconcile.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// pods returns one side's pods, sorted by name.
func (w *World) pods(s Side) []reconcile.Pod { return w.appendPods(s, nil) }

// appendPods appends side s's pods to dst, sorted by name.
func (w *World) appendPods(s Side, dst []reconcile.Pod) []reconcile.Pod {
	if s == Edge {
		return w.edgeCl.AppendPods(dst)
	}
	return w.levelCl.AppendPods(dst)
}

// emit sends an event from one side's cluster down its stream.
func (w *World) emit(s Side, ev Event) {
	var blocked Loss
	switch {
	case w.down:
		blocked = LossDown
	case w.drop:
		blocked = LossBlip
	}
	ev = w.sides[s].stream.emit(ev, w.now, blocked)
	if s == Edge && ev.Fate == Dropped && ev.Kind.actionable() {
		w.learn(Reason(ev.Loss.String()))
	}
}

// ---- what the visitor does (to both clusters at once) ----

// Kill makes the named pod Failed, as a node failure or crash would, on each
// side where a pod of that name is alive (Pending or Running). Names are per
// side: once the sides diverge, pod-5 may be alive on one side only (or be
// two different pods); the kill then lands where it is alive and the other
// side is untouched. It is an error, and nothing changes, when no side has
// an alive pod of that name.
func (w *World) Kill(name string) error {
	alive := [2]bool{}
	exists := false
	for s := Level; s <= Edge; s++ {
		for _, p := range w.pods(s) {
			if p.Name == name {
				exists = true
				alive[s] = p.Phase != reconcile.Failed
			}
		}
	}
	if !alive[Level] && !alive[Edge] {
		if exists {
			return fmt.Errorf("kill: pod %s is already Failed", name)
		}
		return fmt.Errorf("kill: no pod named %q", name)
	}
	w.learn(ReasonKill)
	if alive[Level] {
		w.levelCl.Fail(name)
		delete(w.sides[Level].startAt, name)
		w.emit(Level, Event{Kind: PodDied, Pod: podOf(name)})
	}
	if alive[Edge] {
		w.edgeCl.fail(name)
		delete(w.sides[Edge].startAt, name)
		w.emit(Edge, Event{Kind: PodDied, Pod: podOf(name)})
	}
	return nil
}

// SetDesired declares n pods on both sides. n must be in [0, MaxDesired];
// declaring the current count changes nothing and emits nothing.
func (w *World) SetDesired(n int) error {
	if n < 0 || n > MaxDesired {
		return fmt.Errorf("desired %d out of range [0, %d]", n, MaxDesired)
	}
	old := w.desired
	if n == old {
		return nil
	}
	w.learn(ReasonDesired)
	w.desired = n
	w.level.SetDesired(n)
	w.emit(Level, Event{Kind: DesiredChanged, Old: old, New: n})
	w.emit(Edge, Event{Kind: DesiredChanged, Old: old, New: n})
	return nil
}

// SetDrop turns the drop switch on or off: every event emitted on either
// stream while it is on is dropped (a network blip).
func (w *World) SetDrop(on bool) { w.drop = on }

// DuplicateNext arms both streams: the next event each lets through is
// delivered twice. Pressing it again before that changes nothing.
func (w *World) DuplicateNext() {
	for i := range w.sides {
		w.sides[i].stream.dupNext = true
	}
}

// SwapNext arms both streams: the next two events each lets through are
// delivered in the opposite order (the first waits for the second, however
// long that takes). Pressing it again before that changes nothing; pressing
// it while a first event waits arms the pair after.
func (w *World) SwapNext() {
	for i := range w.sides {
		w.sides[i].stream.swapNext = true
	}
}

// ErrRestarting is returned by Restart while the controllers are down.
var ErrRestarting = errors.New("restart: the controllers are already restarting")

// Restart restarts both controllers. For RestartTime they are down: every
// event in flight or held is lost, and every event emitted meanwhile is
// dropped (LossDown), since nobody listens. The edge controller also forgets
// every pod it knew of; it comes back knowing nothing and hearing only new
// events. The level controller comes back and recounts (one Reconcile):
// it lost nothing that matters. It is an error while already restarting.
func (w *World) Restart() error {
	if w.down {
		return ErrRestarting
	}
	w.learn(ReasonRestart)
	w.down, w.upAt = true, w.now+RestartTime
	for s := Level; s <= Edge; s++ {
		w.sides[s].stream.lose()
		w.sides[s].addLog(LogEntry{At: w.now, Trigger: TriggerRestart})
	}
	w.edge.Forget()
	return nil
}

// ---- time ----

type itemKind int

// The things that happen by themselves, in the order they happen when due
// at the same instant: kubelet starts pods first, so the controllers see
// what it reported; the controllers come back before anything is delivered;
// the level controller's resync comes last, after the events of the instant.
const (
	itemLevelStart itemKind = iota
	itemEdgeStart
	itemUp
	itemLevelDeliver
	itemEdgeDeliver
	itemResync
)

type item struct {
	kind itemKind
	at   time.Duration
	pod  string
}

// nextTick returns the first multiple of Resync strictly after now.
func nextTick(now time.Duration) time.Duration { return (now/Resync + 1) * Resync }

// resyncAt returns when the level controller's next resync would run, and
// false when it would not: it is down, or a recount would change nothing.
func (w *World) resyncAt() (time.Duration, bool) {
	if w.down {
		return 0, false
	}
	f, c, d := w.level.Would(w.levelCl)
	if f+c+d == 0 {
		return 0, false
	}
	if w.tickAt < w.now {
		return nextTick(w.now), true
	}
	return w.tickAt, true
}

// next returns the next thing that happens by itself.
func (w *World) next() (item, bool) {
	var best item
	ok := false
	consider := func(it item) {
		if !ok || it.at < best.at {
			best, ok = it, true
		}
	}
	for s, kind := range [2]itemKind{itemLevelStart, itemEdgeStart} {
		var first item
		found := false
		for name, at := range w.sides[s].startAt {
			if !found || at < first.at || (at == first.at && name < first.pod) {
				first, found = item{kind: kind, at: at, pod: name}, true
			}
		}
		if found {
			consider(first)
		}
	}
	if w.down {
		consider(item{kind: itemUp, at: w.upAt})
	}
	if at, due := w.sides[Level].stream.next(); due {
		consider(item{kind: itemLevelDeliver, at: at})
	}
	if at, due := w.sides[Edge].stream.next(); due {
		consider(item{kind: itemEdgeDeliver, at: at})
	}
	if at, due := w.resyncAt(); due {
		consider(item{kind: itemResync, at: at})
	}
	return best, ok
}

// NextDue returns how much virtual time may pass before something happens by
// itself (a pod starts, an event arrives, the controllers come back up, or
// the level controller resyncs because its world differs from what is
// declared), and false when nothing will: a quiet world sets no timer. An
// event held for a swap waits for its partner and sets no timer either.
func (w *World) NextDue() (time.Duration, bool) {
	it, ok := w.next()
	if !ok || it.at > maxClock {
		return 0, false // the clock stops at maxClock: what is due later never is
	}
	return max(0, it.at-w.now), true
}

// Advance lets d of virtual time pass (pause and speed are the caller's).
// Everything due meanwhile happens in time order; see NextDue.
func (w *World) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	target := min(w.now+min(d, maxAdvance), maxClock)
	for {
		it, ok := w.next()
		if !ok || it.at > target {
			break
		}
		w.now = max(w.now, it.at)
		w.do(it)
	}
	w.now = max(w.now, target)
	if w.tickAt <= w.now {
		w.tickAt = nextTick(w.now)
	}
}

func (w *World) do(it item) {
	switch it.kind {
	case itemLevelStart:
		delete(w.sides[Level].startAt, it.pod)
		if w.levelCl.Start(it.pod) {
			w.emit(Level, Event{Kind: PodRunning, Pod: podOf(it.pod)})
		}
	case itemEdgeStart:
		delete(w.sides[Edge].startAt, it.pod)
		if w.edgeCl.start(it.pod) {
			w.emit(Edge, Event{Kind: PodRunning, Pod: podOf(it.pod)})
		}
	case itemUp:
		w.down = false
		w.learn(ReasonRestart)
		w.reconcileLevel(LogEntry{Trigger: TriggerStartup})
		w.sides[Edge].addLog(LogEntry{At: w.now, Trigger: TriggerStartup, Known: len(w.edge.known)})
	case itemLevelDeliver:
		// Every event due now is answered by one recount: the events are
		// only a reason to look, what the controller acts on is the world.
		var last Event
		n := 0
		for {
			at, due := w.sides[Level].stream.next()
			if !due || at > w.now {
				break
			}
			last, _ = w.sides[Level].stream.deliver(w.now)
			n++
		}
		w.reconcileLevel(LogEntry{Trigger: TriggerEvent, Heard: last, Copy: last.Delivered, Events: n})
	case itemEdgeDeliver:
		if ev, ok := w.sides[Edge].stream.deliver(w.now); ok {
			w.handleEdge(ev, TriggerEvent)
		}
	case itemResync:
		w.tickAt = it.at + Resync
		w.reconcileLevel(LogEntry{Trigger: TriggerResync})
	}
}

// reconcileLevel runs chapter 000's Reconcile once, as it is, and turns
// what it did into events of the level cluster.
func (w *World) reconcileLevel(e LogEntry) LogEntry {
	e.At, e.Desired = w.now, w.level.Desired()
	for _, p := range w.levelCl.Pods() {
		if p.Phase == reconcile.Failed {
			e.Failed++
		} else {
			e.Alive++
		}
	}
	for _, a := range w.level.Reconcile(w.levelCl) {
		switch a.Kind {
		case "create":
			w.sides[Level].startAt[a.Pod] = w.now + StartDelay
			w.emit(Level, Event{Kind: PodCreated, Pod: podOf(a.Pod)})
			e.add(Action{Kind: ActCreate, Pod: podOf(a.Pod)})
		case "delete":
			delete(w.sides[Level].startAt, a.Pod)
			w.emit(Level, Event{Kind: PodDeleted, Pod: podOf(a.Pod)})
			e.add(Action{Kind: ActDelete, Pod: podOf(a.Pod)})
		}
	}
	return w.sides[Level].addLog(e)
}

// handleEdge hands one delivered event to the edge controller and turns
// what it did into events of the edge cluster.
func (w *World) handleEdge(ev Event, trigger Trigger) LogEntry {
	e := LogEntry{At: w.now, Trigger: trigger, Heard: ev, Copy: ev.Delivered, Events: 1}
	actions := w.edge.Handle(ev, w.edgeCl)
	for _, a := range actions {
		switch a.Kind {
		case ActCreate:
			w.sides[Edge].startAt[a.Pod.String()] = w.now + StartDelay
			w.emit(Edge, Event{Kind: PodCreated, Pod: a.Pod})
		case ActDelete:
			delete(w.sides[Edge].startAt, a.Pod.String())
			w.emit(Edge, Event{Kind: PodDeleted, Pod: a.Pod})
		}
		e.add(a)
	}
	if ev.Kind.actionable() {
		switch {
		case ev.Fate == Duplicated && ev.Delivered == 2:
			w.learn(ReasonDuplicate)
		case ev.Fate == Swapped:
			w.learn(ReasonSwap)
		}
	}
	e.Known = len(w.edge.known)
	if len(actions) == 0 {
		// Only noted (created, running, deleted): its memory changed, the
		// stream shows the delivery, and the log keeps room for what it did.
		return e
	}
	return w.sides[Edge].addLog(e)
}

// StepResult says what one Step did on each side; nil where nothing ran.
type StepResult struct {
	Level *LogEntry // nil while the controllers are restarting
	Edge  *LogEntry // nil when no event was in flight
}

// Step does one step of both controllers now, without moving time. The
// level controller runs exactly one Reconcile (a recount, whether or not
// anything differs); the events in flight to it keep flying. The edge
// controller handles exactly its next event in flight, delivered early,
// and nothing when none is in flight: an event that was dropped is not in
// flight, so no number of steps repairs it, and an event held for a swap is
// not in flight until its partner comes. While the controllers are
// restarting neither runs.
func (w *World) Step() StepResult {
	var r StepResult
	if w.down {
		return r
	}
	e := w.reconcileLevel(LogEntry{Trigger: TriggerStep})
	r.Level = &e
	if ev, ok := w.sides[Edge].stream.deliver(w.now); ok {
		e := w.handleEdge(ev, TriggerStep)
		r.Edge = &e
	}
	return r
}
