package controlplane

import (
	"slices"
	"time"
)

// Processes: the programs a visitor can stop and start. The Deployment,
// ReplicaSet and node lifecycle controllers run inside one binary,
// kube-controller-manager, and stop together as it does; each node's process
// is its kubelet (and with it the node's heartbeats).
const (
	ProcessScheduler         = "scheduler"
	ProcessControllerManager = "controller-manager"
)

// trigger is why a component runs: its watch's initial LIST, a watch
// notification, one of its own requests completing (a write answered, a CRI
// call done: the kubelet's PLEG sees it), or a timer of its own.
type trigger struct {
	kind int
	msg  *Message // the notification, for onWatch
}

const (
	onList = iota
	onWatch
	onDone
	onTimer
)

// view is what a component may see when it runs: the apiserver (to read,
// never to change), its own requests still in flight (a client knows what
// it has asked and not yet been answered), the clock, and for a kubelet the
// containerd of its node.
type view struct {
	api      *apiServer
	inflight []*Message
	now      time.Duration
	// guided says the guide is being played: the ReplicaSet controller then
	// sends the chapter's POST Pod ×3 as one arrow instead of slow-start
	// batches.
	guided bool
	rt     *nodeRuntime
	// sched and nlc are the scheduler's and the node lifecycle controller's
	// own memory, set in their views only.
	sched *schedState
	nlc   *nlcState
	// events collects what the component reports for the log (the
	// scheduler's FailedScheduling); onBind is a test hook.
	events []Event
	onBind func(binds []Object)
}

func (v *view) record(e Event) { v.events = append(v.events, e) }

// pending reports whether a request from lane about an object that match
// is still in flight.
func (v *view) pending(lane string, match func(o Object) bool) bool {
	for _, m := range v.inflight {
		if m.From != lane {
			continue
		}
		for _, o := range m.Objects {
			if match(o) {
				return true
			}
		}
	}
	return false
}

func (v *view) busy(lane string) bool {
	return v.pending(lane, func(Object) bool { return true })
}

// component is one control loop, described the way kube-controller-manager
// lists its controllers (NewControllerDescriptors): a name, the program it
// runs in, what it watches, and what it does. The engine loops over the list;
// a component reads the apiserver and returns the requests it sends, and
// never refers to another component.
type component struct {
	id      string // lane, or "kubelet/<node>"
	lane    string
	process string // ProcessScheduler, ProcessControllerManager, or the kubelet's node
	node    string // a kubelet's node; "" otherwise
	// watches lists the resources its watch covers, for the page.
	watches []string
	// list is the resource of the LIST it receives when it starts.
	list string
	// hears is its watch's filter: whether the change is sent to it, and as
	// which event (a kubelet's field selector sees a bound pod as ADDED).
	hears func(ch change) (verb string, ok bool)
	// run reconciles and returns the requests to send now.
	run func(v *view, t trigger) []Message
}

// newComponents returns the descriptor list. Descriptors hold no state: a
// component that remembers something (the scheduler's queue, the node
// lifecycle controller's timers) finds its own memory in its view.
func newComponents() []*component {
	cs := []*component{
		{
			id: LaneDeployment, lane: LaneDeployment, process: ProcessControllerManager,
			watches: []string{ResDeployment, ResReplicaSet}, list: ResDeployment,
			hears: func(ch change) (string, bool) {
				switch {
				case ch.from == LaneDeployment:
					return "", false
				case ch.resource == ResDeployment:
					return ch.event, true
				case ch.resource == ResReplicaSet && ch.sub == SubStatus:
					return ch.event, true // its readyReplicas, for the Deployment's status
				}
				return "", false
			},
			run: runDeploymentController,
		},
		{
			id: LaneReplicaSet, lane: LaneReplicaSet, process: ProcessControllerManager,
			watches: []string{ResReplicaSet, ResPod}, list: ResReplicaSet,
			hears: func(ch change) (string, bool) {
				if ch.from == LaneReplicaSet {
					return "", false
				}
				switch ch.resource {
				case ResReplicaSet:
					return ch.event, true
				case ResPod:
					// Only what changes its counts: a pod that got a
					// deletionTimestamp, an unscheduled one deleted at once,
					// or a pod whose Ready condition changed (readyReplicas).
					return ch.event, ch.doomed || ch.readied || (ch.event == VerbDeleted && ch.reason != ReasonConfirmDelete)
				}
				return "", false
			},
			run: runReplicaSetController,
		},
		{
			id: LaneScheduler, lane: LaneScheduler, process: ProcessScheduler,
			watches: []string{ResPod, ResNode}, list: ResPod,
			hears: func(ch change) (string, bool) {
				switch {
				case ch.resource == ResPod && ch.event == VerbAdded:
					return ch.event, true // a new pod with nodeName=""
				case ch.resource == ResPod && ch.event == VerbDeleted:
					return ch.event, true // room freed, or a queued pod gone
				case ch.resource == ResNode:
					return ch.event, true // a node became Ready or untainted, or stopped being so
				}
				return "", false
			},
			run: func(v *view, t trigger) []Message { return v.sched.run(v, t) },
		},
	}
	for _, nn := range nodeNames {
		k := kubelet{node: nn}
		cs = append(cs, &component{
			id: LaneKubelet + "/" + nn, lane: LaneKubelet, process: nn, node: nn,
			watches: []string{ResPod, ResNode}, list: ResPod,
			hears: k.hears, run: k.run,
		})
	}
	return append(cs, &component{
		id: LaneNodeLife, lane: LaneNodeLife, process: ProcessControllerManager,
		watches: []string{ResNode, ResPod}, list: ResNode,
		hears: func(ch change) (string, bool) {
			switch {
			case ch.from == LaneNodeLife:
				return "", false
			case ch.resource == ResNode:
				return ch.event, true
			case ch.resource == ResPod && ch.bound && ch.toDown:
				// A pod bound to a node that is not Ready or has NoExecute
				// taints: it is marked not Ready, and its toleration starts.
				return ch.event, true
			}
			return "", false
		},
		run: func(v *view, t trigger) []Message { return v.nlc.run(v, t) },
	})
}

// runDeploymentController is the Deployment controller's sync: 「Deployment
// があるのに ReplicaSet が無い」という差分を埋める. It makes the ReplicaSet and
// keeps its replicas equal to the Deployment's; it never makes pods. Then,
// as syncDeploymentStatus does, it writes the Deployment's readyReplicas:
// the sum of its ReplicaSets' (GetReadyReplicaCountForReplicaSets), here
// the one ReplicaSet's. One request at a time: the next waits for the answer.
func runDeploymentController(v *view, _ trigger) []Message {
	d, rs := v.api.deploy, v.api.rs
	if d == nil || v.busy(LaneDeployment) {
		return nil
	}
	obj := []Object{{Name: ReplicaSetName()}}
	switch {
	case rs == nil:
		return []Message{{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPost, Resource: ResReplicaSet,
			Reason: ReasonCreateRS, Value: d.replicas, Objects: obj}}
	case rs.replicas != d.replicas:
		return []Message{{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResReplicaSet,
			Reason: ReasonScaleRS, Value: d.replicas, Objects: obj}}
	case rs.ready != d.ready:
		return []Message{{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResDeployment, Sub: SubStatus,
			Reason: ReasonDeployStatus, Value: rs.ready, Objects: []Object{{Name: DeploymentName}}}}
	}
	return nil
}

// SlowStartInitialBatchSize is the ReplicaSet controller's first batch of
// pod creations (controller.SlowStartInitialBatchSize).
const SlowStartInitialBatchSize = 1

// runReplicaSetController is the ReplicaSet controller's sync: count the
// pods that are not being deleted, compare with replicas, create the
// shortfall or delete the excess; with nothing to create or delete, write
// the ReplicaSet's readyReplicas (the Ready pods among those counted) if it
// changed, as calculateStatus and updateReplicaSetStatus do. Its own
// requests in flight are its expectations: it does not sync again until
// they are answered.
//
// Creations go in slow-start batches (slowStartBatch): 1, then twice the
// last batch, each batch sent once the one before is answered, so that a
// create that fails stops the rest before they hit the apiserver. During
// the guide all the pods go in one batch: the chapter's POST Pod ×3.
func runReplicaSetController(v *view, t trigger) []Message {
	rs := v.api.rs
	if rs == nil || v.busy(LaneReplicaSet) {
		return nil
	}
	var active []*pod
	ready := 0
	for _, p := range v.api.sortedPods() {
		if !p.terminating {
			active = append(active, p)
			if p.ready {
				ready++
			}
		}
	}
	switch diff := len(active) - rs.replicas; {
	case diff < 0:
		batch, ok := slowStartBatch(t, v.guided, -diff)
		if !ok {
			return nil
		}
		objs := make([]Object, batch) // names come from the apiserver (generateName)
		return []Message{{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPost, Resource: ResPod,
			Reason: ReasonCreatePods, Objects: objs}}
	case diff > 0:
		var objs []Object
		for _, p := range deletionOrder(active)[:diff] {
			objs = append(objs, Object{Name: p.name, Node: p.node})
		}
		return []Message{{To: LaneAPIServer, Kind: KindWrite, Verb: VerbDelete, Resource: ResPod,
			Reason: ReasonDeletePods, Objects: objs}}
	case rs.ready != ready:
		return []Message{{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResReplicaSet, Sub: SubStatus,
			Reason: ReasonRSStatus, Value: ready, Objects: []Object{{Name: ReplicaSetName()}}}}
	}
	return nil
}

// slowStartBatch returns the size of the next batch of creations for a
// shortfall of missing pods, and false when the slow start stops. A sync
// starts at SlowStartInitialBatchSize; when a batch is answered, the next is
// twice its size (at most what is still missing). A batch in which a create
// failed (the apiserver named no pod) ends the slow start: the rest wait
// for the next sync, which starts again at 1.
func slowStartBatch(t trigger, guided bool, missing int) (int, bool) {
	if guided {
		return missing, true
	}
	if t.kind != onDone || t.msg.Reason != ReasonCreatePods {
		return min(SlowStartInitialBatchSize, missing), true
	}
	if slices.ContainsFunc(t.msg.Objects, func(o Object) bool { return o.Name == "" }) {
		return 0, false
	}
	return min(2*len(t.msg.Objects), missing), true
}

// deletionOrder ranks pods as the ReplicaSet controller picks which to
// delete (ActivePodsWithRanks, in short): unscheduled before scheduled,
// Pending before Running, those sharing a node with more of their siblings
// first, then the newest.
func deletionOrder(pods []*pod) []*pod {
	perNode := map[string]int{}
	for _, p := range pods {
		perNode[p.node]++
	}
	out := append([]*pod(nil), pods...)
	rank := func(p *pod) [4]int64 {
		r := [4]int64{1, 1, 0, -p.created}
		if p.node == "" {
			r[0] = 0
		}
		if !p.running {
			r[1] = 0
		}
		if p.node != "" {
			r[2] = -int64(perNode[p.node])
		}
		return r
	}
	sortStable(out, func(a, b *pod) bool {
		ra, rb := rank(a), rank(b)
		for i := range ra {
			if ra[i] != rb[i] {
				return ra[i] < rb[i]
			}
		}
		return a.name < b.name
	})
	return out
}

func sortStable[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
