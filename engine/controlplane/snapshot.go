package controlplane

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// SnapshotVersion is the version of the snapshots this package writes.
// Restore also reads version 1, which had no taints list, podIPs, Ready
// conditions, readyReplicas or per-pod tolerations (snapshot_v1.go); a
// snapshot of any other version is refused.
const SnapshotVersion = 2

// maxSnapshotNow bounds a snapshot's virtual clock in milliseconds: about 31
// years, which the clock never passes (maxClock).
const maxSnapshotNow = int64(1e12)

// Snapshot is the whole cluster as the page keeps it. During the guide (and
// until the cluster goes live) it is the seed, the runtime and the step:
// Restore replays the guide, so the diagram comes back too. Once live it
// holds every object, every component's memory and every message in flight;
// the diagram and the log start afresh (the log with EventRestored). Times are virtual milliseconds,
// relative to Now where they are named …Ago (in the past) or …In (ahead).
// The seed and the generator's state are decimal strings: a JSON number
// loses a uint64's low bits in a browser.
type Snapshot struct {
	V       int        `json:"v"`
	Seed    string     `json:"seed"`
	Runtime string     `json:"runtime"`
	Guide   int        `json:"guide"`
	Live    *LiveState `json:"live,omitempty"`
}

// LiveState is the live cluster in a snapshot.
type LiveState struct {
	Now int64 `json:"now"`
	// Rest is the virtual time, in nanoseconds under a millisecond, that
	// Advance was given and has not moved the clock by.
	Rest   int64  `json:"rest,omitempty"`
	Rand   string `json:"rand"`
	RV     int64  `json:"rv"`
	MsgSeq int    `json:"msgSeq"`
	// The Deployment web and the ReplicaSet web-<hash>: both exist once live.
	Replicas    int            `json:"replicas"`
	DeployReady int            `json:"deployReady,omitempty"` // status.readyReplicas
	DeployRV    int64          `json:"deployRV"`
	RSReplicas  int            `json:"rsReplicas"`
	RSReady     int            `json:"rsReady,omitempty"` // status.readyReplicas
	RSRV        int64          `json:"rsRV"`
	Pods        []PodState     `json:"pods,omitempty"`
	Nodes       []NodeState    `json:"nodes"`
	Scheduler   SchedulerState `json:"scheduler"`
	CM          CMState        `json:"cm"`
	InFlight    []MessageState `json:"inFlight,omitempty"`
}

// PodState is a pod in a snapshot.
type PodState struct {
	Name        string `json:"name"`
	Node        string `json:"node,omitempty"`
	Running     bool   `json:"running,omitempty"`
	Ready       bool   `json:"ready,omitempty"`
	IP          string `json:"ip,omitempty"`
	Terminating bool   `json:"terminating,omitempty"`
	Created     int64  `json:"created"`
	RV          int64  `json:"rv"`
}

// NodeState is a node in a snapshot: its object, its Lease, its kubelet and
// its containerd.
type NodeState struct {
	Name  string `json:"name"`
	Ready string `json:"ready"`
	// Tainted is version 1's taint (unreachable:NoExecute alone); version 2
	// writes Taints.
	Tainted bool    `json:"tainted,omitempty"`
	Taints  []Taint `json:"taints,omitempty"`
	RV      int64   `json:"rv"`
	Kubelet bool    `json:"kubelet"`
	Synced  bool    `json:"synced,omitempty"`
	// LeaseAgo is, while the kubelet runs, when it started renewing; else
	// the last renewal.
	LeaseAgo  int64          `json:"leaseAgo"`
	Image     bool           `json:"image,omitempty"`
	Sandboxes []SandboxState `json:"sandboxes,omitempty"`
	// LastHost is the host part of the pod address the node's CNI IPAM
	// reserved last (0 before any).
	LastHost int `json:"lastHost,omitempty"`
}

// SandboxState is a pod's sandbox in containerd, with its IP.
type SandboxState struct {
	Pod     string `json:"pod"`
	IP      string `json:"ip,omitempty"`
	Started bool   `json:"started,omitempty"`
}

// SchedulerState is kube-scheduler in a snapshot.
type SchedulerState struct {
	Running   bool          `json:"running"`
	Synced    bool          `json:"synced,omitempty"`
	Restart   bool          `json:"restart,omitempty"`
	RestartIn int64         `json:"restartIn,omitempty"`
	Queue     []QueuedState `json:"queue,omitempty"`
}

// QueuedState is a pod waiting in the scheduler's queue.
type QueuedState struct {
	Pod      string `json:"pod"`
	Attempts int    `json:"attempts"`
	LastAgo  int64  `json:"lastAgo"`
	Backoff  bool   `json:"backoff,omitempty"` // in backoffQ; else in unschedulablePods
}

// CMState is kube-controller-manager in a snapshot: whether it runs, which
// of its controllers have listed (Deployment, ReplicaSet, node lifecycle),
// and the node lifecycle controller's memory, per node.
type CMState struct {
	Running bool           `json:"running"`
	Synced  [3]bool        `json:"synced"`
	Nodes   []NLCNodeState `json:"nodes,omitempty"`
}

// NLCNodeState is what the node lifecycle controller remembers of a node:
// since when it watches it, and when each of its pods' NoExecute toleration
// ends (Tolerations, by pod, in milliseconds from now: negative once past).
// Evict and EvictIn say the earliest of those, for the page's countdown.
type NLCNodeState struct {
	SinceAgo    int64            `json:"sinceAgo"`
	Evict       bool             `json:"evict,omitempty"`
	EvictIn     int64            `json:"evictIn,omitempty"`
	Tolerations map[string]int64 `json:"tolerations,omitempty"`
}

// MessageState is a message in flight.
type MessageState struct {
	Seq      int      `json:"seq"`
	SentAgo  int64    `json:"sentAgo"`
	In       int64    `json:"in"`
	From     string   `json:"from"`
	To       string   `json:"to"`
	Kind     string   `json:"kind"`
	Verb     string   `json:"verb,omitempty"`
	Resource string   `json:"resource,omitempty"`
	Sub      string   `json:"sub,omitempty"`
	Reason   string   `json:"reason"`
	Value    int      `json:"value,omitempty"`
	Calls    []string `json:"calls,omitempty"`
	Via      []string `json:"via,omitempty"`
	Image    string   `json:"image,omitempty"`
	Objects  []Object `json:"objects,omitempty"`
}

// cmComponents are the controller-manager's controllers in CMState.Synced order.
var cmComponents = [3]string{LaneDeployment, LaneReplicaSet, LaneNodeLife}

func ms(d time.Duration) int64  { return d.Milliseconds() }
func dur(x int64) time.Duration { return time.Duration(x) * time.Millisecond }

func orNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// Snapshot returns the cluster's snapshot.
func (c *Cluster) Snapshot() Snapshot {
	s := Snapshot{V: SnapshotVersion, Seed: strconv.FormatUint(c.seed, 10), Runtime: string(c.runtime), Guide: c.guide}
	if !c.live {
		return s
	}
	l := &LiveState{Now: ms(c.now), Rest: int64(c.rest), Rand: strconv.FormatUint(c.rand.s, 10), RV: c.api.rv, MsgSeq: c.msgSeq,
		Replicas: c.api.deploy.replicas, DeployReady: c.api.deploy.ready, DeployRV: c.api.deploy.rv,
		RSReplicas: c.api.rs.replicas, RSReady: c.api.rs.ready, RSRV: c.api.rs.rv}
	for _, p := range c.api.sortedPods() {
		l.Pods = append(l.Pods, PodState{Name: p.name, Node: p.node, Running: p.running, Ready: p.ready, IP: p.ip,
			Terminating: p.terminating, Created: p.created, RV: p.rv})
	}
	for i, n := range nodeNames {
		nd, rt := c.api.nodes[i], &c.rt[i]
		ns := NodeState{Name: n, Ready: string(nd.ready), Taints: orNil(nd.taints), RV: nd.rv, Kubelet: c.running[n],
			Synced: c.synced[LaneKubelet+"/"+n], LeaseAgo: ms(c.now - nd.leaseAt), Image: rt.image, LastHost: rt.lastHost}
		for _, pod := range sortedKeys(rt.sandboxes) {
			sb := rt.sandboxes[pod]
			ns.Sandboxes = append(ns.Sandboxes, SandboxState{Pod: pod, IP: podIP(i, sb.host), Started: sb.started})
		}
		l.Nodes = append(l.Nodes, ns)
	}
	l.Scheduler = SchedulerState{Running: c.running[ProcessScheduler], Synced: c.synced[LaneScheduler], Restart: c.restartSet}
	if c.restartSet {
		l.Scheduler.RestartIn = ms(c.restartAt - c.now)
	}
	for _, pod := range sortedKeys(c.sched.queue) {
		q := c.sched.queue[pod]
		l.Scheduler.Queue = append(l.Scheduler.Queue, QueuedState{Pod: pod, Attempts: q.attempts,
			LastAgo: ms(c.now - q.last), Backoff: q.state == qBackoff})
	}
	l.CM.Running = c.running[ProcessControllerManager]
	for i, id := range cmComponents {
		l.CM.Synced[i] = c.synced[id]
	}
	if c.synced[LaneNodeLife] {
		l.CM.Nodes = c.nlcNodes()
	}
	for _, m := range c.inflight {
		l.InFlight = append(l.InFlight, MessageState{Seq: m.Seq, SentAgo: ms(c.now - m.Sent), In: ms(m.Arrive - c.now),
			From: m.From, To: m.To, Kind: m.Kind, Verb: m.Verb, Resource: m.Resource, Sub: m.Sub, Reason: m.Reason,
			Value: m.Value, Calls: orNil(m.Calls), Via: orNil(m.Via), Image: m.Image, Objects: orNil(m.Objects)})
	}
	s.Live = l
	return s
}

// nlcNodes returns the node lifecycle controller's memory, per node. Its
// stale eviction entries (pods gone, terminating, or on a node no longer
// tainted) are left out: the controller ignores them and drops them when it
// next runs.
func (c *Cluster) nlcNodes() []NLCNodeState {
	out := make([]NLCNodeState, NodeCount)
	for i := range nodeNames {
		out[i].SinceAgo = ms(c.now - c.nlc.since[i])
	}
	for _, e := range c.nlc.evictions(&c.api) {
		ns := &out[nodeIndex(e.pod.node)]
		if ns.Tolerations == nil {
			ns.Tolerations = map[string]int64{}
		}
		in := ms(e.at - c.now)
		ns.Tolerations[e.pod.name] = in
		if !ns.Evict || in < ns.EvictIn {
			ns.Evict, ns.EvictIn = true, in
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Restore rebuilds a cluster from a snapshot after checking every field,
// bound and cross-reference. It returns an error, and no cluster, for any
// snapshot this package could not have written.
func Restore(s Snapshot) (*Cluster, error) {
	c, err := restore(s)
	if err != nil {
		return nil, fmt.Errorf("restore snapshot: %w", err)
	}
	return c, nil
}

func restore(s Snapshot) (*Cluster, error) {
	if s.V != SnapshotVersion && s.V != 1 {
		return nil, fmt.Errorf("version %d, want 1 or %d", s.V, SnapshotVersion)
	}
	v1 := s.V == 1
	seed, err := parseUint(s.Seed)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	rt := Runtime(s.Runtime)
	if rt != RuntimeContainerd && rt != RuntimeDockershim {
		return nil, fmt.Errorf("runtime %q", s.Runtime)
	}
	if s.Guide < 0 || s.Guide > GuideSteps {
		return nil, fmt.Errorf("guide step %d out of range [0, %d]", s.Guide, GuideSteps)
	}
	if s.Live == nil {
		c := New(seed)
		c.runtime = rt
		for range s.Guide {
			if _, err := c.Next(); err != nil {
				return nil, err
			}
		}
		return c, nil
	}
	if s.Guide != GuideSteps {
		return nil, fmt.Errorf("live at guide step %d", s.Guide)
	}
	l := s.Live
	if v1 {
		if err := checkV1(l); err != nil {
			return nil, err
		}
	}
	if l.Now < 0 || l.Now > maxSnapshotNow || l.Rest < 0 || l.Rest >= int64(time.Millisecond) {
		return nil, fmt.Errorf("time %d (+%d ns) out of range", l.Now, l.Rest)
	}
	r, err := parseUint(l.Rand)
	if err != nil {
		return nil, fmt.Errorf("rand: %w", err)
	}
	if l.RV < 1 || l.RV > maxRV || l.MsgSeq < 0 || l.MsgSeq > maxRV {
		return nil, errors.New("counter out of range")
	}
	c := &Cluster{seed: seed, rand: rng{s: r}, runtime: rt, guide: GuideSteps, live: true}
	c.init()
	c.now, c.rest, c.msgSeq = dur(l.Now), time.Duration(l.Rest), l.MsgSeq
	c.api.rv = l.RV
	okRV := func(rv int64) bool { return rv >= 1 && rv <= l.RV }
	if !inRange(l.Replicas, 0, MaxReplicas) || !inRange(l.RSReplicas, 0, MaxReplicas) || !okRV(l.DeployRV) || !okRV(l.RSRV) ||
		!inRange(l.DeployReady, 0, MaxReplicas) || !inRange(l.RSReady, 0, MaxReplicas) {
		return nil, errors.New("deployment or replicaset out of range")
	}
	c.api.deploy = &deployment{replicas: l.Replicas, ready: l.DeployReady, rv: l.DeployRV}
	c.api.rs = &replicaSet{replicas: l.RSReplicas, ready: l.RSReady, rv: l.RSRV}
	if len(l.Pods) > MaxPods {
		return nil, fmt.Errorf("%d pods, at most %d", len(l.Pods), MaxPods)
	}
	created := map[int64]bool{}
	for i, p := range l.Pods {
		if !validPodName(p.Name) || (i > 0 && p.Name <= l.Pods[i-1].Name) {
			return nil, fmt.Errorf("pod name %q invalid or out of order", p.Name)
		}
		if p.Node != "" && nodeIndex(p.Node) < 0 {
			return nil, fmt.Errorf("pod %s on unknown node %q", p.Name, p.Node)
		}
		if !okRV(p.RV) || p.Created < 1 || p.Created > p.RV || created[p.Created] {
			return nil, fmt.Errorf("pod %s versions out of range", p.Name)
		}
		created[p.Created] = true
		c.api.pods[p.Name] = &pod{name: p.Name, node: p.Node, running: p.Running, ready: p.Ready, ip: p.IP,
			terminating: p.Terminating, created: p.Created, rv: p.RV}
	}
	if len(l.Nodes) != NodeCount {
		return nil, fmt.Errorf("%d nodes, want %d", len(l.Nodes), NodeCount)
	}
	for i, n := range l.Nodes {
		if n.Name != nodeNames[i] {
			return nil, fmt.Errorf("node %d is %q, want %s", i, n.Name, nodeNames[i])
		}
		ready := ConditionStatus(n.Ready)
		if ready != ConditionTrue && ready != ConditionUnknown {
			return nil, fmt.Errorf("node %s Ready=%q", n.Name, n.Ready)
		}
		if !okRV(n.RV) || n.LeaseAgo < 0 || n.LeaseAgo > l.Now {
			return nil, fmt.Errorf("node %s versions or lease out of range", n.Name)
		}
		taints := orNil(n.Taints)
		if n.Tainted && !v1 {
			return nil, fmt.Errorf("node %s: version 1's tainted in version 2", n.Name)
		} else if n.Tainted {
			taints = unreachableTaints()
		}
		c.api.nodes[i] = &node{ready: ready, taints: taints, rv: n.RV, leaseAt: c.now - dur(n.LeaseAgo), renewing: n.Kubelet}
		c.running[n.Name], c.synced[LaneKubelet+"/"+n.Name] = n.Kubelet, n.Synced
		c.rt[i].image, c.rt[i].lastHost = n.Image, n.LastHost
		if len(n.Sandboxes) > NodeCapacity {
			return nil, fmt.Errorf("node %s has %d sandboxes", n.Name, len(n.Sandboxes))
		}
		for j, sb := range n.Sandboxes {
			if j > 0 && sb.Pod <= n.Sandboxes[j-1].Pod {
				return nil, fmt.Errorf("node %s sandboxes out of order", n.Name)
			}
			h, ok := hostOf(i, sb.IP)
			if !ok && !v1 {
				return nil, fmt.Errorf("node %s: sandbox of %s has IP %q", n.Name, sb.Pod, sb.IP)
			}
			c.rt[i].sandboxes[sb.Pod] = &sandbox{host: h, started: sb.Started}
		}
	}
	if v1 {
		c.upgradeV1()
	}
	if err := c.restoreScheduler(l.Scheduler); err != nil {
		return nil, err
	}
	if err := c.restoreCM(l.CM, v1); err != nil {
		return nil, err
	}
	if len(l.InFlight) > MaxInFlight {
		return nil, fmt.Errorf("%d messages in flight, at most %d", len(l.InFlight), MaxInFlight)
	}
	for _, ms := range l.InFlight {
		if v1 {
			ms = c.upgradeV1Message(ms)
		}
		m, err := c.restoreMessage(ms)
		if err != nil {
			return nil, err
		}
		if n := len(c.inflight); n > 0 {
			if p := c.inflight[n-1]; m.Arrive < p.Arrive || (m.Arrive == p.Arrive && m.Seq <= p.Seq) {
				return nil, fmt.Errorf("message %d out of order", m.Seq)
			}
		}
		c.inflight = append(c.inflight, m)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	c.logEvent(Event{Kind: EventRestored})
	return c, nil
}

func inRange(x, lo, hi int) bool { return x >= lo && x <= hi }

func parseUint(s string) (uint64, error) {
	x, err := strconv.ParseUint(s, 10, 64)
	if err != nil || strconv.FormatUint(x, 10) != s {
		return 0, fmt.Errorf("%q is not a decimal uint64", s)
	}
	return x, nil
}

func (c *Cluster) restoreScheduler(s SchedulerState) error {
	c.running[ProcessScheduler], c.synced[LaneScheduler] = s.Running, s.Synced
	if s.Restart {
		if s.Running || s.RestartIn < 0 || dur(s.RestartIn) > SchedulerOutage {
			return errors.New("scheduler restart out of range")
		}
		c.restartAt, c.restartSet = c.now+dur(s.RestartIn), true
	} else if s.RestartIn != 0 {
		return errors.New("scheduler restart time without a restart")
	}
	if len(s.Queue) > 0 && !s.Synced {
		return errors.New("a scheduler that has not listed has a queue")
	}
	if len(s.Queue) > MaxPods {
		return fmt.Errorf("%d pods queued", len(s.Queue))
	}
	for i, q := range s.Queue {
		if !validPodName(q.Pod) || (i > 0 && q.Pod <= s.Queue[i-1].Pod) {
			return fmt.Errorf("queued pod %q invalid or out of order", q.Pod)
		}
		if !inRange(q.Attempts, 1, maxAttempts) || q.LastAgo < 0 || q.LastAgo > ms(c.now) {
			return fmt.Errorf("queued pod %s out of range", q.Pod)
		}
		st := qUnschedulable
		if q.Backoff {
			st = qBackoff
		}
		c.sched.queue[q.Pod] = &queued{attempts: q.Attempts, last: c.now - dur(q.LastAgo), state: st}
	}
	return nil
}

func (c *Cluster) restoreCM(s CMState, v1 bool) error {
	c.running[ProcessControllerManager] = s.Running
	for i, id := range cmComponents {
		c.synced[id] = s.Synced[i]
	}
	if !s.Synced[2] {
		if len(s.Nodes) != 0 {
			return errors.New("a node lifecycle controller that has not listed remembers nodes")
		}
		return nil
	}
	if len(s.Nodes) != NodeCount {
		return fmt.Errorf("node lifecycle controller remembers %d nodes, want %d", len(s.Nodes), NodeCount)
	}
	inRangeMs := func(x int64) bool { return x >= -ms(c.now) && dur(x) <= DefaultTolerationSeconds }
	for i, n := range s.Nodes {
		if n.SinceAgo < 0 || n.SinceAgo > ms(c.now) || !inRangeMs(n.EvictIn) || (!n.Evict && n.EvictIn != 0) ||
			len(n.Tolerations) > NodeCapacity {
			return fmt.Errorf("node lifecycle state of %s out of range", nodeNames[i])
		}
		c.nlc.since[i] = c.now - dur(n.SinceAgo)
		if v1 {
			c.upgradeV1Tolerations(i, n)
			continue
		}
		for _, name := range sortedKeys(n.Tolerations) {
			p, in := c.api.pods[name], n.Tolerations[name]
			if p == nil || p.node != nodeNames[i] || !tolerating(&c.api, p) || !inRangeMs(in) {
				return fmt.Errorf("node lifecycle state of %s: toleration of %q", nodeNames[i], name)
			}
			if c.nlc.evict == nil {
				c.nlc.evict = map[string]toleration{}
			}
			c.nlc.evict[name] = toleration{uid: p.created, at: c.now + dur(in)}
		}
	}
	if v1 {
		return nil
	}
	// Evict and EvictIn say the earliest toleration: they must agree.
	again := c.nlcNodes()
	for i, n := range s.Nodes {
		if got := again[i]; got.Evict != n.Evict || got.EvictIn != n.EvictIn {
			return fmt.Errorf("node lifecycle state of %s: the eviction countdown disagrees with its pods'", nodeNames[i])
		}
	}
	return nil
}

// restoreMessage checks a message in flight against the shapes the engine
// sends and rebuilds it.
func (c *Cluster) restoreMessage(s MessageState) (*Message, error) {
	m := &Message{Seq: s.Seq, Sent: c.now - dur(s.SentAgo), Arrive: c.now + dur(s.In), From: s.From, To: s.To,
		Kind: s.Kind, Verb: s.Verb, Resource: s.Resource, Sub: s.Sub, Reason: s.Reason, Value: s.Value,
		Calls: orNil(s.Calls), Via: orNil(s.Via), Image: s.Image, Objects: orNil(s.Objects)}
	bad := func(what string) error { return fmt.Errorf("message %d: %s", s.Seq, what) }
	if s.Seq < 1 || s.Seq > c.msgSeq || s.SentAgo < 0 || s.SentAgo > ms(c.now) || s.In < 0 {
		return nil, bad("sequence or times out of range")
	}
	if !validShape(m) {
		return nil, bad("not a message the engine sends")
	}
	if m.Arrive-m.Sent != latency(m.Kind, m.Calls, m.Via) {
		return nil, bad("latency does not match its shape")
	}
	scaled := m.Reason == ReasonApply || m.Reason == ReasonScale || m.Reason == ReasonCreateRS || m.Reason == ReasonScaleRS ||
		m.Reason == ReasonRSStatus || m.Reason == ReasonDeployStatus
	if (scaled && !inRange(m.Value, 0, MaxReplicas)) || (!scaled && m.Value != 0) {
		return nil, bad("value out of range")
	}
	if len(m.Objects) > MaxPods || (len(m.Objects) == 0 && !(m.Verb == VerbList && m.To != LaneKubelet)) {
		return nil, bad("wrong number of objects")
	}
	for _, o := range m.Objects {
		if !validObject(m, o) {
			return nil, bad(fmt.Sprintf("object %+v", o))
		}
	}
	return m, nil
}

// validShape reports whether m has one of the shapes the engine sends, with
// the calls, hops and image that go with it.
func validShape(m *Message) bool {
	sh := shapeOf(m)
	if m.Kind == KindCRI {
		if m.From != LaneKubelet || m.To != LaneContainerd || m.Verb != "" || m.Resource != "" || m.Sub != "" {
			return false
		}
		if !slices.Equal(m.Via, RuntimeContainerd.via()) && !slices.Equal(m.Via, RuntimeDockershim.via()) {
			return false
		}
		if (m.Image == Image) != slices.Contains(m.Calls, CallPullImage) || (m.Image != "" && m.Image != Image) {
			return false
		}
		for _, s := range criShapes {
			if s.reason == m.Reason && slices.ContainsFunc(s.calls, func(cs []string) bool { return slices.Equal(cs, m.Calls) }) {
				return true
			}
		}
		return false
	}
	if len(m.Calls) > 0 || len(m.Via) > 0 || m.Image != "" {
		return false
	}
	return slices.Contains(writeShapes, sh) || slices.Contains(watchShapes, sh)
}

// validObject reports whether o may be carried by m.
func validObject(m *Message, o Object) bool {
	nodeOK := o.Node == "" || nodeIndex(o.Node) >= 0
	kubeletEnd := m.From == LaneKubelet || m.To == LaneKubelet
	if kubeletEnd && nodeIndex(o.Node) < 0 {
		return false // a kubelet's message names its node
	}
	if status := m.Reason == ReasonPodRunning && m.Kind == KindWrite; status != (o.IP != "") {
		return false // only the kubelet's status write carries a podIP, and it always does
	} else if status {
		_, ok := hostOf(nodeIndex(o.Node), o.IP)
		return ok && validPodName(o.Name)
	}
	switch {
	case m.Verb == VerbList:
		return o.Name == o.Node && kubeletEnd
	case m.Resource == ResDeployment:
		return o.Name == DeploymentName && o.Node == ""
	case m.Resource == ResReplicaSet:
		return o.Name == ReplicaSetName() && o.Node == ""
	case m.Resource == ResNode:
		return nodeIndex(o.Name) >= 0 && o.Node == o.Name
	case m.Reason == ReasonCreatePods && m.Kind == KindWrite:
		return o.Name == "" && o.Node == "" // generateName: the apiserver names it
	case m.Reason == ReasonBind || m.Reason == ReasonPodNotReady:
		return validPodName(o.Name) && nodeIndex(o.Node) >= 0
	}
	return validPodName(o.Name) && nodeOK
}

// check verifies the invariants the engine keeps between any two calls. The
// fuzz test calls it after every operation; Restore calls it on what it
// rebuilt.
func (c *Cluster) check() error {
	alive, perNode := 0, [NodeCount]int{}
	ips := map[string]string{}
	for _, name := range sortedKeys(c.api.pods) {
		p := c.api.pods[name]
		if name != p.name || !validPodName(name) {
			return fmt.Errorf("pod name %q", name)
		}
		if (p.running || p.terminating) && p.node == "" {
			return fmt.Errorf("pod %s is running or terminating without a node", name)
		}
		if (p.ready || p.ip != "") && !p.running {
			return fmt.Errorf("pod %s is Ready or has an IP but is not Running", name)
		}
		if i := nodeIndex(p.node); i >= 0 {
			perNode[i]++
			sb := c.rt[i].sandboxes[name]
			if p.running && !p.terminating && (sb == nil || !sb.started || p.ip != podIP(i, sb.host)) {
				return fmt.Errorf("pod %s is Running without a started container of its IP", name)
			}
			if _, ok := hostOf(i, p.ip); ok != p.running {
				return fmt.Errorf("pod %s (running %v) has IP %q", name, p.running, p.ip)
			}
		} else if p.node != "" {
			return fmt.Errorf("pod %s on unknown node %q", name, p.node)
		}
		if p.ip != "" {
			if other, ok := ips[p.ip]; ok {
				return fmt.Errorf("pods %s and %s have the same IP %s", other, name, p.ip)
			}
			ips[p.ip] = name
		}
		if !p.terminating {
			alive++
		}
	}
	for _, w := range []int{c.api.deploy.readyOr0(), c.api.rs.readyOr0()} {
		if !inRange(w, 0, MaxReplicas) {
			return fmt.Errorf("readyReplicas %d", w)
		}
	}
	if alive > MaxReplicas || len(c.api.pods) > MaxPods {
		return fmt.Errorf("%d pods, %d not terminating", len(c.api.pods), alive)
	}
	for i, n := range nodeNames {
		if perNode[i] > NodeCapacity {
			return fmt.Errorf("%d pods bound to %s, room for %d", perNode[i], n, NodeCapacity)
		}
		hosts := map[int]bool{}
		for pod, sb := range c.rt[i].sandboxes {
			if p := c.api.pods[pod]; p == nil || p.node != n {
				return fmt.Errorf("sandbox of %s on %s, where no such pod is bound", pod, n)
			}
			if sb.host < firstHost || sb.host > lastHost || hosts[sb.host] {
				return fmt.Errorf("sandbox of %s on %s has host %d", pod, n, sb.host)
			}
			hosts[sb.host] = true
		}
		if h := c.rt[i].lastHost; (h != 0 || len(hosts) > 0) && (h < firstHost || h > lastHost) {
			return fmt.Errorf("%s reserved host %d last", n, h)
		}
		if t := c.api.nodes[i].taints; t != nil && !slices.Equal(t, unreachableTaints()) {
			return fmt.Errorf("%s has taints %v", n, t)
		}
		if nd := c.api.nodes[i]; nd.renewing != c.running[n] || nd.leaseAt > c.now {
			return fmt.Errorf("lease of %s disagrees with its kubelet", n)
		}
	}
	for _, comp := range c.comps {
		if c.synced[comp.id] && !c.running[comp.process] {
			return fmt.Errorf("%s has listed but does not run", comp.id)
		}
	}
	if c.restartSet && c.running[ProcessScheduler] {
		return errors.New("a running scheduler is due to restart")
	}
	if !c.synced[LaneScheduler] && len(c.sched.queue) > 0 {
		return errors.New("a scheduler that has not listed has a queue")
	}
	for name, q := range c.sched.queue {
		if q.state != qBackoff && q.state != qUnschedulable || q.last > c.now {
			return fmt.Errorf("queued pod %s in state %d", name, q.state)
		}
	}
	if !c.synced[LaneNodeLife] && !c.nlc.empty() {
		return errors.New("a node lifecycle controller that has not listed remembers nodes")
	}
	if len(c.inflight) > MaxInFlight {
		return fmt.Errorf("%d messages in flight", len(c.inflight))
	}
	kills := map[string]bool{}
	applies := 0
	for _, m := range c.inflight {
		if m.Arrive < c.now || !validShape(m) {
			return fmt.Errorf("message %d in flight is invalid", m.Seq)
		}
		if m.From == LaneKubectl {
			switch m.Reason {
			case ReasonKill:
				if kills[m.Objects[0].Name] {
					return fmt.Errorf("two kubectl deletes of %s in flight", m.Objects[0].Name)
				}
				kills[m.Objects[0].Name] = true
			default:
				applies++
			}
		}
	}
	if applies > 1 {
		return errors.New("two kubectl applies in flight")
	}
	return nil
}
