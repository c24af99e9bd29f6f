package controlplane

import "slices"

// Runtime is the path from the kubelet to containerd: the stack of the
// chapter's figure 4.
type Runtime string

// The two stacks. The image is the same OCI image on either.
const (
	// RuntimeContainerd is Kubernetes 1.24 and later: the kubelet speaks CRI
	// to containerd directly.
	RuntimeContainerd Runtime = "containerd"
	// RuntimeDockershim is Kubernetes 1.23 and earlier with Docker Engine:
	// the kubelet's built-in dockershim turns CRI calls into Docker API calls
	// to dockerd, which asks containerd.
	RuntimeDockershim Runtime = "dockershim"
)

// Path returns the programs a CRI call passes through, from the kubelet to
// containerd.
func (r Runtime) Path() []string {
	if r == RuntimeDockershim {
		return []string{LaneKubelet, "dockershim", "dockerd", LaneContainerd}
	}
	return []string{LaneKubelet, LaneContainerd}
}

// via returns the hops between the kubelet and containerd.
func (r Runtime) via() []string {
	p := r.Path()
	return slices.Clone(p[1 : len(p)-1])
}

// nodeRuntime is containerd on one node: the images it holds and a sandbox
// per pod it runs.
type nodeRuntime struct {
	image     bool // nginx:1.29.0 is pulled
	sandboxes map[string]*sandbox
}

// sandbox is a pod's sandbox and whether its container was started.
type sandbox struct{ started bool }

// apply performs CRI calls for a pod. Calls are idempotent, as containerd's
// are for the same request.
func (r *nodeRuntime) apply(calls []string, podName string) {
	for _, c := range calls {
		sb := r.sandboxes[podName]
		switch c {
		case CallRunPodSandbox:
			if sb == nil {
				r.sandboxes[podName] = &sandbox{}
			}
		case CallPullImage:
			r.image = true
		case CallStartContainer:
			if sb != nil {
				sb.started = true
			}
		case CallStopContainer:
			if sb != nil {
				sb.started = false
			}
		case CallStopPodSandbox:
			// Stopped and, soon after, garbage-collected: gone.
			delete(r.sandboxes, podName)
		}
	}
}

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
// sandbox and image, then the container, then the status; or, for a pod
// being deleted, stop it and confirm the deletion.
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
	case p.running:
		return Message{}, false
	case sb == nil && v.rt.image:
		return cri(ReasonStartPod, CallRunPodSandbox)
	case sb == nil:
		return cri(ReasonStartPod, CallRunPodSandbox, CallPullImage)
	case !sb.started:
		return cri(ReasonStartContainer, CallCreateContainer, CallStartContainer)
	}
	return Message{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResPod, Sub: SubStatus,
		Reason: ReasonPodRunning, Objects: obj}, true
}
