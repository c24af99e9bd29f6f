package controlplane

import "time"

// Event is one line of the page's log, in structured form so that the page
// can say it in Japanese or English. Which fields are set depends on Kind.
type Event struct {
	Seq    int           // increases by one per event, for stable keys
	At     time.Duration // virtual time
	Kind   string        // an Event* constant
	Name   string        // the pod, node, process or preset concerned
	Node   string        // the node concerned
	Status string        // a Ready status, a process state, a runtime, a reason, a podIP, a kind
	N, M   int           // numbers, per kind
	K      int           // a third number, per kind
	Wait   time.Duration // a delay, per kind
}

// Event kinds. Those marked "lands" are logged when the write that causes
// them reaches the apiserver; the others when the visitor acts or the
// component decides. Status roll-ups (readyReplicas) and the node lifecycle
// controller's Ready=False on pods are not logged: the objects show them,
// and the diagram draws their writes.
const (
	EventDeploymentCreated = "deployment-created" // lands: Deployment Name with N replicas
	EventDeploymentScaled  = "deployment-scaled"  // lands: Deployment Name replicas M → N
	EventRSCreated         = "rs-created"         // lands: ReplicaSet Name with N replicas
	EventRSScaled          = "rs-scaled"          // lands: ReplicaSet Name replicas M → N
	EventPodCreated        = "pod-created"        // lands: pod Name, Pending, nodeName empty
	EventScheduled         = "scheduled"          // lands: pod Name bound to Node
	EventFailedScheduling  = "failed-scheduling"  // scheduler: pod Name fits no node (attempt N; M nodes full, K with a taint it does not tolerate); tried again no sooner than Wait
	EventPodRunning        = "pod-running"        // lands: pod Name Running and Ready on Node, with podIP Status
	EventPodTerminating    = "pod-terminating"    // lands: pod Name on Node got a deletionTimestamp; Status is why (kill, delete-pods, evict)
	EventPodDeleted        = "pod-deleted"        // lands: pod Name (on Node, if bound) is gone; Status is why (kill, delete-pods, confirm-delete)
	EventNodeReady         = "node-ready"         // lands: node Name's Ready became Status (True or Unknown)
	EventTaint             = "taint"              // lands: node Name got node.kubernetes.io/unreachable:NoSchedule and :NoExecute
	EventUntaint           = "untaint"            // lands: node Name lost them
	EventProcess           = "process"            // visitor or preset: process Name (scheduler, controller-manager, a node) is Status (running, stopped)
	EventReplicas          = "replicas"           // visitor: kubectl applies replicas N (was M)
	EventKill              = "kill"               // visitor: kubectl deletes pod Name
	EventRuntime           = "runtime"            // visitor: the runtime stack is Status (containerd, dockershim)
	EventPreset            = "preset"             // visitor: preset Name set up (scheduler-outage, node-outage; Node is the node stopped)
	EventRestored          = "restored"           // the cluster was rebuilt from a snapshot
)

// Process states in EventProcess.Status.
const (
	StatusRunning = "running"
	StatusStopped = "stopped"
)

// ring keeps the newest items, at most size of them.
type ring[T any] struct {
	items []T
	size  int
}

func (r *ring[T]) add(x T) {
	if len(r.items) == r.size {
		copy(r.items, r.items[1:])
		r.items = r.items[:len(r.items)-1]
	}
	r.items = append(r.items, x)
}

func (r *ring[T]) list() []T { return append([]T(nil), r.items...) }
