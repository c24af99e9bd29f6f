package controlplane

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// ふりかえり: 「scheduler が 1 分間止まっていたら、その間に apply された
// Deployment はどうなる?」 The ReplicaSet controller makes the pods anyway;
// they wait with an empty nodeName; the scheduler, started, places them.
func TestSchedulerStoppedPodsWaitThenArePlaced(t *testing.T) {
	c := live(t, 10)
	msgs := traced(c)
	must(t, c.SetComponent(ProcessScheduler, false))
	must(t, c.SetReplicas(6))
	settle(t, c)
	c.Advance(time.Minute)
	if got := phases(c); got[PhasePending] != 3 || got[PhaseRunning] != 3 {
		t.Fatalf("phases %v, want 3 new Pending", got)
	}
	for _, p := range c.Pods() {
		if p.Phase == PhasePending && p.Node != "" {
			t.Fatalf("pod %s got a node with the scheduler stopped", p.Name)
		}
	}
	for _, m := range *msgs {
		if m.From == LaneScheduler || m.To == LaneScheduler {
			t.Fatalf("a stopped scheduler got or sent %+v", m)
		}
	}
	if _, ok := c.NextDue(); ok {
		t.Fatal("pods waiting for a stopped scheduler set a timer")
	}
	must(t, c.SetComponent(ProcessScheduler, true))
	settle(t, c)
	if !c.Converged() || phases(c)[PhaseRunning] != 6 {
		t.Fatalf("not placed after the scheduler started: %+v", c.Pods())
	}
	var list, bind bool
	for _, m := range *msgs {
		list = list || (m.To == LaneScheduler && m.Verb == VerbList)
		bind = bind || (m.From == LaneScheduler && m.Resource == ResBinding && len(m.Objects) == 3)
	}
	if !list || !bind {
		t.Fatal("the scheduler did not list the pods it missed and bind them")
	}
	checked(t, c)
}

// A node stops: Unknown 50 s after its last renewal, tainted, its pods
// evicted 300 s later and replaced on the other nodes at that moment; the
// old ones stay Terminating, since nobody on the node confirms the deletion.
// The cluster is then quiet. When the node comes back, its kubelet stops the
// containers and confirms.
func TestNodeStoppedPodsAreEvictedAndReplaced(t *testing.T) {
	c := live(t, 11)
	must(t, c.SetReplicas(6))
	settle(t, c)
	old := podsOn(c, "node-2")
	if len(old) != 2 {
		t.Fatalf("pods on node-2: %+v", old)
	}
	must(t, c.SetNode("node-2", false))
	msgs := traced(c)

	_, _ = c.SkipToNext()
	if c.Now() != NodeMonitorGracePeriod {
		t.Fatalf("first skip to %v, want the grace period's end", c.Now())
	}
	settle(t, c)
	if n := nodeView(c, "node-2"); n.Ready != ConditionUnknown || !n.Tainted {
		t.Fatalf("node-2 %+v", n)
	}
	_, _ = c.SkipToNext()
	evictAt := c.Now()
	settle(t, c)
	for _, p := range old {
		if got := podsOn(c, "node-2"); !slices.ContainsFunc(got, func(v PodView) bool { return v.Name == p.Name && v.Phase == PhaseTerminating }) {
			t.Fatalf("%s is not Terminating on node-2: %+v", p.Name, got)
		}
	}
	running := 0
	for _, p := range c.Pods() {
		if p.Phase == PhaseRunning {
			running++
			if p.Node == "node-2" {
				t.Fatalf("a replacement was placed on the dead node: %+v", p)
			}
		}
	}
	if running != 6 {
		t.Fatalf("%d Running, want 6 (replaced on node-1 and node-3)", running)
	}
	// The replacements are created as soon as the eviction is heard, in
	// slow-start batches: 1, then 1 (all that is left).
	var creates []Message
	for _, m := range *msgs {
		if m.Reason == ReasonCreatePods && m.Kind == KindWrite {
			creates = append(creates, m)
		}
	}
	heard := evictAt + WriteLatency + WatchLatency
	if len(creates) != 2 || creates[0].Sent != heard || len(creates[0].Objects) != 1 ||
		creates[1].Sent != heard+WriteLatency || len(creates[1].Objects) != 1 {
		t.Fatalf("replacements %+v: want one at %v and the next when it is answered", creates, heard)
	}
	if _, ok := c.NextDue(); ok {
		t.Fatal("something is due after the replacement")
	}
	c.Advance(time.Hour)
	if p := podsOn(c, "node-2"); len(p) != 2 || p[0].Phase != PhaseTerminating {
		t.Fatalf("the dead node's pods after an hour: %+v", p)
	}
	checked(t, c)

	must(t, c.SetNode("node-2", true))
	settle(t, c)
	if n := nodeView(c, "node-2"); n.Ready != ConditionTrue || n.Tainted || n.Pods != 0 {
		t.Fatalf("node-2 back: %+v", n)
	}
	if len(c.Pods()) != 6 || !c.Converged() {
		t.Fatalf("pods %+v", c.Pods())
	}
	var stopped, confirmed bool
	for _, m := range *msgs {
		stopped = stopped || (m.Reason == ReasonStopPod && slices.Equal(m.Calls, []string{CallStopContainer, CallStopPodSandbox}))
		confirmed = confirmed || (m.Reason == ReasonConfirmDelete && len(m.Objects) == 2)
	}
	if !stopped || !confirmed {
		t.Fatal("the returning kubelet did not stop the containers and confirm the deletions")
	}
	checked(t, c)
}

// A node back before the toleration ends is untainted and keeps its pods.
func TestNodeBackBeforeTheEvictionKeepsItsPods(t *testing.T) {
	c := live(t, 12)
	must(t, c.SetNode("node-1", false))
	_, _ = c.SkipToNext()
	settle(t, c)
	c.Advance(2 * time.Minute)
	must(t, c.SetNode("node-1", true))
	settle(t, c)
	if n := nodeView(c, "node-1"); n.Ready != ConditionTrue || n.Tainted {
		t.Fatalf("node-1 %+v", n)
	}
	if _, ok := c.NextDue(); ok || !c.Converged() || len(eventsOf(c, EventPodTerminating)) != 0 {
		t.Fatal("the eviction was not cancelled")
	}
	if e := eventsOf(c, EventUntaint); len(e) != 1 {
		t.Fatalf("untaint events %+v", e)
	}
}

// With the controller-manager stopped, its controllers stop together: a
// killed pod is not replaced and a stopped node stays Ready. Started, both
// resolve: the pod is replaced at once, the node goes Unknown a full grace
// period after the controllers list it.
func TestControllerManagerStoppedNothingIsRepairedUntilItStarts(t *testing.T) {
	c := live(t, 13)
	must(t, c.SetComponent(ProcessControllerManager, false))
	victim := podsOn(c, "node-1")[0].Name
	must(t, c.KillPod(victim))
	must(t, c.SetNode("node-3", false))
	settle(t, c)
	c.Advance(10 * time.Minute)
	if len(c.Pods()) != 2 {
		t.Fatalf("pods %+v: the killed pod should be gone (its kubelet confirmed) and not replaced", c.Pods())
	}
	if n := nodeView(c, "node-3"); n.Ready != ConditionTrue {
		t.Fatalf("node-3 %+v: nobody marks it Unknown", n)
	}
	if _, ok := c.NextDue(); ok {
		t.Fatal("a timer with the controller-manager stopped")
	}
	must(t, c.SetComponent(ProcessControllerManager, true))
	start := c.Now()
	settle(t, c)
	if phases(c)[PhaseRunning] != 3 {
		t.Fatalf("the killed pod was not replaced: %+v", c.Pods())
	}
	_, _ = c.SkipToNext()
	if c.Now() != start+WatchLatency+NodeMonitorGracePeriod {
		t.Fatalf("Unknown decided at %v, want %v", c.Now(), start+WatchLatency+NodeMonitorGracePeriod)
	}
	settle(t, c)
	if n := nodeView(c, "node-3"); n.Ready != ConditionUnknown || !n.Tainted {
		t.Fatalf("node-3 %+v", n)
	}
	checked(t, c)
}

// ふりかえり: 「ReplicaSet が管理する Pod を手で消したとき、作り直すのは誰?」
func TestKilledPodIsReplacedByTheReplicaSetController(t *testing.T) {
	c := live(t, 14)
	msgs := traced(c)
	victim := c.Pods()[0]
	must(t, c.KillPod(victim.Name))
	if c.KillPod(victim.Name) == nil {
		t.Fatal("a second kill of a pod on its way to deletion was accepted")
	}
	settle(t, c)
	if !c.Converged() || len(c.Pods()) != 3 || slices.ContainsFunc(c.Pods(), func(p PodView) bool { return p.Name == victim.Name }) {
		t.Fatalf("pods %+v", c.Pods())
	}
	var created, placed string
	for _, m := range *msgs {
		if m.Reason == ReasonCreatePods && m.Kind == KindWrite {
			created = m.From
		}
		if m.Reason == ReasonBind && m.Kind == KindWrite {
			placed = m.From
		}
	}
	if created != LaneReplicaSet || placed != LaneScheduler {
		t.Fatalf("created by %q, placed by %q", created, placed)
	}
	if e := eventsOf(c, EventPodDeleted); len(e) != 1 || e[0].Status != ReasonConfirmDelete {
		t.Fatalf("deletion events %+v", e)
	}
}

// Scaling down deletes pods the way the ReplicaSet controller ranks them:
// unscheduled first, then those sharing a node with more siblings.
func TestScaleDownDeletesUnscheduledPodsFirst(t *testing.T) {
	c := live(t, 15)
	must(t, c.SetComponent(ProcessScheduler, false))
	must(t, c.SetReplicas(5))
	settle(t, c)
	must(t, c.SetReplicas(3))
	settle(t, c)
	if got := phases(c); got[PhaseRunning] != 3 || len(c.Pods()) != 3 {
		t.Fatalf("pods %+v: the two unscheduled ones should be deleted at once", c.Pods())
	}
	must(t, c.SetComponent(ProcessScheduler, true))
	must(t, c.SetReplicas(7))
	settle(t, c)
	must(t, c.SetReplicas(4))
	settle(t, c)
	for _, n := range c.Nodes() {
		if n.Pods > 2 {
			t.Fatalf("node %+v kept 3 pods while another kept 1", n)
		}
	}
	if !c.Converged() || phases(c)[PhaseRunning] != 4 {
		t.Fatalf("pods %+v", c.Pods())
	}
	if c.SetReplicas(MaxReplicas+1) == nil || c.SetReplicas(-1) == nil {
		t.Fatal("out-of-range replicas accepted")
	}
}

// Replicas beyond the room stay Pending; a node coming back lets the
// scheduler place them, after the backoff of their failed attempts.
func TestBackoffRetriesAreVisibleAsEvents(t *testing.T) {
	c := live(t, 8)
	must(t, c.SetReplicas(10))
	settle(t, c)
	must(t, c.SetNode("node-3", false))
	_, _ = c.SkipToNext()
	settle(t, c)
	_, _ = c.SkipToNext()
	settle(t, c)
	c.Advance(time.Minute)
	must(t, c.SetNode("node-3", true))
	settle(t, c)
	c.Advance(time.Minute)
	if !c.Converged() {
		t.Fatalf("pods %+v", c.Pods())
	}
	byPod := map[string][]Event{}
	for _, e := range c.Events() {
		if e.Kind == EventFailedScheduling || e.Kind == EventScheduled {
			byPod[e.Name] = append(byPod[e.Name], e)
		}
	}
	retried := 0
	for pod, es := range byPod {
		if len(es) < 2 {
			continue
		}
		retried++
		for i, e := range es[:len(es)-1] {
			if e.Kind != EventFailedScheduling || e.N != i+1 || e.Wait != Backoff(i+1) {
				t.Fatalf("%s: attempt %d %+v", pod, i+1, e)
			}
			if next := es[i+1]; next.At < e.At+e.Wait {
				t.Fatalf("%s retried %v after a failure whose backoff is %v", pod, next.At-e.At, e.Wait)
			}
		}
		if last := es[len(es)-1]; last.Kind != EventScheduled || last.Node != "node-3" {
			t.Fatalf("%s: %+v", pod, last)
		}
	}
	if retried != 2 {
		t.Fatalf("%d pods retried, want the 2 that did not fit: %+v", retried, byPod)
	}
	checked(t, c)
}

func TestPresetSchedulerOutageAnswersTheQuiz(t *testing.T) {
	c := New(16) // from the guide's start: the preset finishes it
	must(t, c.PresetSchedulerOutage())
	if comps := c.Components(); comps[0].Running || comps[0].RestartIn != SchedulerOutage {
		t.Fatalf("components %+v", comps)
	}
	if c.Replicas() != 5 {
		t.Fatalf("replicas %d, want 3+2", c.Replicas())
	}
	settle(t, c)
	if got := phases(c); got[PhasePending] != 2 {
		t.Fatalf("phases %v", got)
	}
	d, ok := c.NextEvent()
	if !ok || d.Kind != DueRestart {
		t.Fatalf("NextEvent %+v", d)
	}
	_, _ = c.SkipToNext()
	settle(t, c)
	if !c.Components()[0].Running || !c.Converged() {
		t.Fatalf("after the minute: %+v %+v", c.Components(), c.Pods())
	}
	// At the top of the range, the preset kills a pod instead.
	must(t, c.SetReplicas(MaxReplicas))
	settle(t, c)
	must(t, c.PresetSchedulerOutage())
	if c.Replicas() != MaxReplicas || len(eventsOf(c, EventKill)) != 1 {
		t.Fatal("the preset at MaxReplicas did not kill a pod")
	}
	// A manual start cancels the restart.
	must(t, c.SetComponent(ProcessScheduler, true))
	if c.Components()[0].RestartIn != 0 {
		t.Fatal("restart not cancelled")
	}
	checked(t, c)
}

func TestPresetNodeOutageStopsTheBusiestNode(t *testing.T) {
	c := New(17)
	c.FinishGuide()
	must(t, c.SetReplicas(4))
	settle(t, c)
	must(t, c.SetComponent(ProcessControllerManager, false))
	busiest := ""
	for _, n := range c.Nodes() {
		if n.Pods == 2 {
			busiest = n.Name
		}
	}
	got, err := c.PresetNodeOutage()
	must(t, err)
	if got != busiest || nodeView(c, got).Kubelet || !c.Components()[1].Running {
		t.Fatalf("stopped %s, want %s with the controller-manager running", got, busiest)
	}
	settle(t, c)
	_, _ = c.SkipToNext()
	settle(t, c)
	if nodeView(c, got).Ready != ConditionUnknown {
		t.Fatal("the preset's node did not go Unknown")
	}
	for _, n := range NodeNames() {
		if n != got {
			must(t, c.SetNode(n, false))
		}
	}
	if _, err := c.PresetNodeOutage(); err == nil {
		t.Fatal("a node-outage preset with every node stopped")
	}
}

func TestCommandsRefuseBadInputAndChangeNothing(t *testing.T) {
	c := live(t, 18)
	before, events := c.Snapshot(), len(c.Events())
	errs := map[string]error{
		"replicas 11":       c.SetReplicas(11),
		"replicas -1":       c.SetReplicas(-1),
		"unknown pod":       c.KillPod("web-nope"),
		"unknown component": c.SetComponent("etcd", false),
		"unknown node":      c.SetNode("node-4", false),
		"unknown runtime":   c.SetRuntime("cri-o"),
	}
	for name, err := range errs {
		if err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if after := c.Snapshot(); !reflect.DeepEqual(after, before) || len(c.inflight) != 0 || len(c.Events()) != events {
		t.Fatal("a refused command changed the cluster")
	}
	// Repeating a state is not an error and sends nothing.
	must(t, c.SetReplicas(3))
	must(t, c.SetComponent(ProcessScheduler, true))
	must(t, c.SetNode("node-1", true))
	if len(c.inflight) != 0 {
		t.Fatalf("a no-op sent %+v", c.InFlight())
	}
	// A terminating pod cannot be killed again.
	must(t, c.SetNode("node-1", false))
	p := podsOn(c, "node-1")[0].Name
	must(t, c.KillPod(p))
	settle(t, c)
	if c.KillPod(p) == nil {
		t.Fatal("a terminating pod was killed again")
	}
}

// Sliding the replicas while the last apply is still on its way changes
// that apply: one kubectl request in flight.
func TestRepeatedAppliesShareOneRequest(t *testing.T) {
	c := live(t, 19)
	for _, n := range []int{4, 5, 6, 2} {
		must(t, c.SetReplicas(n))
	}
	if len(c.inflight) != 1 || c.Replicas() != 2 {
		t.Fatalf("in flight %+v, replicas %d", c.InFlight(), c.Replicas())
	}
	settle(t, c)
	if !c.Converged() || len(c.Pods()) != 2 {
		t.Fatalf("pods %+v", c.Pods())
	}
}

// Step processes one thing at a time; SkipToNext everything at the next
// moment.
func TestStepAndSkip(t *testing.T) {
	c := live(t, 20)
	must(t, c.SetReplicas(4))
	d, ok := c.Step()
	if !ok || d != WriteLatency || c.api.deploy.replicas != 4 || len(c.Messages()) != GuideSteps+1 {
		t.Fatalf("Step moved %v, replicas %d", d, c.api.deploy.replicas)
	}
	// Two notifications arrive at the same moment after a kill: two Steps,
	// one Skip.
	c2 := live(t, 20)
	must(t, c2.KillPod(c2.Pods()[0].Name))
	_, _ = c2.SkipToNext()
	if len(c2.inflight) != 2 || c2.inflight[0].Arrive != c2.inflight[1].Arrive {
		t.Fatalf("in flight %+v", c2.InFlight())
	}
	at := c2.Now()
	_, _ = c2.SkipToNext()
	if n := len(c2.Messages()); n != DiagramSize || c2.Messages()[n-1].Sent != at || c2.Messages()[n-2].Sent != at {
		t.Fatalf("skip did not deliver both: %+v", c2.Messages())
	}
}

// A kubelet stopped while a notification is on its way never gets it (its
// watch is closed); started, it lists its pods and runs them.
func TestStoppedKubeletListsWhatItMissed(t *testing.T) {
	c := live(t, 21)
	must(t, c.SetReplicas(6))
	toNode2 := func(m *Message) bool {
		return m.To == LaneKubelet && slices.ContainsFunc(m.Objects, func(o Object) bool { return o.Node == "node-2" })
	}
	for range 40 {
		if slices.ContainsFunc(c.inflight, toNode2) {
			break
		}
		_, _ = c.Step()
	}
	i := slices.IndexFunc(c.inflight, toNode2)
	if i < 0 || len(c.inflight[i].Objects) != 2 {
		t.Fatalf("in flight %+v: want one arrow to the kubelets of node-2 and node-3 (the second slow-start batch)", c.InFlight())
	}
	m := c.inflight[i]
	must(t, c.SetNode("node-2", false))
	if slices.ContainsFunc(c.inflight, toNode2) || len(m.Objects) != 1 {
		t.Fatal("a stopped kubelet still has a notification on its way, or the others lost theirs")
	}
	settle(t, c)
	if p := podsOn(c, "node-2"); len(p) != 2 || !slices.ContainsFunc(p, func(v PodView) bool { return v.Phase == PhasePending }) {
		t.Fatalf("node-2 %+v: its new pod should wait", p)
	}
	must(t, c.SetNode("node-2", true))
	settle(t, c)
	if !c.Converged() {
		t.Fatalf("pods %+v", c.Pods())
	}
}

// A kubelet that comes back while the node lifecycle controller's Unknown is
// on its way hears it and reports Ready again.
func TestKubeletBackAsItsNodeIsMarkedUnknown(t *testing.T) {
	c := live(t, 22)
	must(t, c.SetNode("node-1", false))
	_, _ = c.SkipToNext() // the Unknown is sent
	must(t, c.SetNode("node-1", true))
	msgs := traced(c)
	settle(t, c)
	heard := slices.ContainsFunc(*msgs, func(m Message) bool { return m.To == LaneKubelet && m.Reason == ReasonNodeUnknown })
	if n := nodeView(c, "node-1"); !heard || n.Ready != ConditionTrue || n.Tainted {
		t.Fatalf("node-1 %+v, heard %v", n, heard)
	}
	if _, ok := c.NextDue(); ok || !c.Converged() {
		t.Fatal("not quiet")
	}
}

func TestPresetSchedulerOutageStartsTheControllerManager(t *testing.T) {
	c := live(t, 23)
	must(t, c.SetComponent(ProcessControllerManager, false))
	must(t, c.PresetSchedulerOutage())
	settle(t, c)
	if !c.Components()[1].Running || phases(c)[PhasePending] != 2 {
		t.Fatalf("components %+v, pods %+v", c.Components(), c.Pods())
	}
}
