package controlplane

import (
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file is what the page's fragments read of the cluster, and their
// keys. The engine keeps no versions of its own, and moving time may change
// anything in it (a message lands, a timer fires); so after every change
// (sync marks the reading stale) the demo reads the cluster again, once,
// when a frame or a fragment first asks. Each fragment's props are built
// from that reading, and its key is a hash of exactly the facts it reads:
// equal keys mean equal facts however the state came back to them (a Back,
// a Reset, a guide replayed for another runtime), so no epoch is needed.
// Facts are the same in every language; the props say them.

// reading is the cluster as the fragments read it, at one instant.
type reading struct {
	fresh bool // read since the last change

	now      time.Duration
	live     bool // the guide is over
	guide    cp.GuideState
	runtime  cp.Runtime
	quiz     string
	replicas int  // the Deployment's, as kubectl applied it
	rs       int  // the ReplicaSet's replicas …
	rsMade   bool // … once the Deployment controller has made it
	// the status.readyReplicas of the Deployment (once stored) and of the
	// ReplicaSet (once made), as their controllers last wrote them
	deployReady, rsReady int
	deployMade           bool
	// pods by phase: Running, Pending, Terminating
	running, pending, terminating int

	msgs  []cp.Message // the diagram's messages, oldest first
	ghost *cp.Message  // during the guide: its next message, in flight

	comps    []compFact
	cards    [cp.NodeCount]card
	tray     []podFact // pods with an empty nodeName
	trayNote string    // the catalog key of the tray's note; "" for none
	due      dueFact
	events   []cp.Event // the log's lines the page shows, oldest first
	marks    []mark     // the timeline's event marks, oldest first (marks.go)

	keys keys
}

// compFact is a control-plane program, and the countdown to its restart.
type compFact struct {
	cp.ComponentView
	restart *countdown
}

// card is a node as its card shows it.
type card struct {
	view cp.NodeView
	pods []podFact
	note string     // the catalog key of its note; "" for none
	eta  *countdown // Unknown, or the eviction
}

// podFact is a pod as the page shows it.
type podFact struct {
	cp.PodView
	attempts int  // the scheduler's failed attempts, while it is queued
	killable bool // kubectl may delete it: live, not being deleted, not Terminating
}

// dueFact is what happens next by itself, if anything (ok).
type dueFact struct {
	ok   bool
	kind string
	eta  countdown
}

// countdown is a sentence the page counts down: the catalog key of its
// text (with arg, if any), when it ends, and the time left at the reading.
type countdown struct {
	key, arg string
	at, in   time.Duration
}

// keys are the fragments' keys, hashed from the reading.
type keys struct {
	guide, sequence, apply, objects, components, tray, skip, next, quiz, runtime, log, live, marks uint64

	nodes [cp.NodeCount]uint64 // one per node card
}

// facts returns the reading of the cluster as it is now.
func (d *Demo) facts() *reading {
	if !d.seen.fresh {
		d.seen = d.read()
	}
	return &d.seen
}

// read reads the cluster for the fragments.
func (d *Demo) read() reading {
	c := d.cl()
	now := d.Now()
	// The engine's times are its own; the page shows the demo's, base
	// later (see Demo).
	at := func(t time.Duration) time.Duration { return d.base + t }
	events := c.Events()
	r := reading{fresh: true, now: now, guide: c.Guide(), runtime: c.Runtime(), quiz: d.quiz, replicas: c.Replicas(),
		msgs: c.Messages(), marks: marksOf(events, d.base)}
	r.events = ui.Newest(events) // its times are moved below, in place
	for i := range r.msgs {
		r.msgs[i].Sent, r.msgs[i].Arrive = at(r.msgs[i].Sent), at(r.msgs[i].Arrive)
	}
	for i := range r.events {
		r.events[i].At = at(r.events[i].At)
	}
	r.live = r.guide.Step == r.guide.Total
	_, r.rs, r.rsMade = c.ReplicaSet()
	if v, ok := c.ReplicaSetView(); ok {
		r.rsReady = v.ReadyReplicas
	}
	if v, ok := c.DeploymentView(); ok {
		r.deployMade, r.deployReady = true, v.ReadyReplicas
	}
	inflight := c.InFlight()
	if !r.live && len(inflight) > 0 {
		g := inflight[0]
		g.Sent, g.Arrive = at(g.Sent), at(g.Arrive)
		r.ghost = &g
	}

	for _, cv := range c.Components() {
		f := compFact{ComponentView: cv}
		if cv.RestartIn > 0 {
			f.restart = &countdown{key: "cp.eta.restart", at: now + cv.RestartIn, in: cv.RestartIn}
		}
		r.comps = append(r.comps, f)
	}
	schedOn, cmOn := r.comps[0].Running, r.comps[1].Running

	// The scheduler's queue and the node lifecycle controller's memory, as
	// the engine's snapshot states them (once it is live).
	queued := map[string]int{}
	var nlc []cp.NLCNodeState
	if r.guide.Live {
		if st := c.Snapshot().Live; st != nil {
			for _, q := range st.Scheduler.Queue {
				queued[q.Pod] = q.Attempts
			}
			nlc = st.CM.Nodes
		}
	}
	killing := map[string]bool{}
	for _, m := range inflight {
		if m.From == cp.LaneKubectl && m.Reason == cp.ReasonKill {
			for _, o := range m.Objects {
				killing[o.Name] = true
			}
		}
	}
	byNode := map[string][]podFact{}
	for _, pod := range c.Pods() {
		switch pod.Phase {
		case cp.PhaseRunning:
			r.running++
		case cp.PhasePending:
			r.pending++
		default:
			r.terminating++
		}
		if pod.Evicting {
			pod.EvictAt = at(pod.EvictAt)
		}
		pf := podFact{PodView: pod, attempts: queued[pod.Name],
			killable: r.live && !killing[pod.Name] && pod.Phase != cp.PhaseTerminating}
		if pod.Node == "" {
			r.tray = append(r.tray, pf)
		} else {
			byNode[pod.Node] = append(byNode[pod.Node], pf)
		}
	}

	// Each node's countdown or note comes from the node lifecycle
	// controller's memory: a stopped kubelet's node goes Unknown
	// NodeMonitorGracePeriod after its last renewal (or after the controller
	// started watching, if later); the pods on a node with the NoExecute
	// taint are evicted as their tolerations (DefaultTolerationSeconds
	// each) run out, and the card counts down to the first.
	cnow := at(c.Now()) // the engine's instant, without its rest under a millisecond
	for i, n := range c.Nodes() {
		n.LastRenew = at(n.LastRenew)
		cd := card{view: n, pods: byNode[n.Name]}
		var mem *cp.NLCNodeState
		if i < len(nlc) {
			mem = &nlc[i]
		}
		alive, doomed := 0, 0
		evict, evicting := time.Duration(0), false
		for _, pod := range cd.pods {
			if pod.Phase == cp.PhaseTerminating {
				doomed++
			} else {
				alive++
			}
			if pod.Evicting && (!evicting || pod.EvictAt < evict) {
				evict, evicting = pod.EvictAt, true
			}
		}
		switch {
		case !r.live || n.Kubelet:
		case n.Ready == cp.ConditionTrue && !cmOn:
			cd.note = "cp.node.cm-stopped"
		case n.Ready == cp.ConditionTrue && mem != nil:
			since := cnow - time.Duration(mem.SinceAgo)*time.Millisecond
			end := max(n.LastRenew, since) + cp.NodeMonitorGracePeriod
			cd.eta = &countdown{key: "cp.eta.unknown", arg: ui.ClockText(n.LastRenew), at: end, in: max(end-now, 0)}
		case n.Tainted && alive > 0 && !cmOn:
			cd.note = "cp.node.no-eviction"
		case evicting:
			cd.eta = &countdown{key: "cp.eta.evict", at: evict, in: max(evict-now, 0)}
		case doomed > 0 && alive == 0:
			cd.note = "cp.node.gone"
		}
		r.cards[i] = cd
	}
	switch {
	case len(r.tray) == 0:
	case !r.live:
		r.trayNote = "cp.tray.guide"
	case !schedOn:
		r.trayNote = "cp.tray.stopped"
	case len(queued) > 0:
		r.trayNote = "cp.tray.nofit"
	default:
		r.trayNote = "cp.tray.placing"
	}

	if due, ok := c.NextEvent(); ok {
		name := due.Name
		switch due.Kind {
		case cp.DueMessage:
			name = laneName(due.Name)
		case cp.DueRetry:
			name = podSuffix(due.Name)
		case cp.DueRestart:
			name = cp.ProcessScheduler
		}
		r.due = dueFact{ok: true, kind: due.Kind, eta: countdown{key: "cp.next." + due.Kind, arg: name, at: now + due.In, in: due.In}}
	}
	r.keys = r.hashKeys()
	return r
}

// guideMsg returns the message the guide's bar says: the newest one, but
// while the only messages after the guide's eleventh are the status
// roll-up it sets off (the pods' Ready heard, then readyReplicas written
// on the ReplicaSet and the Deployment), the eleventh: the guide ends on
// the chapter's last message. Nil before the first.
func (r *reading) guideMsg() *cp.Message {
	n := len(r.msgs)
	if r.guide.Step == 0 || n == 0 {
		return nil
	}
	if r.live {
		for i := n - 1; i >= 0; i-- {
			m := &r.msgs[i]
			if m.Step == cp.GuideSteps {
				return m
			}
			if !rollUp(m) {
				break
			}
		}
	}
	return &r.msgs[n-1]
}

// rollUp reports whether m is part of a status roll-up: readyReplicas
// written, or a pod's status change heard by a controller.
func rollUp(m *cp.Message) bool {
	switch m.Reason {
	case cp.ReasonRSStatus, cp.ReasonDeployStatus:
		return true
	case cp.ReasonPodRunning:
		return m.Kind == cp.KindWatch
	}
	return false
}

// hashKeys hashes each fragment's facts into its key.
func (r *reading) hashKeys() keys {
	var k keys
	last := r.guideMsg()

	var h sum
	h.n(r.guide.Step)
	h.b(r.guide.CanBack && !r.live) // Back stops at the guide's end
	h.msg(last)
	h.msg(r.ghost)
	k.guide = h.done()

	h.b(r.live)
	if r.live {
		for _, c := range r.comps {
			h.b(c.Running)
		}
		for _, cd := range r.cards {
			h.b(cd.view.Kubelet)
		}
	}
	h.n(len(r.msgs))
	for i := range r.msgs {
		h.msg(&r.msgs[i])
	}
	h.msg(r.ghost)
	k.sequence = h.done()

	h.n(r.replicas)
	h.b(r.guide.Step >= 1)
	h.b(r.live)
	k.apply = h.done()

	h.b(r.guide.Step >= 1)
	h.n(r.replicas)
	h.b(r.rsMade)
	h.n(r.rs)
	h.b(r.deployMade)
	h.n(r.deployReady)
	h.n(r.rsReady)
	h.n(r.running)
	h.n(r.pending)
	h.n(r.terminating)
	k.objects = h.done()

	h.b(r.live)
	for _, c := range r.comps {
		h.s(c.Name)
		h.b(c.Running)
		h.eta(c.restart)
	}
	k.components = h.done()

	h.s(r.trayNote)
	h.pods(r.tray)
	k.tray = h.done()

	for i, cd := range r.cards {
		n := cd.view
		h.b(r.live)
		h.s(n.Name)
		h.s(string(n.Ready))
		h.b(n.Kubelet)
		h.b(n.Tainted)
		h.n(len(n.Taints))
		for _, tn := range n.Taints {
			h.s(tn.Key)
			h.s(tn.Effect)
		}
		h.s(n.PodCIDR)
		h.n(n.Pods)
		h.pods(cd.pods)
		h.s(cd.note)
		h.eta(cd.eta)
		k.nodes[i] = h.done()
	}

	k.skip = demo.B(r.due.ok)

	h.b(r.live)
	if r.due.ok {
		h.s(r.due.kind)
		h.eta(&r.due.eta)
	}
	k.next = h.done()

	k.quiz = demo.Str(r.quiz)
	k.runtime = demo.Str(string(r.runtime))

	h.n(len(r.events))
	for i := range r.events {
		h.event(&r.events[i])
	}
	k.log = h.done()

	h.b(r.live)
	if r.live {
		if n := len(r.events); n > 0 {
			h.event(&r.events[n-1])
		}
	} else {
		h.n(r.guide.Step)
		h.msg(last)
	}
	k.live = h.done()

	h.marks(r.marks)
	k.marks = h.done()
	return k
}

// sum hashes the facts a fragment reads into its key.
type sum uint64

// done returns the key and starts the next one.
func (h *sum) done() uint64 {
	k := uint64(*h)
	*h = 0
	return k
}

func (h *sum) u(v uint64)        { *h = sum(demo.Mix(uint64(*h), v)) }
func (h *sum) n(v int)           { h.u(demo.I(v)) }
func (h *sum) b(v bool)          { h.u(demo.B(v)) }
func (h *sum) s(v string)        { h.u(demo.Str(v)) }
func (h *sum) d(v time.Duration) { h.u(uint64(v)) }

func (h *sum) strs(vs []string) {
	h.n(len(vs))
	for _, v := range vs {
		h.s(v)
	}
}

// msg hashes a message as the diagram and the guide's bar draw it; nil
// hashes as no message.
func (h *sum) msg(m *cp.Message) {
	if m == nil {
		h.b(false)
		return
	}
	h.b(true)
	h.n(m.Seq)
	h.n(m.Step)
	h.d(m.Arrive)
	h.s(m.From)
	h.s(m.To)
	h.s(m.Kind)
	h.s(m.Verb)
	h.s(m.Resource)
	h.s(m.Sub)
	h.s(m.Reason)
	h.n(m.Value)
	h.s(m.Image)
	h.strs(m.Calls)
	h.strs(m.Via)
	h.n(len(m.Objects))
	for _, o := range m.Objects {
		h.s(o.Name)
		h.s(o.Node)
	}
}

func (h *sum) pods(ps []podFact) {
	h.n(len(ps))
	for _, p := range ps {
		h.s(p.Name)
		h.s(p.Node)
		h.s(string(p.Phase))
		h.s(p.IP)
		h.b(p.Ready)
		h.b(p.Evicting)
		h.d(p.EvictAt)
		h.n(p.attempts)
		h.b(p.killable)
	}
}

// eta hashes a countdown as the page draws it: the text between frames is
// the page's own (it counts down to at), so the time left is not hashed.
func (h *sum) eta(c *countdown) {
	if c == nil {
		h.b(false)
		return
	}
	h.b(true)
	h.s(c.key)
	h.s(c.arg)
	h.u(uint64(c.at.Milliseconds()))
}

func (h *sum) event(e *cp.Event) {
	h.n(e.Seq)
	h.d(e.At)
	h.s(e.Kind)
	h.s(e.Name)
	h.s(e.Node)
	h.s(e.Status)
	h.n(e.N)
	h.n(e.M)
	h.n(e.K)
	h.d(e.Wait)
}
