package controlplane

import "time"

// NodeMonitorGracePeriod is kube-controller-manager's
// --node-monitor-grace-period: how long after a node's last heartbeat the
// node lifecycle controller sets its Ready to Unknown.
const NodeMonitorGracePeriod = 50 * time.Second

// nlcState is the node lifecycle controller's memory, lost when
// kube-controller-manager stops: when it began to watch each node (a node it
// has just started to watch gets a full grace period, as the real one
// stamps its probe time with its own clock), and, as its taint-eviction
// part, when each pod on a node with a NoExecute taint runs out of
// toleration.
type nlcState struct {
	since [NodeCount]time.Duration
	// evict is the taint-eviction controller's timed queue: for each pod it
	// has seen on a node with NoExecute taints, the pod's UID (its created
	// resourceVersion) and when its toleration ends —
	// DefaultTolerationSeconds after the controller first saw it there. An
	// entry whose pod is gone, terminating or on a node without the taint
	// any more is stale: plan ignores it and the next run drops it.
	evict map[string]toleration
}

type toleration struct {
	uid int64
	at  time.Duration
}

// tolerating reports whether p is on a node with a NoExecute taint and not
// being deleted: whether its toleration is running out.
func tolerating(a *apiServer, p *pod) bool {
	nd := a.node(p.node)
	return nd != nil && !p.terminating && nd.hasEffect(EffectNoExecute)
}

// deadline returns when pod p's toleration ends, and false when it is not
// running out.
func (n *nlcState) deadline(a *apiServer, p *pod) (time.Duration, bool) {
	t, ok := n.evict[p.name]
	if !ok || t.uid != p.created || !tolerating(a, p) {
		return 0, false
	}
	return t.at, true
}

// run is the controller's pass: it brings its eviction queue up to date
// (processPodOnNode: a pod newly seen on a tainted node starts its
// countdown, one no longer there leaves the queue), then sends what is due
// now for every node whose writes are answered.
func (n *nlcState) run(v *view, t trigger) []Message {
	if t.kind == onList {
		*n = nlcState{}
		for i := range n.since {
			n.since[i] = v.now
		}
	}
	for name := range n.evict {
		if p := v.api.pods[name]; p == nil {
			delete(n.evict, name)
		} else if _, ok := n.deadline(v.api, p); !ok {
			delete(n.evict, name)
		}
	}
	for _, p := range v.api.pods {
		if _, ok := n.evict[p.name]; !ok && tolerating(v.api, p) {
			if n.evict == nil {
				n.evict = map[string]toleration{}
			}
			n.evict[p.name] = toleration{uid: p.created, at: v.now + DefaultTolerationSeconds}
		}
	}
	var out []Message
	for i := range nodeNames {
		for _, a := range n.plan(v, i) {
			if a.at <= v.now {
				out = append(out, a.msg)
			}
		}
	}
	return out
}

// nlcAction is a write the controller will send, and when.
type nlcAction struct {
	at  time.Duration
	msg Message
}

// plan returns what the controller will do about node i and when: at most
// one write about the Node object and one about its pods, each only once
// the last one is answered.
//
// About the Node:
//   - Ready=True but no heartbeat for the grace period: Ready → Unknown;
//   - not Ready and not tainted: add the unreachable taints;
//   - Ready again and tainted: remove them.
//
// About its pods:
//   - not Ready, with pods whose Ready is True: mark them not Ready
//     (MarkPodsNotReady);
//   - pods whose NoExecute toleration runs out: evict them then.
func (n *nlcState) plan(v *view, i int) []nlcAction {
	name := nodeNames[i]
	var out []nlcAction
	if !v.pending(LaneNodeLife, func(o Object) bool { return o.Name == name }) {
		if a, ok := n.planNode(v, i); ok {
			out = append(out, a)
		}
	}
	if !v.pending(LaneNodeLife, func(o Object) bool { return o.Node == name && o.Name != name }) {
		if a, ok := n.planPods(v, i); ok {
			out = append(out, a)
		}
	}
	return out
}

func (n *nlcState) planNode(v *view, i int) (nlcAction, bool) {
	name, nd := nodeNames[i], v.api.nodes[i]
	write := func(sub, reason string) Message {
		return Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResNode, Sub: sub, Reason: reason,
			Objects: []Object{{Name: name, Node: name}}}
	}
	if nd.ready == ConditionTrue {
		deadline := max(nd.renewTime(v.now), n.since[i]) + NodeMonitorGracePeriod
		switch {
		case deadline <= v.now:
			return nlcAction{deadline, write(SubStatus, ReasonNodeUnknown)}, true
		case nd.tainted():
			return nlcAction{v.now, write("", ReasonUntaint)}, true
		case !nd.renewing:
			// A renewing Lease always moves the deadline past now, so only
			// a silent node has one to wait for.
			return nlcAction{deadline, write(SubStatus, ReasonNodeUnknown)}, true
		}
		return nlcAction{}, false
	}
	if !nd.tainted() {
		return nlcAction{v.now, write("", ReasonTaint)}, true
	}
	return nlcAction{}, false
}

func (n *nlcState) planPods(v *view, i int) (nlcAction, bool) {
	name, nd := nodeNames[i], v.api.nodes[i]
	pods := v.api.sortedPods()
	if nd.ready != ConditionTrue {
		var objs []Object
		for _, p := range pods {
			if p.node == name && p.ready {
				objs = append(objs, Object{Name: p.name, Node: name})
			}
		}
		if len(objs) > 0 {
			return nlcAction{v.now, Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResPod,
				Sub: SubStatus, Reason: ReasonPodNotReady, Objects: objs}}, true
		}
	}
	first, ok := time.Duration(0), false
	for _, p := range pods {
		if at, due := n.deadline(v.api, p); due && p.node == name && (!ok || at < first) {
			first, ok = at, true
		}
	}
	if !ok {
		return nlcAction{}, false
	}
	var objs []Object
	for _, p := range pods {
		if at, due := n.deadline(v.api, p); due && p.node == name && at <= max(first, v.now) {
			objs = append(objs, Object{Name: p.name, Node: name})
		}
	}
	return nlcAction{first, Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbDelete, Resource: ResPod,
		Reason: ReasonEvict, Objects: objs}}, true
}

// evictions returns, for each pod whose toleration is running out, when it
// ends, in pod name order.
func (n *nlcState) evictions(a *apiServer) []podDeadline {
	var out []podDeadline
	for _, p := range a.sortedPods() {
		if at, ok := n.deadline(a, p); ok {
			out = append(out, podDeadline{p, at})
		}
	}
	return out
}

type podDeadline struct {
	pod *pod
	at  time.Duration
}

// empty reports whether the controller remembers nothing, as after it
// stops.
func (n *nlcState) empty() bool {
	return n.since == [NodeCount]time.Duration{} && len(n.evict) == 0
}
