package controlplane

import "time"

// Node lifecycle defaults (kube-controller-manager's
// --node-monitor-grace-period, and the 300 s of the unreachable:NoExecute
// toleration the DefaultTolerationSeconds admission plugin gives every pod).
const (
	NodeMonitorGracePeriod = 50 * time.Second
	EvictionTimeout        = 300 * time.Second
)

// nlcState is the node lifecycle controller's memory, lost when
// kube-controller-manager stops: when it began to watch each node (a node it
// has just started to watch gets a full grace period, as the real one
// stamps its probe time with its own clock), and when it will evict each
// tainted node's pods (the taint manager counts the toleration from when it
// saw the taint).
type nlcState struct {
	since    [NodeCount]time.Duration
	evictAt  [NodeCount]time.Duration
	evictSet [NodeCount]bool
}

// run is the controller's monitor pass over every node whose last write is
// answered.
func (n *nlcState) run(v *view, t trigger) []Message {
	if t.kind == onList {
		*n = nlcState{}
		for i := range n.since {
			n.since[i] = v.now
		}
	}
	var out []Message
	for i, name := range nodeNames {
		nd := v.api.nodes[i]
		switch {
		case !nd.tainted:
			n.evictSet[i] = false
		case !n.evictSet[i]:
			n.evictAt[i], n.evictSet[i] = v.now+EvictionTimeout, true
		}
		if v.pending(LaneNodeLife, func(o Object) bool { return o.Node == name }) {
			continue
		}
		if at, m, ok := n.plan(v, i); ok && at <= v.now {
			out = append(out, m)
		}
	}
	return out
}

// plan returns what the controller will do to node i and when, if anything:
//   - Ready=True but no heartbeat for the grace period: Ready → Unknown;
//   - not Ready and not tainted: add the NoExecute taint;
//   - Ready again and tainted: remove the taint;
//   - tainted, not Ready, with pods that are not being deleted: evict them
//     when their toleration ends.
func (n *nlcState) plan(v *view, i int) (time.Duration, Message, bool) {
	name, nd := nodeNames[i], v.api.nodes[i]
	obj := []Object{{Name: name, Node: name}}
	nodeWrite := func(sub, reason string) Message {
		return Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResNode, Sub: sub, Reason: reason, Objects: obj}
	}
	if nd.ready == ConditionTrue {
		deadline := max(nd.renewTime(v.now), n.since[i]) + NodeMonitorGracePeriod
		switch {
		case deadline <= v.now:
			return deadline, nodeWrite(SubStatus, ReasonNodeUnknown), true
		case nd.tainted:
			return v.now, nodeWrite("", ReasonUntaint), true
		case !nd.renewing:
			// A renewing Lease always moves the deadline past now, so only
			// a silent node has one to wait for.
			return deadline, nodeWrite(SubStatus, ReasonNodeUnknown), true
		}
		return 0, Message{}, false
	}
	if !nd.tainted {
		return v.now, nodeWrite("", ReasonTaint), true
	}
	var pods []Object
	for _, p := range v.api.sortedPods() {
		if p.node == name && !p.terminating {
			pods = append(pods, Object{Name: p.name, Node: name})
		}
	}
	if len(pods) == 0 || !n.evictSet[i] {
		return 0, Message{}, false
	}
	return n.evictAt[i], Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbDelete, Resource: ResPod, Reason: ReasonEvict, Objects: pods}, true
}
