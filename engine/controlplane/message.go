package controlplane

import (
	"slices"
	"time"
)

// Lanes of the sequence diagram: who sends and receives messages. Every
// message has LaneAPIServer at one end, except the kubelet's CRI calls to
// LaneContainerd (the chapter: 「コンポーネント同士を結ぶ線は 1 本も無い」).
const (
	LaneKubectl    = "kubectl"
	LaneAPIServer  = "apiserver" // kube-apiserver with etcd behind it
	LaneDeployment = "deployment-controller"
	LaneReplicaSet = "replicaset-controller"
	LaneScheduler  = "scheduler"
	LaneKubelet    = "kubelet" // one lane for the kubelets of all nodes; Object.Node says whose
	LaneContainerd = "containerd"
	LaneNodeLife   = "node-lifecycle-controller"
)

// Message kinds, as the chapter's legend draws them: 実線 is a write to the
// apiserver or a CRI call from the kubelet to containerd, 点線 is a watch
// notification.
const (
	KindWrite = "write" // solid: X → apiserver
	KindWatch = "watch" // dotted: apiserver → X
	KindCRI   = "cri"   // solid: kubelet → containerd
)

// Verbs. Writes use HTTP verbs; watch notifications use the watch event
// types (LIST is the initial list a component receives when it starts); CRI
// messages have no verb: Calls names them.
const (
	VerbPost     = "POST"
	VerbPatch    = "PATCH"
	VerbDelete   = "DELETE"
	VerbAdded    = "ADDED"
	VerbModified = "MODIFIED"
	VerbDeleted  = "DELETED"
	VerbList     = "LIST"
)

// Resources a message is about. Binding is the pods/binding subresource the
// scheduler POSTs; Sub "status" marks the status subresource.
const (
	ResDeployment = "Deployment"
	ResReplicaSet = "ReplicaSet"
	ResPod        = "Pod"
	ResBinding    = "Binding"
	ResNode       = "Node"
	SubStatus     = "status"
)

// Reasons: what a message is for, a closed set the page translates. A watch
// notification carries the reason of the write that caused it, or
// ReasonList.
const (
	ReasonApply          = "apply"           // kubectl POST Deployment (kubectl apply)
	ReasonScale          = "scale"           // kubectl PATCH Deployment replicas=Value
	ReasonKill           = "kill"            // kubectl DELETE Pod
	ReasonCreateRS       = "create-rs"       // Deployment controller POST ReplicaSet
	ReasonScaleRS        = "scale-rs"        // Deployment controller PATCH ReplicaSet replicas=Value
	ReasonCreatePods     = "create-pods"     // ReplicaSet controller POST Pod (generateName)
	ReasonDeletePods     = "delete-pods"     // ReplicaSet controller DELETE Pod (too many)
	ReasonBind           = "bind"            // scheduler POST Binding (pod → Object.Node)
	ReasonStartPod       = "start-pod"       // CRI RunPodSandbox (+ PullImage when the node lacks the image)
	ReasonStartContainer = "start-container" // CRI CreateContainer + StartContainer
	ReasonPodRunning     = "pod-running"     // kubelet PATCH Pod status phase=Running, podIP=Object.IP, Ready=True
	ReasonStopPod        = "stop-pod"        // CRI (StopContainer +) StopPodSandbox
	ReasonConfirmDelete  = "confirm-delete"  // kubelet DELETE Pod gracePeriodSeconds=0
	ReasonNodeReady      = "node-ready"      // kubelet PATCH Node status Ready=True
	ReasonNodeUnknown    = "node-unknown"    // node lifecycle controller PATCH Node status Ready=Unknown
	ReasonTaint          = "taint"           // node lifecycle controller adds node.kubernetes.io/unreachable:NoSchedule and :NoExecute
	ReasonUntaint        = "untaint"         // … and removes them
	ReasonPodNotReady    = "pod-not-ready"   // node lifecycle controller PATCH Pod status Ready=False (its node is not Ready)
	ReasonEvict          = "evict"           // node lifecycle controller DELETE Pod (its NoExecute toleration ran out)
	ReasonRSStatus       = "rs-status"       // ReplicaSet controller PATCH ReplicaSet status readyReplicas=Value
	ReasonDeployStatus   = "deploy-status"   // Deployment controller PATCH Deployment status readyReplicas=Value
	ReasonList           = "list"            // the initial LIST of a starting component's watch
)

// CRI calls, by their names in the CRI's RuntimeService and ImageService.
const (
	CallRunPodSandbox   = "RunPodSandbox"
	CallPullImage       = "PullImage"
	CallCreateContainer = "CreateContainer"
	CallStartContainer  = "StartContainer"
	CallStopContainer   = "StopContainer"
	CallStopPodSandbox  = "StopPodSandbox"
)

// Latencies: how long each message takes in virtual time, so that the live
// diagram can be read. WatchLatency is not less than WriteLatency, so a
// component that restarts lists every write it sent before it stopped.
const (
	WriteLatency = 200 * time.Millisecond // request, admission, etcd
	WatchLatency = 200 * time.Millisecond // apiserver → watcher
	CallLatency  = 250 * time.Millisecond // one CRI call other than PullImage
	PullLatency  = 2 * time.Second        // PullImage of nginx:1.29.0
	HopLatency   = 100 * time.Millisecond // each extra hop of the dockershim path
)

// maxLatency bounds any message's latency: the slowest is a start-pod with a
// pull through dockershim.
const maxLatency = CallLatency + PullLatency + 2*HopLatency

// Object is one object a message carries: a pod, a node, the Deployment or
// the ReplicaSet. Node is the node concerned: the pod's node (for a Binding,
// the node chosen; for a kubelet, its own node), or the node itself. IP is
// the podIP a kubelet's status write (ReasonPodRunning) carries; "" on every
// other message.
type Object struct {
	Name string `json:"name"`
	Node string `json:"node,omitempty"`
	IP   string `json:"ip,omitempty"`
}

// Message is one arrow of the sequence diagram. Messages sent at the same
// virtual instant with the same shape are drawn as one arrow carrying
// several objects (POST Pod ×3).
type Message struct {
	Seq      int           // increases by one per message, for stable keys
	Sent     time.Duration // virtual time the arrow leaves From
	Arrive   time.Duration // virtual time it reaches To and takes effect
	From, To string        // lanes
	Kind     string        // KindWrite, KindWatch or KindCRI
	Verb     string        // POST|PATCH|DELETE, ADDED|MODIFIED|DELETED|LIST, "" for CRI
	Resource string        // ResDeployment, ResReplicaSet, ResPod, ResBinding, ResNode; "" for CRI
	Sub      string        // SubStatus or ""
	Reason   string        // what it is for (Reason* constants)
	Value    int           // replicas for ReasonScale and ReasonScaleRS, and for the apply and create-rs; readyReplicas for a status write
	Calls    []string      // CRI calls in order (kind cri only)
	Image    string        // the OCI image pulled (when Calls has PullImage)
	Via      []string      // the hops between kubelet and containerd: dockershim, dockerd (runtime ≤1.23)
	Objects  []Object      // what it carries; a POST Pod's names are filled in by the apiserver
	Step     int           // the guided step it is (1..GuideSteps), 0 once the cluster is live
}

// clone returns a copy that shares no slices with m.
func (m *Message) clone() Message {
	c := *m
	c.Calls = slices.Clone(m.Calls)
	c.Via = slices.Clone(m.Via)
	c.Objects = slices.Clone(m.Objects)
	return c
}

// latency is how long a message of this shape takes.
func latency(kind string, calls, via []string) time.Duration {
	switch kind {
	case KindWrite:
		return WriteLatency
	case KindWatch:
		return WatchLatency
	}
	var d time.Duration
	for _, c := range calls {
		if c == CallPullImage {
			d += PullLatency
		} else {
			d += CallLatency
		}
	}
	return d + time.Duration(len(via))*HopLatency
}

// sameArrow reports whether a and b are drawn as one arrow: sent at the same
// instant with the same shape.
func sameArrow(a, b *Message) bool {
	return a.Sent == b.Sent && a.From == b.From && a.To == b.To && a.Kind == b.Kind &&
		a.Verb == b.Verb && a.Resource == b.Resource && a.Sub == b.Sub && a.Reason == b.Reason &&
		a.Value == b.Value && a.Image == b.Image && slices.Equal(a.Calls, b.Calls) && slices.Equal(a.Via, b.Via)
}

// shape is a kind of message the engine sends: its ends, kind, verb,
// resource and reason. The tables below are every shape there is; Restore
// refuses any other, and a test checks that each has the apiserver at one end
// or is a CRI call from the kubelet to containerd.
type shape struct {
	from, to, kind, verb, resource, sub, reason string
}

// writeShapes are the writes: who changes what in the apiserver.
var writeShapes = []shape{
	{LaneKubectl, LaneAPIServer, KindWrite, VerbPost, ResDeployment, "", ReasonApply},
	{LaneKubectl, LaneAPIServer, KindWrite, VerbPatch, ResDeployment, "", ReasonScale},
	{LaneKubectl, LaneAPIServer, KindWrite, VerbDelete, ResPod, "", ReasonKill},
	{LaneDeployment, LaneAPIServer, KindWrite, VerbPost, ResReplicaSet, "", ReasonCreateRS},
	{LaneDeployment, LaneAPIServer, KindWrite, VerbPatch, ResReplicaSet, "", ReasonScaleRS},
	{LaneReplicaSet, LaneAPIServer, KindWrite, VerbPost, ResPod, "", ReasonCreatePods},
	{LaneReplicaSet, LaneAPIServer, KindWrite, VerbDelete, ResPod, "", ReasonDeletePods},
	{LaneScheduler, LaneAPIServer, KindWrite, VerbPost, ResBinding, "", ReasonBind},
	{LaneKubelet, LaneAPIServer, KindWrite, VerbPatch, ResPod, SubStatus, ReasonPodRunning},
	{LaneKubelet, LaneAPIServer, KindWrite, VerbDelete, ResPod, "", ReasonConfirmDelete},
	{LaneKubelet, LaneAPIServer, KindWrite, VerbPatch, ResNode, SubStatus, ReasonNodeReady},
	{LaneNodeLife, LaneAPIServer, KindWrite, VerbPatch, ResNode, SubStatus, ReasonNodeUnknown},
	{LaneNodeLife, LaneAPIServer, KindWrite, VerbPatch, ResNode, "", ReasonTaint},
	{LaneNodeLife, LaneAPIServer, KindWrite, VerbPatch, ResNode, "", ReasonUntaint},
	{LaneNodeLife, LaneAPIServer, KindWrite, VerbPatch, ResPod, SubStatus, ReasonPodNotReady},
	{LaneNodeLife, LaneAPIServer, KindWrite, VerbDelete, ResPod, "", ReasonEvict},
	{LaneReplicaSet, LaneAPIServer, KindWrite, VerbPatch, ResReplicaSet, SubStatus, ReasonRSStatus},
	{LaneDeployment, LaneAPIServer, KindWrite, VerbPatch, ResDeployment, SubStatus, ReasonDeployStatus},
}

// criShapes are the kubelet's calls to containerd, with the calls each may
// carry.
var criShapes = []struct {
	reason string
	calls  [][]string
}{
	{ReasonStartPod, [][]string{{CallRunPodSandbox, CallPullImage}, {CallRunPodSandbox}}},
	{ReasonStartContainer, [][]string{{CallCreateContainer, CallStartContainer}}},
	{ReasonStopPod, [][]string{{CallStopContainer, CallStopPodSandbox}, {CallStopPodSandbox}}},
}

// watchShapes are the notifications: who watches which changes. Each
// component's filter (its hears, in component.go and kubelet.go) sends
// exactly these.
var watchShapes = []shape{
	{LaneAPIServer, LaneDeployment, KindWatch, VerbAdded, ResDeployment, "", ReasonApply},
	{LaneAPIServer, LaneDeployment, KindWatch, VerbModified, ResDeployment, "", ReasonScale},
	{LaneAPIServer, LaneDeployment, KindWatch, VerbList, ResDeployment, "", ReasonList},
	{LaneAPIServer, LaneDeployment, KindWatch, VerbModified, ResReplicaSet, SubStatus, ReasonRSStatus},
	{LaneAPIServer, LaneReplicaSet, KindWatch, VerbAdded, ResReplicaSet, "", ReasonCreateRS},
	{LaneAPIServer, LaneReplicaSet, KindWatch, VerbModified, ResReplicaSet, "", ReasonScaleRS},
	{LaneAPIServer, LaneReplicaSet, KindWatch, VerbModified, ResPod, "", ReasonKill},
	{LaneAPIServer, LaneReplicaSet, KindWatch, VerbModified, ResPod, "", ReasonEvict},
	{LaneAPIServer, LaneReplicaSet, KindWatch, VerbDeleted, ResPod, "", ReasonKill},
	{LaneAPIServer, LaneReplicaSet, KindWatch, VerbList, ResReplicaSet, "", ReasonList},
	{LaneAPIServer, LaneReplicaSet, KindWatch, VerbModified, ResPod, SubStatus, ReasonPodRunning},
	{LaneAPIServer, LaneReplicaSet, KindWatch, VerbModified, ResPod, SubStatus, ReasonPodNotReady},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbAdded, ResPod, "", ReasonCreatePods},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbDeleted, ResPod, "", ReasonKill},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbDeleted, ResPod, "", ReasonDeletePods},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbDeleted, ResPod, "", ReasonConfirmDelete},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbModified, ResNode, SubStatus, ReasonNodeReady},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbModified, ResNode, SubStatus, ReasonNodeUnknown},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbModified, ResNode, "", ReasonTaint},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbModified, ResNode, "", ReasonUntaint},
	{LaneAPIServer, LaneScheduler, KindWatch, VerbList, ResPod, "", ReasonList},
	{LaneAPIServer, LaneKubelet, KindWatch, VerbAdded, ResPod, "", ReasonBind},
	{LaneAPIServer, LaneKubelet, KindWatch, VerbModified, ResPod, "", ReasonKill},
	{LaneAPIServer, LaneKubelet, KindWatch, VerbModified, ResPod, "", ReasonDeletePods},
	{LaneAPIServer, LaneKubelet, KindWatch, VerbModified, ResPod, "", ReasonEvict},
	{LaneAPIServer, LaneKubelet, KindWatch, VerbModified, ResNode, SubStatus, ReasonNodeUnknown},
	{LaneAPIServer, LaneKubelet, KindWatch, VerbList, ResPod, "", ReasonList},
	{LaneAPIServer, LaneKubelet, KindWatch, VerbModified, ResPod, SubStatus, ReasonPodNotReady},
	{LaneAPIServer, LaneNodeLife, KindWatch, VerbModified, ResNode, SubStatus, ReasonNodeReady},
	{LaneAPIServer, LaneNodeLife, KindWatch, VerbList, ResNode, "", ReasonList},
	{LaneAPIServer, LaneNodeLife, KindWatch, VerbModified, ResPod, "", ReasonBind},
}

// shapeOf returns m's shape.
func shapeOf(m *Message) shape {
	return shape{m.From, m.To, m.Kind, m.Verb, m.Resource, m.Sub, m.Reason}
}
