package controlplane

// kubelet is the agent of one node. Its watch has the field selector
// spec.nodeName=<node>, so it hears of the pods bound to its node (a bound pod
// appears to it as ADDED) and of its own Node.
type kubelet struct{ node string }

func (k kubelet) hears(ch change) (string, bool) {
	switch {
	case ch.resource == ResPod && ch.bound && ch.node == k.node:
		return VerbAdded, true
	case ch.resource == ResPod && ch.doomed && ch.node == k.node:
		return VerbModified, true
	case ch.resource == ResPod && ch.reason == ReasonPodNotReady && ch.node == k.node:
		// Its pod marked not Ready while it runs: its status manager puts
		// back what it sees (the container runs: Ready).
		return VerbModified, true
	case ch.resource == ResNode && ch.name == k.node && ch.reason == ReasonNodeUnknown:
		// Its node marked Unknown while it runs (a race with its own
		// status): its next status update says Ready again.
		return VerbModified, true
	}
	return "", false
}

// run syncs each of the node's pods whose last request is answered (the
// kubelet's pod workers), and the node's Ready condition.
func (k kubelet) run(v *view, _ trigger) []Message {
	mine := func(name string) func(Object) bool {
		return func(o Object) bool { return o.Node == k.node && o.Name == name }
	}
	var out []Message
	if v.api.node(k.node).ready != ConditionTrue && !v.pending(LaneKubelet, mine(k.node)) {
		out = append(out, nodeReady(k.node))
	}
	for _, p := range v.api.sortedPods() {
		if p.node != k.node || v.pending(LaneKubelet, mine(p.name)) {
			continue
		}
		if m, ok := k.syncPod(v, p); ok {
			out = append(out, m)
		}
	}
	return out
}

// nodeReady is the kubelet's node status update: Ready=True.
func nodeReady(node string) Message {
	return Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResNode, Sub: SubStatus,
		Reason: ReasonNodeReady, Objects: []Object{{Name: node, Node: node}}}
}

// syncPod returns the pod's next step (SyncPod, one CRI message at a time):
// sandbox and image, then the container, then the status — phase Running,
// the sandbox's IP as podIP, and Ready=True, since a container without a
// readinessProbe is ready once it runs (the prober manager's "no
// readinessProbe -> always ready"); or, for a pod being deleted, stop it and
// confirm the deletion. A running pod whose status says otherwise (marked
// not Ready while the kubelet was away) gets its status written again.
func (k kubelet) syncPod(v *view, p *pod) (Message, bool) {
	obj := []Object{{Name: p.name, Node: k.node}}
	cri := func(reason string, calls ...string) (Message, bool) {
		return Message{To: LaneContainerd, Kind: KindCRI, Reason: reason, Calls: calls, Objects: obj}, true
	}
	sb := v.rt.sandboxes[p.name]
	switch {
	case p.terminating && sb == nil:
		return Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbDelete, Resource: ResPod,
			Reason: ReasonConfirmDelete, Objects: obj}, true
	case p.terminating && sb.started:
		return cri(ReasonStopPod, CallStopContainer, CallStopPodSandbox)
	case p.terminating:
		return cri(ReasonStopPod, CallStopPodSandbox)
	case sb == nil && v.rt.image:
		return cri(ReasonStartPod, CallRunPodSandbox)
	case sb == nil:
		return cri(ReasonStartPod, CallRunPodSandbox, CallPullImage)
	case !sb.started:
		return cri(ReasonStartContainer, CallCreateContainer, CallStartContainer)
	}
	ip := podIP(nodeIndex(k.node), sb.host)
	if p.running && p.ready && p.ip == ip {
		return Message{}, false
	}
	obj[0].IP = ip
	return Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResPod, Sub: SubStatus,
		Reason: ReasonPodRunning, Objects: obj}, true
}
