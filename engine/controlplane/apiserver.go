package controlplane

import (
	"slices"
	"strings"
	"time"
)

// Phase is a pod's phase as kubectl shows it. Terminating is not a phase of
// the API (it is a pod with a deletionTimestamp), but it is what kubectl get
// prints, and what the chapter's output shows.
type Phase string

// The phases a pod can show.
const (
	PhasePending     Phase = "Pending"
	PhaseRunning     Phase = "Running"
	PhaseTerminating Phase = "Terminating"
)

// ConditionStatus is the status of a node's Ready condition.
type ConditionStatus string

// The statuses of a Ready condition. For a node, this engine writes True
// (the kubelet) and Unknown (the node lifecycle controller); False is what a
// kubelet reports when its runtime is down, which the demo does not
// simulate. A pod's Ready condition is True or False (PodView.Ready).
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Nodes and their size: three nodes of four pods each (the kubelet's
// maxPods, which the scheduler's NodeResourcesFit counts against).
const (
	NodeCount    = 3
	NodeCapacity = 4
)

// nodeNames are the cluster's nodes, registered before the demo starts.
var nodeNames = [NodeCount]string{"node-1", "node-2", "node-3"}

// NodeNames returns the names of the cluster's nodes, in order.
func NodeNames() []string { return slices.Clone(nodeNames[:]) }

// Taint is one of a node's taints (spec.taints): a key and an effect.
type Taint struct {
	Key    string `json:"key"`
	Effect string `json:"effect"`
}

// The taint the node lifecycle controller puts on a node whose Ready is
// Unknown, with both effects: NoSchedule from its node-update worker
// (doNoScheduleTaintingPass maps Ready=Unknown to it), which the scheduler's
// TaintToleration filter keeps new pods off with; NoExecute from its monitor
// pass (doNoExecuteTaintingPass), which every pod tolerates for
// DefaultTolerationSeconds and is evicted after.
const (
	TaintUnreachable = "node.kubernetes.io/unreachable"
	EffectNoSchedule = "NoSchedule"
	EffectNoExecute  = "NoExecute"
)

// unreachableTaints are the taints of an Unknown node, in the order the
// controller adds them.
func unreachableTaints() []Taint {
	return []Taint{{TaintUnreachable, EffectNoSchedule}, {TaintUnreachable, EffectNoExecute}}
}

// DefaultTolerationSeconds is the toleration every pod gets for
// node.kubernetes.io/unreachable:NoExecute (and not-ready:NoExecute) from
// the DefaultTolerationSeconds admission plugin (its
// --default-unreachable-toleration-seconds, 300): how long a pod stays on a
// node after the taint before it is evicted. Pods have no toleration for
// any NoSchedule taint.
const DefaultTolerationSeconds = 300 * time.Second

// tolerates reports whether the chapter's pods tolerate a taint: only the
// default NoExecute tolerations (for a while: DefaultTolerationSeconds).
func tolerates(t Taint) bool {
	return t.Effect == EffectNoExecute && (t.Key == TaintUnreachable || t.Key == "node.kubernetes.io/not-ready")
}

// LeaseRenewInterval is how often a kubelet renews its node's Lease in
// kube-node-lease (the kubelet's default: 10 s).
const LeaseRenewInterval = 10 * time.Second

// The objects the apiserver stores. Each carries the resourceVersion of its
// last change; rv is the store's counter (etcd's revision).
type (
	deployment struct {
		replicas int
		ready    int // status.readyReplicas, written by the Deployment controller
		rv       int64
	}
	replicaSet struct {
		replicas int
		ready    int // status.readyReplicas, written by the ReplicaSet controller
		rv       int64
	}
	pod struct {
		name        string
		node        string // spec.nodeName; "" until a Binding lands
		running     bool   // status.phase=Running, written by the kubelet
		ready       bool   // status.conditions Ready=True: the kubelet sets it with Running, the node lifecycle controller clears it
		ip          string // status.podIP, written by the kubelet with Running; "" before
		terminating bool   // metadata.deletionTimestamp is set
		created     int64  // resourceVersion at creation: the order of creation (and the pod's UID)
		rv          int64
	}
	node struct {
		ready  ConditionStatus
		taints []Taint // spec.taints: none, or unreachableTaints
		rv     int64
		// lease is the node's Lease. Renewals are routine, so they are not
		// stored one by one: while renewing, the Lease reads as renewed on
		// the LeaseRenewInterval grid from leaseAt (when the kubelet
		// started); otherwise leaseAt is the last renewal.
		leaseAt  time.Duration
		renewing bool
	}
)

// readyOr0 returns the Deployment's readyReplicas, 0 before it exists.
func (d *deployment) readyOr0() int {
	if d == nil {
		return 0
	}
	return d.ready
}

// readyOr0 returns the ReplicaSet's readyReplicas, 0 before it exists.
func (r *replicaSet) readyOr0() int {
	if r == nil {
		return 0
	}
	return r.ready
}

// renewTime returns the Lease's spec.renewTime as of now.
func (n *node) renewTime(now time.Duration) time.Duration {
	if !n.renewing || now < n.leaseAt {
		return n.leaseAt
	}
	return n.leaseAt + (now-n.leaseAt)/LeaseRenewInterval*LeaseRenewInterval
}

// apiServer is kube-apiserver with its etcd: the only shared state.
// Components read it and send it writes; it applies each write when the
// write arrives and tells the watchers what changed.
type apiServer struct {
	rv     int64
	deploy *deployment // the chapter's Deployment web, once applied
	rs     *replicaSet // web-<hash>, once the Deployment controller made it
	pods   map[string]*pod
	nodes  [NodeCount]*node
}

func newAPIServer() apiServer {
	a := apiServer{pods: map[string]*pod{}}
	for i := range a.nodes {
		a.rv++
		a.nodes[i] = &node{ready: ConditionTrue, rv: a.rv, renewing: true}
	}
	return a
}

// maxRV bounds resourceVersions and every other counter: far beyond what a
// session reaches, far below overflow, and exact in a JSON number.
const maxRV = 1 << 50

func (a *apiServer) bump() int64 {
	a.rv = min(a.rv+1, maxRV)
	return a.rv
}

func nodeIndex(name string) int { return slices.Index(nodeNames[:], name) }

// tainted reports whether the node has the unreachable taints.
func (n *node) tainted() bool { return len(n.taints) > 0 }

// hasEffect reports whether the node has a taint with the effect.
func (n *node) hasEffect(effect string) bool {
	return slices.ContainsFunc(n.taints, func(t Taint) bool { return t.Effect == effect })
}

// unschedulable reports whether the scheduler's TaintToleration filter
// rejects the node for the chapter's pods: a NoSchedule or NoExecute taint
// they do not tolerate (DoNotScheduleTaintsFilterFunc). The Ready condition
// plays no part: a node that has just gone Unknown and is not tainted yet
// still gets pods.
func (n *node) unschedulable() bool {
	return slices.ContainsFunc(n.taints, func(t Taint) bool {
		return (t.Effect == EffectNoSchedule || t.Effect == EffectNoExecute) && !tolerates(t)
	})
}

func (a *apiServer) node(name string) *node {
	if i := nodeIndex(name); i >= 0 {
		return a.nodes[i]
	}
	return nil
}

// sortedPods returns the pods in name order.
func (a *apiServer) sortedPods() []*pod {
	out := make([]*pod, 0, len(a.pods))
	for _, p := range a.pods {
		out = append(out, p)
	}
	slices.SortFunc(out, func(x, y *pod) int { return strings.Compare(x.name, y.name) })
	return out
}

// assigned counts the pods bound to the node, terminating ones included:
// they hold their room until they are gone, for the scheduler as for the
// kubelet.
func (a *apiServer) assigned(nodeName string) int {
	n := 0
	for _, p := range a.pods {
		if p.node == nodeName {
			n++
		}
	}
	return n
}

// change is what one write changed, as the apiserver's watch reports it.
type change struct {
	resource string // ResDeployment, ResReplicaSet, ResPod or ResNode
	sub      string // SubStatus for a status write
	event    string // VerbAdded, VerbModified or VerbDeleted
	name     string
	node     string // a pod's node (after a Binding: the new one); a node's own name
	bound    bool   // a Binding set the pod's nodeName
	toDown   bool   // … to a node that is not Ready or has NoExecute taints
	doomed   bool   // the pod got a deletionTimestamp
	readied  bool   // the pod's Ready condition changed
	reason   string // the write's reason
	value    int    // the write's Value (replicas, readyReplicas)
	old      int    // the replicas (readyReplicas) before a scale (a status write)
	from     string // the writer's lane
	fromNode string // the writing kubelet's node
}

// apply applies one object of a write and returns what changed, and false
// when the write changed nothing (a conflict, a missing object, or a no-op:
// the apiserver sends no event for those). rng draws generated names.
func (a *apiServer) apply(m *Message, o *Object, r *rng) (change, bool) {
	ch := change{resource: m.Resource, sub: m.Sub, name: o.Name, node: o.Node, reason: m.Reason, value: m.Value,
		from: m.From, event: VerbModified}
	if m.From == LaneKubelet {
		ch.fromNode = o.Node
	}
	switch m.Reason {
	case ReasonApply:
		if a.deploy != nil {
			return ch, false // AlreadyExists
		}
		a.deploy = &deployment{replicas: m.Value, rv: a.bump()}
		ch.event = VerbAdded
	case ReasonScale:
		if a.deploy == nil || a.deploy.replicas == m.Value {
			return ch, false
		}
		ch.old = a.deploy.replicas
		a.deploy.replicas, a.deploy.rv = m.Value, a.bump()
	case ReasonCreateRS:
		if a.rs != nil {
			return ch, false
		}
		a.rs = &replicaSet{replicas: m.Value, rv: a.bump()}
		ch.event = VerbAdded
	case ReasonScaleRS:
		if a.rs == nil || a.rs.replicas == m.Value {
			return ch, false
		}
		ch.old = a.rs.replicas
		a.rs.replicas, a.rs.rv = m.Value, a.bump()
	case ReasonCreatePods:
		if len(a.pods) >= MaxPods {
			return ch, false // never: the ReplicaSet controller stays within bounds
		}
		name := generateName(r, ReplicaSetName()+"-", func(n string) bool { return a.pods[n] != nil })
		rv := a.bump()
		a.pods[name] = &pod{name: name, created: rv, rv: rv}
		o.Name, ch.name, ch.event = name, name, VerbAdded
	case ReasonKill, ReasonDeletePods, ReasonEvict:
		p := a.pods[o.Name]
		if p == nil || p.terminating {
			return ch, false
		}
		ch.node = p.node
		if p.node == "" {
			// No kubelet has the pod: the apiserver deletes it at once
			// (grace period 0 for an unscheduled pod).
			delete(a.pods, p.name)
			a.bump()
			ch.event = VerbDeleted
			break
		}
		p.terminating, p.rv = true, a.bump()
		ch.doomed = true
	case ReasonBind:
		p := a.pods[o.Name]
		if p == nil || p.node != "" || p.terminating {
			return ch, false // NotFound or Conflict
		}
		p.node, p.rv = o.Node, a.bump()
		ch.resource, ch.bound = ResPod, true // the Binding changes the pod
		n := a.node(o.Node)
		ch.toDown = n.ready != ConditionTrue || n.hasEffect(EffectNoExecute)
	case ReasonPodRunning:
		// The kubelet's status: phase Running, podIP, Ready=True.
		p := a.pods[o.Name]
		if p == nil || p.node != o.Node || (p.running && p.ready && p.ip == o.IP) {
			return ch, false
		}
		ch.readied = !p.ready
		p.running, p.ready, p.ip, p.rv = true, true, o.IP, a.bump()
	case ReasonPodNotReady:
		// The node lifecycle controller's MarkPodsNotReady.
		p := a.pods[o.Name]
		if p == nil || p.node != o.Node || !p.ready {
			return ch, false
		}
		p.ready, p.rv, ch.readied = false, a.bump(), true
	case ReasonRSStatus:
		if a.rs == nil || a.rs.ready == m.Value {
			return ch, false
		}
		ch.old = a.rs.ready
		a.rs.ready, a.rs.rv = m.Value, a.bump()
	case ReasonDeployStatus:
		if a.deploy == nil || a.deploy.ready == m.Value {
			return ch, false
		}
		ch.old = a.deploy.ready
		a.deploy.ready, a.deploy.rv = m.Value, a.bump()
	case ReasonConfirmDelete:
		p := a.pods[o.Name]
		if p == nil || p.node != o.Node || !p.terminating {
			return ch, false
		}
		delete(a.pods, p.name)
		a.bump()
		ch.event = VerbDeleted
	case ReasonNodeReady, ReasonNodeUnknown:
		n := a.node(o.Name)
		want := ConditionTrue
		if m.Reason == ReasonNodeUnknown {
			want = ConditionUnknown
		}
		if n == nil || n.ready == want {
			return ch, false
		}
		n.ready, n.rv = want, a.bump()
	case ReasonTaint, ReasonUntaint:
		n := a.node(o.Name)
		if n == nil || n.tainted() == (m.Reason == ReasonTaint) {
			return ch, false
		}
		n.taints = nil
		if m.Reason == ReasonTaint {
			n.taints = unreachableTaints()
		}
		n.rv = a.bump()
	default:
		return ch, false
	}
	return ch, true
}
