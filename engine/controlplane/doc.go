// Package controlplane is chapter 004's cluster: from kubectl apply to pods
// Running, message by message, and what keeps them running when a program
// or a node stops.
//
// An apiServer (kube-apiserver with its etcd) stores versioned objects —
// the Deployment web, its ReplicaSet web-<hash>, pods, nodes and their
// Leases — and tells watchers what changed. The components are a
// descriptor list, as kube-controller-manager lists its controllers: the
// Deployment controller, the ReplicaSet controller and the node lifecycle
// controller (one program, the controller-manager, which stops and starts
// as one), the scheduler, and one kubelet per node (node-1, node-2, node-3,
// room for NodeCapacity pods each). Each component runs when its watch
// lists or notifies it, when one of its own requests is answered, or when a
// timer of its own ends; it reads the apiserver and returns the requests it
// sends. No component holds a pointer to another.
//
// Every write, watch notification and CRI call is a Message with a virtual
// send and arrival time; the sequence diagram is drawn from them.
//
// # Invariants
//
//   - Nobody calls anybody (「コンポーネント同士を結ぶ線は 1 本も無い」): every
//     message has LaneAPIServer at one end (KindWrite into it, KindWatch out
//     of it), or is a KindCRI call from LaneKubelet to LaneContainerd. With
//     the dockershim stack (Kubernetes ≤1.23) the CRI call still goes from
//     the kubelet to containerd: dockershim (code inside the kubelet) and
//     dockerd are the hops it passes, listed in Message.Via, not lanes of
//     their own, because they are the path of one call, not programs that
//     watch or decide anything. The image pulled is nginx:1.29.0, the same
//     OCI image either way.
//   - Level-triggered and idempotent: a component compares what it reads
//     with what should be and sends only the difference; run again, it sends
//     nothing. It keeps at most one request per object in flight (the
//     ReplicaSet controller's expectations, the scheduler's assumed pods,
//     the kubelet's pod workers), so it never acts twice on one change.
//   - The scheduler binds a pod only to a node without a taint the pod does
//     not tolerate (TaintToleration: the pods tolerate no NoSchedule taint,
//     and unreachable:NoExecute only for a while) and with room, counting
//     the pods bound there (terminating ones included) and those it is
//     binding; so no node ever holds more than NodeCapacity pods, and no
//     container runs beyond it. The Ready condition is no filter, as in
//     kube-scheduler: a node that has just gone Unknown gets pods until its
//     NoSchedule taint lands.
//   - A node whose Ready is not True gets node.kubernetes.io/unreachable
//     with NoSchedule and NoExecute, and loses both when it is Ready again.
//     Its pods are marked not Ready, and each is evicted
//     DefaultTolerationSeconds after the controller first saw it on the
//     tainted node: every pod has its own countdown.
//   - A pod that is Running has the IP of its sandbox (10.244.<n>.<h> in its
//     node's podCIDR, .2 to .254, handed out round robin by the node's IPAM)
//     for its whole life; no two pods share an IP. Ready implies Running.
//   - Once nothing is in flight and the controllers have listed, the
//     ReplicaSet has exactly its replicas of pods that are not terminating,
//     and the ReplicaSet's and the Deployment's readyReplicas count the
//     Ready ones.
//   - Pure and deterministic: no goroutines, no wall clock, no I/O; the only
//     randomness is a seeded generator in the Cluster (pod names). Time moves
//     only in Advance, Step and SkipToNext (virtual time; pause and speed
//     belong to the caller), and in Next during the guide. The clock moves
//     in whole milliseconds, as snapshots count: Advance carries a rest
//     under a millisecond to its next call (and the snapshot keeps it), so a
//     caller may advance by any real time it measured.
//   - NextDue is exact and cheap: routine heartbeats (Lease renewals every
//     LeaseRenewInterval) are derived from time, never ticked, so a converged
//     cluster with every node up has nothing due and NextDue returns false.
//     A stopped node, an eviction, a scheduler retry or a message in flight
//     each give the exact moment. A pod that fits nowhere waits for a cluster
//     event or the UnschedulableFlush, so even that world's next timer is
//     minutes away and means a real retry.
//   - Bounded: pods (MaxPods), messages in flight (MaxInFlight), the
//     diagram (DiagramSize), the log (MaxEvents), the scheduler's attempts,
//     every counter (maxRV) and the clock.
//   - Names: the ReplicaSet is web-<pod-template-hash>, pods are
//     <replicaset>-<5 characters of Alphabet> drawn by the apiserver
//     (generateName), unique among existing pods, the same for the same seed.
//   - Snapshot and Restore round-trip exactly; Restore checks every field
//     and returns an error, never a cluster, for anything the package could
//     not have written. A visitor's command that is out of range or names an
//     unknown thing returns an error and changes nothing.
//
// # The guide
//
// New returns an empty cluster with the chapter's apply unsent. Next sends
// the GuideSteps messages one at a time (GuideStepInfo gives each one's
// arrow and caption): they are the components' own messages, not a script,
// with one exception: during the guide the ReplicaSet controller creates the
// three pods in one batch, the chapter's POST Pod ×3, where live it starts
// a slow start with one. Back replays the guide from the seed. After the
// last message the cluster is live and time runs; the status roll-up the
// chapter's kubectl wait watches (the ReplicaSet's, then the Deployment's
// readyReplicas=3) follows in the first second.
//
// # Defaults (real Kubernetes)
//
//	LeaseRenewInterval        10 s   kubelet Lease renewal
//	NodeMonitorGracePeriod    50 s   Ready → Unknown after the last renewal
//	DefaultTolerationSeconds  300 s  each pod's unreachable:NoExecute toleration (the admission plugin)
//	InitialBackoff            1 s    scheduler backoff, doubling …
//	MaxBackoff                10 s   … up to this
//	UnschedulableFlush        5 min  podMaxInUnschedulablePodsDuration
//	SlowStartInitialBatchSize 1      the ReplicaSet controller's first batch of creations, doubling
//
// # Where the demo simplifies Kubernetes
//
//   - One Deployment with one fixed pod template: no rollout, so one ReplicaSet.
//   - The pod-template-hash is FNV-32a of a canonical text of the template, so its value differs from a real cluster's.
//   - Components read the apiserver's current state when they act; a real informer's cache lags by the watch latency.
//   - A component is not notified of its own writes (the answer tells it); a real informer sees them echoed.
//   - Watches deliver only the changes a component acts on (the ReplicaSet controller hears a pod's Ready change, not its binding).
//   - Of a status, only readyReplicas is written: no status.replicas, availableReplicas, observedGeneration or conditions, and the Deployment controller writes its status as a step of its own sync.
//   - Lease renewals and node status heartbeats are not drawn; the node lifecycle controller acts at the exact deadline, not on its 5 s monitor period.
//   - Both unreachable taints come in one PATCH right after the Unknown; the real controller adds NoSchedule from its node-update worker at once and NoExecute from its monitor pass, up to 5 s later.
//   - The node lifecycle controller also evicts (the taint-eviction-controller's job since 1.29); pods whose tolerations end at the same moment go in one DELETE arrow, and no DisruptionTarget condition is written.
//   - Pods carry only the default tolerations (not-ready and unreachable NoExecute, 300 s); the node lifecycle controller never uses the not-ready taint, since Ready=False is never simulated.
//   - The scheduler filters on taints and a pod count; it has no CPU or memory.
//   - Least-allocated ties go to the first node by name; the real scheduler picks one of the best at random.
//   - One scheduling pass binds every pod it can; the real scheduler takes one pod per cycle and binds asynchronously.
//   - Unschedulable pods move on any node change or assigned pod deletion (no per-plugin queueing hints); the flush is exact, not checked every 30 s.
//   - FailedScheduling is a log event only: no Event object and no PodScheduled condition are written.
//   - The kubelet's CRI calls travel two by two (RunPodSandbox + PullImage, CreateContainer + StartContainer); status reads are not drawn.
//   - No probes: a container that starts is Running and Ready at once (a container without a readinessProbe is ready); stopping is immediate (no 30 s grace period), and StopPodSandbox also removes the sandbox.
//   - The kubelet writes phase, podIP and Ready in one status PATCH once the container runs (a real one may write Pending with the podIP first); a terminating pod's status is not written again, it is deleted once stopped.
//   - A pod's IP comes from its node's containerd (the CNI plugin's host-local IPAM on the node's podCIDR, 10.244.<n>.0/24 for node-n); there is no CNI lane, no bridge and no network.
//   - A ReplicaSet controller whose create fails ends its slow start and starts again at 1 on its next sync, without the real one's rate-limited requeue (no create fails in this cluster).
//   - Stopping a node stops its kubelet and heartbeats; its containers keep running, as with systemctl stop kubelet.
//   - A kubelet corrects an Unknown on its node, or Ready=False on its running pods, at once; a real one does at its next status update (within 10 s).
//   - Ready=False (a kubelet whose runtime is down) is never simulated.
//   - Switching the runtime stack applies to later CRI calls at once; a real node is drained and reconfigured, and images pulled by dockerd are not in containerd's store.
//   - Each dockershim hop adds HopLatency; the latencies themselves (WriteLatency, WatchLatency, CallLatency, PullLatency) are chosen to be readable.
//   - Messages sent at the same instant with the same shape are drawn as one arrow carrying several objects.
//   - A kubectl apply made while the last one is still on its way replaces it.
//   - Terminating is kubectl's word for a pod with a deletionTimestamp, shown as a phase.
package controlplane
