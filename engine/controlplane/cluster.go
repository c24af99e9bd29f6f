package controlplane

import (
	"slices"
	"time"
)

// Bounds. Every list the engine keeps is bounded by one of these.
const (
	// MaxReplicas is the largest replica count a visitor may apply.
	MaxReplicas = 10
	// MaxPods bounds the pods that can exist: at most MaxReplicas that are
	// not being deleted, plus the terminating ones, which are all bound and
	// so at most NodeCount×NodeCapacity.
	MaxPods = NodeCount*NodeCapacity + MaxReplicas
	// DiagramSize is how many of the last delivered messages are kept for
	// the sequence diagram.
	DiagramSize = 12
	// MaxEvents is how many log events are kept.
	MaxEvents = 64
	// MaxInFlight bounds the messages in flight at once. Each component
	// keeps at most one request per object in flight and each write is heard
	// by a handful of watchers, so the engine stays far below it; Restore
	// refuses more.
	MaxInFlight = 64
)

// maxClock bounds virtual time (about 31 years), so every snapshot it
// writes stays restorable; maxAdvance bounds one Advance.
const (
	maxClock   = time.Duration(maxSnapshotNow) * time.Millisecond
	maxAdvance = 24 * time.Hour
)

// maxItems bounds the things one Advance may process: far more than a day of
// a busy cluster, so it is never reached; it only guarantees Advance returns.
const maxItems = 1 << 16

// Cluster is the chapter's cluster: an apiserver, the control plane's
// components and three nodes, on a virtual clock. It starts empty with the
// chapter's kubectl apply unsent (the guide); after the guide's eleventh
// message it is live.
type Cluster struct {
	seed uint64
	rand rng
	now  time.Duration // always a whole number of milliseconds
	// rest is virtual time Advance was given but has not moved the clock by:
	// less than a millisecond. The clock moves in whole milliseconds, so
	// every time the engine stores is on a millisecond and a snapshot (in
	// milliseconds) holds it exactly; the rest carries to the next Advance.
	rest    time.Duration
	guide   int  // guided messages delivered, 0..GuideSteps
	live    bool // time or a command has moved the cluster past the guide
	runtime Runtime

	api     apiServer
	rt      [NodeCount]nodeRuntime
	running map[string]bool // by process
	synced  map[string]bool // by component id: its watch has listed
	sched   schedState
	nlc     nlcState
	comps   []*component

	// restartAt is when a stopped scheduler starts again by itself (the
	// scheduler-outage preset); restartSet says whether it will.
	restartAt  time.Duration
	restartSet bool

	inflight []*Message // sent, not arrived; by Arrive, then Seq
	msgSeq   int
	diagram  ring[Message]
	events   ring[Event]
	eventSeq int

	// Test hooks: every delivered message, and every binding decision.
	trace  func(Message)
	onBind func(binds []Object)
	// stalled records that an Advance hit maxItems (tests check it never does).
	stalled bool
}

// New returns the guide's starting state: three Ready nodes, every component
// running, no objects, and the chapter's kubectl apply of the Deployment web
// (replicas 3) waiting to be sent. seed names the pods; the same seed gives
// the same names.
func New(seed uint64) *Cluster {
	c := &Cluster{seed: seed, rand: rng{s: seed}, runtime: RuntimeContainerd}
	c.init()
	for _, comp := range c.comps {
		c.synced[comp.id] = true
	}
	c.send(Message{From: LaneKubectl, To: LaneAPIServer, Kind: KindWrite, Verb: VerbPost, Resource: ResDeployment,
		Reason: ReasonApply, Value: 3, Objects: []Object{{Name: DeploymentName}}})
	return c
}

// init sets up an empty world with every process running.
func (c *Cluster) init() {
	c.api = newAPIServer()
	for i := range c.rt {
		c.rt[i] = nodeRuntime{sandboxes: map[string]*sandbox{}}
	}
	c.running = map[string]bool{ProcessScheduler: true, ProcessControllerManager: true}
	for _, n := range nodeNames {
		c.running[n] = true
	}
	c.synced = map[string]bool{}
	c.sched = schedState{queue: map[string]*queued{}}
	c.comps = newComponents()
	c.diagram = ring[Message]{size: DiagramSize}
	c.events = ring[Event]{size: MaxEvents}
}

// Seed returns the seed the cluster was made with.
func (c *Cluster) Seed() uint64 { return c.seed }

// Now returns the virtual time since the cluster was made.
func (c *Cluster) Now() time.Duration { return c.now }

// Elapsed returns all the virtual time Advance was given: Now and the rest
// under a millisecond that has not moved the clock yet.
func (c *Cluster) Elapsed() time.Duration { return c.now + c.rest }

// Advance lets d of virtual time pass, delivering messages and firing timers
// as their times come, in time order. The clock moves in whole
// milliseconds; a rest under a millisecond carries to the next Advance, so
// many small steps add up. During the guide time does not run: Next moves
// it.
func (c *Cluster) Advance(d time.Duration) {
	if c.guide < GuideSteps || d <= 0 {
		return
	}
	c.live = true
	d = min(d, maxAdvance) + c.rest
	c.rest = d % time.Millisecond
	target := min(c.now+d-c.rest, maxClock)
	for range maxItems {
		it, ok := c.next()
		if !ok || it.at > target {
			c.now = max(c.now, target)
			return
		}
		c.process(it)
	}
	c.stalled = true
}

// NextDue returns the virtual time until something happens by itself — a
// message arrives, a node's grace period ends, pods are evicted, the
// scheduler retries — and false when nothing will. Heartbeats are derived
// from time, not ticked, so a converged cluster with every node up returns
// false: it needs no timer at all. During the guide it returns false.
func (c *Cluster) NextDue() (time.Duration, bool) {
	if c.guide < GuideSteps {
		return 0, false
	}
	it, ok := c.next()
	if !ok {
		return 0, false
	}
	return max(it.at-c.now-c.rest, 0), true
}

// Due is the next thing that happens by itself.
type Due struct {
	In   time.Duration // virtual time until it
	Kind string        // a Due* constant
	Name string        // the message's receiving lane, the node, or the pod
}

// Kinds of Due.
const (
	DueMessage       = "message"           // a message arrives at lane Name
	DueNodeUnknown   = "node-unknown"      // node Name's grace period ends: Ready → Unknown
	DueNodeLifecycle = "node-lifecycle"    // the node lifecycle controller acts on node Name now (taint, untaint, mark its pods not Ready)
	DueEviction      = "eviction"          // pods on node Name are evicted: their NoExecute toleration ends
	DueRetry         = "scheduler-retry"   // the scheduler retries pod Name (backoff ended, or the 5-minute flush)
	DueRestart       = "scheduler-restart" // the scheduler starts again (the outage preset's minute is over)
)

// NextEvent returns what NextDue waits for, and false when nothing will
// happen by itself.
func (c *Cluster) NextEvent() (Due, bool) {
	if c.guide < GuideSteps {
		return Due{}, false
	}
	it, ok := c.next()
	if !ok {
		return Due{}, false
	}
	d := Due{In: max(it.at-c.now-c.rest, 0), Name: it.name}
	switch it.kind {
	case dueMessage:
		d.Kind, d.Name = DueMessage, it.msg.To
	case dueRestart:
		d.Kind = DueRestart
	case dueNLC:
		d.Kind = DueNodeLifecycle
		switch it.reason {
		case ReasonNodeUnknown:
			d.Kind = DueNodeUnknown
		case ReasonEvict:
			d.Kind = DueEviction
		}
	case dueSched:
		d.Kind = DueRetry
	}
	return d, true
}

// Step processes exactly one thing: the next message to arrive or the next
// timer, moving virtual time to it. It returns how far time moved, and false
// (doing nothing) when nothing is due or the guide is not over.
func (c *Cluster) Step() (time.Duration, bool) {
	if c.guide < GuideSteps {
		return 0, false
	}
	it, ok := c.next()
	if !ok {
		return 0, false
	}
	c.live = true
	from := c.now
	c.process(it)
	return c.now - from, true
}

// SkipToNext jumps virtual time to the next moment something happens — never
// a routine heartbeat, which is not an event — and processes everything due
// at that moment. On a quiet cluster with a stopped node, two presses reach
// the node's Unknown and then its pods' eviction. It returns how far time
// moved, and false (doing nothing) when nothing is due or the guide is not
// over.
func (c *Cluster) SkipToNext() (time.Duration, bool) {
	if c.guide < GuideSteps {
		return 0, false
	}
	it, ok := c.next()
	if !ok {
		return 0, false
	}
	c.live = true
	from, at := c.now, it.at
	for range maxItems {
		c.process(it)
		if it, ok = c.next(); !ok || it.at > at {
			return c.now - from, true
		}
	}
	c.stalled = true
	return c.now - from, true
}

// item is one thing due: a message to deliver or a component's timer.
type item struct {
	at     time.Duration
	kind   int
	msg    *Message
	name   string // the node or pod a timer is for
	reason string // what the node lifecycle controller will do
}

const (
	dueMessage = iota
	dueRestart
	dueNLC
	dueSched
)

// next returns the earliest item. At equal times messages come first (by
// Seq), then timers in the order of the constants above. A timer whose time
// has passed is due now.
func (c *Cluster) next() (item, bool) {
	var best item
	ok := false
	consider := func(it item) {
		it.at = max(it.at, c.now)
		if !ok || it.at < best.at {
			best, ok = it, true
		}
	}
	if len(c.inflight) > 0 {
		m := c.inflight[0]
		consider(item{at: m.Arrive, kind: dueMessage, msg: m})
	}
	if c.restartSet {
		consider(item{at: c.restartAt, kind: dueRestart})
	}
	if comp := c.component(LaneNodeLife); c.active(comp) {
		v := c.view(comp)
		for i := range nodeNames {
			for _, a := range c.nlc.plan(v, i) {
				consider(item{at: a.at, kind: dueNLC, name: nodeNames[i], reason: a.msg.Reason})
			}
		}
	}
	if comp := c.component(LaneScheduler); c.active(comp) {
		if at, pod, due := c.sched.next(); due {
			consider(item{at: at, kind: dueSched, name: pod})
		}
	}
	return best, ok
}

// process moves the clock to the item and handles it.
func (c *Cluster) process(it item) {
	c.now = max(c.now, it.at)
	switch it.kind {
	case dueMessage:
		c.deliver(it.msg)
	case dueRestart:
		c.restartSet = false
		c.setProcess(ProcessScheduler, true)
	case dueNLC:
		c.runComponent(c.component(LaneNodeLife), trigger{kind: onTimer})
	case dueSched:
		c.runComponent(c.component(LaneScheduler), trigger{kind: onTimer})
	}
}

// component returns the descriptor with the given id.
func (c *Cluster) component(id string) *component {
	for _, comp := range c.comps {
		if comp.id == id {
			return comp
		}
	}
	return nil
}

// active reports whether a component runs and has listed.
func (c *Cluster) active(comp *component) bool {
	return c.running[comp.process] && c.synced[comp.id]
}

func (c *Cluster) view(comp *component) *view {
	v := &view{api: &c.api, inflight: c.inflight, now: c.now, guided: c.guide < GuideSteps, onBind: c.onBind}
	switch comp.lane {
	case LaneKubelet:
		v.rt = &c.rt[nodeIndex(comp.node)]
	case LaneScheduler:
		v.sched = &c.sched
	case LaneNodeLife:
		v.nlc = &c.nlc
	}
	return v
}

// runComponent runs a component for a trigger, if it is running (and, but
// for its LIST, has listed), and sends what it returns.
func (c *Cluster) runComponent(comp *component, t trigger) {
	if !c.running[comp.process] {
		return
	}
	if t.kind == onList {
		c.synced[comp.id] = true
	} else if !c.synced[comp.id] {
		return
	}
	v := c.view(comp)
	reqs := comp.run(v, t)
	for _, e := range v.events {
		c.logEvent(e)
	}
	for _, r := range reqs {
		r.From = comp.lane
		c.send(r)
	}
}

// send puts a message in flight. A message sent at the same instant as an
// in-flight one of the same shape joins it: one arrow, several objects.
func (c *Cluster) send(m Message) {
	m.Sent = c.now
	if m.Kind == KindCRI {
		m.Via = c.runtime.via()
		if slices.Contains(m.Calls, CallPullImage) {
			m.Image = Image
		}
	}
	m.Arrive = c.now + latency(m.Kind, m.Calls, m.Via)
	for _, g := range c.inflight {
		if sameArrow(g, &m) {
			g.Objects = append(g.Objects, m.Objects...)
			return
		}
	}
	c.msgSeq = min(c.msgSeq+1, maxRV)
	m.Seq = c.msgSeq
	p := &m
	i, _ := slices.BinarySearchFunc(c.inflight, p, func(a, b *Message) int {
		if a.Arrive != b.Arrive {
			return int(a.Arrive - b.Arrive)
		}
		return a.Seq - b.Seq
	})
	c.inflight = slices.Insert(c.inflight, i, p)
}

// deliver makes a message arrive: a write takes effect in the apiserver,
// which tells its watchers; a notification runs its watcher; a CRI call
// takes effect in containerd. Then the sender of a write or a call runs
// again, its request answered.
func (c *Cluster) deliver(m *Message) {
	c.inflight = slices.DeleteFunc(c.inflight, func(x *Message) bool { return x == m })
	if c.guide < GuideSteps {
		m.Step = c.guide + 1
	}
	switch m.Kind {
	case KindWrite:
		for i := range m.Objects {
			if ch, ok := c.api.apply(m, &m.Objects[i], &c.rand); ok {
				c.logChange(ch, m, m.Objects[i].IP)
				c.fanOut(ch)
			}
		}
	case KindCRI:
		for _, o := range m.Objects {
			if i := nodeIndex(o.Node); i >= 0 {
				c.rt[i].apply(m.Calls, o.Name)
			}
		}
	}
	c.diagram.add(m.clone())
	if c.trace != nil {
		c.trace(m.clone())
	}
	switch m.Kind {
	case KindWatch:
		kind := onWatch
		if m.Verb == VerbList {
			kind = onList
		}
		for _, comp := range c.receivers(m.To, m.Objects) {
			c.runComponent(comp, trigger{kind: kind, msg: m})
		}
	default:
		for _, comp := range c.receivers(m.From, m.Objects) {
			c.runComponent(comp, trigger{kind: onDone, msg: m})
		}
	}
}

// receivers returns the components of a lane a message concerns: for the
// kubelet lane, the kubelets of the nodes its objects are on.
func (c *Cluster) receivers(lane string, objs []Object) []*component {
	var out []*component
	for _, comp := range c.comps {
		if comp.lane != lane {
			continue
		}
		if comp.node == "" || slices.ContainsFunc(objs, func(o Object) bool { return o.Node == comp.node }) {
			out = append(out, comp)
		}
	}
	return out
}

// fanOut sends a change to every running component whose watch covers it.
// A stopped component has no watch open: it hears nothing, and lists what it
// missed when it starts.
func (c *Cluster) fanOut(ch change) {
	for _, comp := range c.comps {
		if !c.running[comp.process] {
			continue
		}
		verb, ok := comp.hears(ch)
		if !ok {
			continue
		}
		o := Object{Name: ch.name, Node: ch.node}
		c.send(Message{From: LaneAPIServer, To: comp.lane, Kind: KindWatch, Verb: verb, Resource: ch.resource,
			Sub: ch.sub, Reason: ch.reason, Value: ch.value, Objects: []Object{o}})
	}
}

// setProcess starts or stops a program. Stopping drops its memory and the
// notifications still on their way to it; a kubelet's Lease stops being
// renewed. Starting opens its watches (a LIST each) and, for a kubelet,
// renews the Lease and reports the node Ready.
func (c *Cluster) setProcess(proc string, running bool) {
	if c.running[proc] == running {
		return
	}
	c.running[proc] = running
	status := StatusStopped
	if running {
		status = StatusRunning
	}
	c.logEvent(Event{Kind: EventProcess, Name: proc, Status: status})
	nd := c.api.node(proc)
	if !running {
		if nd != nil {
			nd.leaseAt, nd.renewing = nd.renewTime(c.now), false
		}
		for _, comp := range c.comps {
			if comp.process != proc {
				continue
			}
			c.synced[comp.id] = false
			c.dropWatch(comp)
		}
		switch proc {
		case ProcessScheduler:
			c.sched = schedState{queue: map[string]*queued{}}
		case ProcessControllerManager:
			c.nlc = nlcState{}
		}
		return
	}
	if nd != nil {
		nd.leaseAt, nd.renewing = c.now, true
		m := nodeReady(proc)
		m.From = LaneKubelet
		c.send(m)
	}
	for _, comp := range c.comps {
		if comp.process != proc {
			continue
		}
		var objs []Object
		if comp.node != "" {
			objs = []Object{{Name: comp.node, Node: comp.node}}
		}
		c.send(Message{From: LaneAPIServer, To: comp.lane, Kind: KindWatch, Verb: VerbList, Resource: comp.list,
			Reason: ReasonList, Objects: objs})
	}
}

// dropWatch removes the notifications on their way to a component.
func (c *Cluster) dropWatch(comp *component) {
	c.inflight = slices.DeleteFunc(c.inflight, func(m *Message) bool {
		if m.Kind != KindWatch || m.To != comp.lane {
			return false
		}
		if comp.node == "" {
			return true
		}
		m.Objects = slices.DeleteFunc(m.Objects, func(o Object) bool { return o.Node == comp.node })
		return len(m.Objects) == 0
	})
}

func (c *Cluster) logEvent(e Event) {
	c.eventSeq = min(c.eventSeq+1, maxRV)
	e.Seq, e.At = c.eventSeq, c.now
	c.events.add(e)
}

// logChange logs what a write changed; ip is the podIP of the object
// written, for the kubelet's status.
func (c *Cluster) logChange(ch change, m *Message, ip string) {
	e := Event{Name: ch.name, Node: ch.node}
	switch m.Reason {
	case ReasonApply:
		e.Kind, e.N = EventDeploymentCreated, m.Value
	case ReasonScale:
		e.Kind, e.N, e.M = EventDeploymentScaled, ch.value, ch.old
	case ReasonCreateRS:
		e.Kind, e.N = EventRSCreated, m.Value
	case ReasonScaleRS:
		e.Kind, e.N, e.M = EventRSScaled, ch.value, ch.old
	case ReasonCreatePods:
		e.Kind = EventPodCreated
	case ReasonBind:
		e.Kind = EventScheduled
	case ReasonPodRunning:
		e.Kind, e.Status = EventPodRunning, ip
	case ReasonKill, ReasonDeletePods, ReasonEvict, ReasonConfirmDelete:
		e.Kind, e.Status = EventPodDeleted, m.Reason
		if ch.doomed {
			e.Kind = EventPodTerminating
		}
	case ReasonNodeReady:
		e.Kind, e.Node, e.Status = EventNodeReady, "", string(ConditionTrue)
	case ReasonNodeUnknown:
		e.Kind, e.Node, e.Status = EventNodeReady, "", string(ConditionUnknown)
	case ReasonTaint:
		e.Kind, e.Node = EventTaint, ""
	case ReasonUntaint:
		e.Kind, e.Node = EventUntaint, ""
	default:
		return // status roll-ups and MarkPodsNotReady: see the Event kinds
	}
	c.logEvent(e)
}
