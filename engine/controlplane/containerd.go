package controlplane

import (
	"slices"
	"strconv"
)

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

// nodeRuntime is containerd on one node: the images it holds, a sandbox
// per pod it runs, and its CNI plugin's IPAM (host-local on the node's
// podCIDR): the host part of the address it reserved last.
type nodeRuntime struct {
	image     bool // nginx:1.29.0 is pulled
	sandboxes map[string]*sandbox
	lastHost  int // 0 before the first reservation, else in [firstHost, lastHost]
}

// sandbox is a pod's sandbox: the host part of its IP in the node's
// podCIDR, and whether its container was started.
type sandbox struct {
	host    int
	started bool
}

// Pod addresses. Node i (node-1 is 1) has the podCIDR 10.244.i.0/24, as
// kube-controller-manager's node IPAM gives each node a /24 of the cluster
// CIDR 10.244.0.0/16 (here from 10.244.1.0 on); .1 is the bridge's gateway,
// so host-local hands out .2 to .254.
const (
	firstHost = 2
	lastHost  = 254
)

// PodCIDR returns the podCIDR of a node (10.244.1.0/24 for node-1), and ""
// for a name that is not a node.
func PodCIDR(node string) string {
	i := nodeIndex(node)
	if i < 0 {
		return ""
	}
	return "10.244." + strconv.Itoa(i+1) + ".0/24"
}

// podIP returns the address of host h in node i's podCIDR.
func podIP(i, h int) string { return "10.244." + strconv.Itoa(i+1) + "." + strconv.Itoa(h) }

// hostOf returns the host part of ip if ip is an address host-local hands
// out in node i's podCIDR, and false otherwise.
func hostOf(i int, ip string) (int, bool) {
	prefix := "10.244." + strconv.Itoa(i+1) + "."
	if len(ip) <= len(prefix) || ip[:len(prefix)] != prefix {
		return 0, false
	}
	h, err := strconv.Atoi(ip[len(prefix):])
	if err != nil || h < firstHost || h > lastHost || strconv.Itoa(h) != ip[len(prefix):] {
		return 0, false
	}
	return h, true
}

// reserve returns the next free host part after the last one reserved,
// round robin over [firstHost, lastHost] as host-local's allocator does (so
// an address just released is not handed out again at once), and records
// it as the last reserved. A node never runs more than NodeCapacity
// sandboxes, so a free one is always found.
func (r *nodeRuntime) reserve() int {
	used := map[int]bool{}
	for _, sb := range r.sandboxes {
		used[sb.host] = true
	}
	h := r.lastHost
	for range lastHost - firstHost + 1 {
		if h++; h < firstHost || h > lastHost {
			h = firstHost
		}
		if !used[h] {
			break
		}
	}
	r.lastHost = h
	return h
}

// apply performs CRI calls for a pod. Calls are idempotent, as containerd's
// are for the same request. RunPodSandbox sets up the pod's network: the
// CNI plugin reserves its IP.
func (r *nodeRuntime) apply(calls []string, podName string) {
	for _, c := range calls {
		sb := r.sandboxes[podName]
		switch c {
		case CallRunPodSandbox:
			if sb == nil {
				r.sandboxes[podName] = &sandbox{host: r.reserve()}
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
