package controlplane

import (
	"fmt"
	"slices"
	"time"
)

// SchedulerOutage is how long the scheduler-outage preset stops the
// scheduler: the quiz's 「scheduler が 1 分間止まっていたら」.
const SchedulerOutage = time.Minute

// Presets, as EventPreset names them.
const (
	PresetSchedulerOutage = "scheduler-outage"
	PresetNodeOutage      = "node-outage"
)

// live checks that the live controls may be used, and marks the cluster
// live: the guide can no longer be stepped back.
func (c *Cluster) goLive() error {
	if c.guide < GuideSteps {
		return ErrGuide
	}
	c.live = true
	return nil
}

// Replicas returns the replicas last applied with kubectl: the Deployment's,
// or those of the apply still on its way.
func (c *Cluster) Replicas() int {
	for _, m := range c.inflight {
		if m.From == LaneKubectl && m.Resource == ResDeployment {
			return m.Value
		}
	}
	if c.api.deploy != nil {
		return c.api.deploy.replicas
	}
	return 0
}

// SetReplicas applies the Deployment with n replicas (kubectl apply: a PATCH
// of spec.replicas). n must be in [0, MaxReplicas]. While an earlier apply
// is still on its way, it carries n instead: one request in flight.
func (c *Cluster) SetReplicas(n int) error {
	if n < 0 || n > MaxReplicas {
		return fmt.Errorf("replicas %d out of range [0, %d]", n, MaxReplicas)
	}
	if err := c.goLive(); err != nil {
		return err
	}
	old := c.Replicas()
	if n == old {
		return nil
	}
	c.logEvent(Event{Kind: EventReplicas, N: n, M: old})
	for _, m := range c.inflight {
		if m.From == LaneKubectl && m.Reason == ReasonScale {
			m.Value = n
			return nil
		}
	}
	c.send(Message{From: LaneKubectl, To: LaneAPIServer, Kind: KindWrite, Verb: VerbPatch, Resource: ResDeployment,
		Reason: ReasonScale, Value: n, Objects: []Object{{Name: DeploymentName}}})
	return nil
}

// KillPod deletes a pod with kubectl (kubectl delete pod). The pod must exist
// and not be terminating or already on its way to deletion.
func (c *Cluster) KillPod(name string) error {
	if c.guide < GuideSteps {
		return ErrGuide
	}
	p := c.api.pods[name]
	if p == nil {
		return fmt.Errorf("no pod named %q", name)
	}
	if p.terminating {
		return fmt.Errorf("pod %s is already terminating", name)
	}
	if (&view{inflight: c.inflight}).pending(LaneKubectl, func(o Object) bool { return o.Name == name }) {
		return fmt.Errorf("pod %s is already being deleted", name)
	}
	c.live = true
	c.logEvent(Event{Kind: EventKill, Name: name, Node: p.node})
	c.send(Message{From: LaneKubectl, To: LaneAPIServer, Kind: KindWrite, Verb: VerbDelete, Resource: ResPod,
		Reason: ReasonKill, Objects: []Object{{Name: name, Node: p.node}}})
	return nil
}

// SetComponent starts or stops a control-plane program: ProcessScheduler or
// ProcessControllerManager (the Deployment, ReplicaSet and node lifecycle
// controllers together, as in the real binary). A stopped program forgets
// its queue and timers and hears nothing; started, it lists what it missed.
// Either call cancels the scheduler-outage preset's restart.
func (c *Cluster) SetComponent(name string, running bool) error {
	if name != ProcessScheduler && name != ProcessControllerManager {
		return fmt.Errorf("no component named %q (want %s or %s)", name, ProcessScheduler, ProcessControllerManager)
	}
	if err := c.goLive(); err != nil {
		return err
	}
	if name == ProcessScheduler {
		c.restartSet = false
	}
	c.setProcess(name, running)
	return nil
}

// SetNode starts or stops a node's kubelet, and with it the node's
// heartbeats. Its containers keep whatever state they had; nobody on the
// node answers the apiserver until it starts again.
func (c *Cluster) SetNode(name string, running bool) error {
	if nodeIndex(name) < 0 {
		return fmt.Errorf("no node named %q", name)
	}
	if err := c.goLive(); err != nil {
		return err
	}
	c.setProcess(name, running)
	return nil
}

// SetRuntime chooses the path of the kubelet's CRI calls. On a live cluster
// it applies from now on. During the guide it redraws the guide's messages
// so far with the new stack, so that the guide stays a function of its seed,
// stack and step (which is all its snapshot holds).
func (c *Cluster) SetRuntime(r Runtime) error {
	if r != RuntimeContainerd && r != RuntimeDockershim {
		return fmt.Errorf("no runtime %q (want %s or %s)", r, RuntimeContainerd, RuntimeDockershim)
	}
	if r == c.runtime {
		return nil
	}
	c.runtime = r
	if !c.live {
		*c = *c.replay(c.guide)
		return nil
	}
	c.logEvent(Event{Kind: EventRuntime, Status: string(r)})
	return nil
}

// Runtime returns the runtime stack in use.
func (c *Cluster) Runtime() Runtime { return c.runtime }

// PresetSchedulerOutage sets up the quiz 「scheduler が 1 分間止まっていたら、
// その間に apply された Deployment はどうなる?」 from the live cluster (the
// guide is finished first if need be): the controller-manager is started if
// stopped, the scheduler stops for SchedulerOutage, and kubectl applies two
// more replicas (above MaxReplicas-2, it deletes a pod instead, whose
// replacement waits the same way). The ReplicaSet controller makes the pods;
// they wait with an empty nodeName until the scheduler is back and places
// them.
func (c *Cluster) PresetSchedulerOutage() error {
	c.FinishGuide()
	c.live = true
	c.logEvent(Event{Kind: EventPreset, Name: PresetSchedulerOutage})
	c.setProcess(ProcessControllerManager, true)
	c.setProcess(ProcessScheduler, false)
	c.restartAt, c.restartSet = c.now+SchedulerOutage, true
	if n := c.Replicas(); n <= MaxReplicas-2 {
		return c.SetReplicas(n + 2)
	}
	for _, p := range c.api.sortedPods() {
		if c.KillPod(p.name) == nil {
			return nil
		}
	}
	return nil
}

// PresetNodeOutage sets up a node failure from the live cluster (the guide
// is finished first if need be): the controller-manager and the scheduler
// are started if stopped, and the node with a running kubelet and the most
// pods (the first by name on a tie) stops. Its Ready turns Unknown
// NodeMonitorGracePeriod after its last Lease renewal, its pods are marked
// not Ready and it gets the unreachable taints, and DefaultTolerationSeconds
// later its pods are evicted and replaced on the other nodes. It returns the node stopped, or an error if every node is already
// stopped.
func (c *Cluster) PresetNodeOutage() (string, error) {
	best, most := "", -1
	for _, n := range nodeNames {
		if !c.running[n] {
			continue
		}
		k := 0
		for _, p := range c.api.pods {
			if p.node == n && !p.terminating {
				k++
			}
		}
		if k > most {
			best, most = n, k
		}
	}
	if best == "" {
		return "", fmt.Errorf("every node is already stopped")
	}
	c.FinishGuide()
	c.live = true
	c.logEvent(Event{Kind: EventPreset, Name: PresetNodeOutage, Node: best})
	c.restartSet = false
	c.setProcess(ProcessControllerManager, true)
	c.setProcess(ProcessScheduler, true)
	c.setProcess(best, false)
	return best, nil
}

// ComponentView is a control-plane program as the page shows it.
type ComponentView struct {
	Name    string // ProcessScheduler or ProcessControllerManager
	Running bool
	// RestartIn is the time left before the scheduler starts again by
	// itself (the outage preset); 0 when it will not.
	RestartIn time.Duration
}

// Components returns the scheduler and the controller-manager.
func (c *Cluster) Components() []ComponentView {
	out := []ComponentView{{Name: ProcessScheduler, Running: c.running[ProcessScheduler]},
		{Name: ProcessControllerManager, Running: c.running[ProcessControllerManager]}}
	if c.restartSet {
		out[0].RestartIn = max(c.restartAt-c.now, 0)
	}
	return out
}

// NodeView is a node as the page shows it.
type NodeView struct {
	Name    string
	Ready   ConditionStatus
	Kubelet bool // its kubelet (and heartbeat) runs
	// Taints are its spec.taints: none, or node.kubernetes.io/unreachable
	// with NoSchedule and NoExecute while its Ready is not True.
	Taints  []Taint
	Tainted bool // it has taints
	Pods    int  // pods bound to it, terminating ones included (of NodeCapacity)
	// PodCIDR is the range its pods' IPs come from: 10.244.<n>.0/24.
	PodCIDR string
	// LastRenew is the Lease's last renewal (virtual time).
	LastRenew time.Duration
	// ImagePulled says containerd on the node holds nginx:1.29.0.
	ImagePulled bool
}

// Nodes returns the nodes in order.
func (c *Cluster) Nodes() []NodeView {
	out := make([]NodeView, NodeCount)
	for i, n := range nodeNames {
		nd := c.api.nodes[i]
		out[i] = NodeView{Name: n, Ready: nd.ready, Kubelet: c.running[n], Taints: slices.Clone(nd.taints),
			Tainted: nd.tainted(), Pods: c.api.assigned(n), PodCIDR: PodCIDR(n), LastRenew: nd.renewTime(c.now),
			ImagePulled: c.rt[i].image}
	}
	return out
}

// PodView is a pod as the page shows it.
type PodView struct {
	Name  string
	Node  string // "" while unscheduled
	Phase Phase
	// IP is status.podIP, written by the kubelet with phase Running
	// (10.244.<n>.<h> in its node's podCIDR, the same for the pod's life);
	// "" before.
	IP string
	// Ready is its Ready condition: True once the kubelet reports it
	// running, False again if the node lifecycle controller marks it (its
	// node is not Ready).
	Ready bool
	// Container says how far containerd on its node has got: "" (nothing),
	// StatePrepared (sandbox and image) or StateRunning.
	Container string
	// Evicting says its toleration of its node's NoExecute taint is running
	// out, and EvictAt when it ends (virtual time): the pod is evicted then.
	// The countdown is the pod's own, DefaultTolerationSeconds from when the
	// node lifecycle controller first saw it on the tainted node, and it is
	// only counted while the controller-manager runs.
	Evicting bool
	EvictAt  time.Duration
}

// Pods returns the pods, sorted by name.
func (c *Cluster) Pods() []PodView {
	var out []PodView
	for _, p := range c.api.sortedPods() {
		v := PodView{Name: p.name, Node: p.node, Phase: PhasePending, IP: p.ip, Ready: p.ready}
		switch {
		case p.terminating:
			v.Phase = PhaseTerminating
		case p.running:
			v.Phase = PhaseRunning
		}
		if i := nodeIndex(p.node); i >= 0 {
			if sb := c.rt[i].sandboxes[p.name]; sb != nil {
				v.Container = StatePrepared
				if sb.started {
					v.Container = StateRunning
				}
			}
		}
		if at, ok := c.nlc.deadline(&c.api, p); ok && c.synced[LaneNodeLife] {
			v.Evicting, v.EvictAt = true, at
		}
		out = append(out, v)
	}
	return out
}

// ReplicaSet returns the ReplicaSet's name and replicas, and false before
// the Deployment controller has made it.
func (c *Cluster) ReplicaSet() (string, int, bool) {
	if c.api.rs == nil {
		return "", 0, false
	}
	return ReplicaSetName(), c.api.rs.replicas, true
}

// WorkloadView is the Deployment or the ReplicaSet as the page shows it:
// spec.replicas and status.readyReplicas, which its controller writes (the
// ReplicaSet controller counts its Ready pods that are not terminating; the
// Deployment controller adds up its ReplicaSets').
type WorkloadView struct {
	Name          string
	Replicas      int
	ReadyReplicas int
}

// DeploymentView returns the Deployment as stored, and false before kubectl's
// apply has landed.
func (c *Cluster) DeploymentView() (WorkloadView, bool) {
	if c.api.deploy == nil {
		return WorkloadView{}, false
	}
	return WorkloadView{Name: DeploymentName, Replicas: c.api.deploy.replicas, ReadyReplicas: c.api.deploy.ready}, true
}

// ReplicaSetView returns the ReplicaSet, and false before the Deployment
// controller has made it.
func (c *Cluster) ReplicaSetView() (WorkloadView, bool) {
	if c.api.rs == nil {
		return WorkloadView{}, false
	}
	return WorkloadView{Name: ReplicaSetName(), Replicas: c.api.rs.replicas, ReadyReplicas: c.api.rs.ready}, true
}

// Messages returns the last DiagramSize messages delivered, oldest first.
func (c *Cluster) Messages() []Message { return c.diagram.list() }

// InFlight returns the messages sent and not yet arrived, in arrival order.
// During the guide it holds exactly the guide's next message.
func (c *Cluster) InFlight() []Message {
	out := make([]Message, len(c.inflight))
	for i, m := range c.inflight {
		out[i] = m.clone()
	}
	return out
}

// Events returns the log, oldest first.
func (c *Cluster) Events() []Event { return c.events.list() }

// Lanes returns the sequence diagram's lanes, left to right.
func Lanes() []string {
	return []string{LaneKubectl, LaneAPIServer, LaneDeployment, LaneReplicaSet, LaneScheduler, LaneKubelet,
		LaneContainerd, LaneNodeLife}
}

// Converged reports whether nothing is in flight and the Deployment's
// replicas are all Running, with no other pod that is not terminating.
func (c *Cluster) Converged() bool {
	if len(c.inflight) > 0 || c.api.deploy == nil {
		return false
	}
	running, alive := 0, 0
	for _, p := range c.api.pods {
		if p.terminating {
			continue
		}
		alive++
		if p.running {
			running++
		}
	}
	return running == c.api.deploy.replicas && alive == running
}

// Watches returns, for each component (by lane), the resources its watch
// covers, for the page's legend.
func Watches() map[string][]string {
	out := map[string][]string{}
	for _, comp := range newComponents() {
		out[comp.lane] = slices.Clone(comp.watches)
	}
	return out
}
