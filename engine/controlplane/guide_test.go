package controlplane

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestGuideSendsTheChaptersElevenMessagesOneAtATime(t *testing.T) {
	c := New(7)
	if g := c.Guide(); g != (GuideState{Step: 0, Total: GuideSteps}) {
		t.Fatalf("start: %+v", g)
	}
	if len(c.Pods()) != 0 || c.api.deploy != nil {
		t.Fatal("the cluster does not start empty")
	}
	for n := 1; n <= GuideSteps; n++ {
		if len(c.inflight) != 1 {
			t.Fatalf("before message %d: %d messages in flight, want exactly the next one", n, len(c.inflight))
		}
		m, err := c.Next()
		must(t, err)
		want, _ := GuideStepInfo(n)
		got := GuideStep{N: m.Step, ChapterStep: want.ChapterStep, From: m.From, To: m.To, Kind: m.Kind, Verb: m.Verb,
			Resource: m.Resource, Sub: m.Sub, Reason: m.Reason, Calls: m.Calls, Caption: want.Caption}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("message %d:\n got %+v\nwant %+v", n, got, want)
		}
		if c.Guide().Step != n || len(c.Messages()) != n || c.Messages()[n-1].Seq != m.Seq {
			t.Fatalf("after message %d: guide %+v, %d messages on the diagram", n, c.Guide(), len(c.Messages()))
		}
		if n >= 5 && len(m.Objects) != 3 {
			t.Fatalf("message %d carries %d objects, want the 3 pods", n, len(m.Objects))
		}
	}
	if _, err := c.Next(); err == nil {
		t.Fatal("a twelfth Next was accepted")
	}
	nodes := map[string]bool{}
	for _, p := range c.Pods() {
		if p.Phase != PhaseRunning || p.Container != StateRunning {
			t.Fatalf("pod %+v is not Running", p)
		}
		nodes[p.Node] = true
	}
	if len(nodes) != 3 {
		t.Fatalf("least allocated should spread the 3 pods over 3 nodes: %+v", c.Pods())
	}
	// The chapter's `kubectl wait --for=jsonpath='{.status.readyReplicas}'=3`
	// waits on what follows the guide: the ReplicaSet controller hears the
	// three pods turn Ready and writes readyReplicas, then the Deployment
	// controller does.
	if in := c.InFlight(); len(in) != 1 || in[0].To != LaneReplicaSet || in[0].Reason != ReasonPodRunning || len(in[0].Objects) != 3 {
		t.Fatalf("after the guide, in flight: %+v", in)
	}
	rs, _ := c.ReplicaSetView()
	d, _ := c.DeploymentView()
	if rs.ReadyReplicas != 0 || d.ReadyReplicas != 0 {
		t.Fatalf("readyReplicas before the roll-up: %+v %+v", rs, d)
	}
	settle(t, c)
	rs, _ = c.ReplicaSetView()
	d, _ = c.DeploymentView()
	if _, ok := c.NextDue(); ok || !c.Converged() || rs.ReadyReplicas != 3 || d.ReadyReplicas != 3 {
		t.Fatalf("after the roll-up: %+v %+v, not converged and quiet", rs, d)
	}
}

// Each caption is the state of the object the message changed, before and
// after: the page translates the keys with the chapter's words.
func TestGuideCaptionsFollowTheChapter(t *testing.T) {
	tests := []struct {
		n             int
		object        string
		before, after string
		chapterStep   int
	}{
		{1, ResDeployment, StateNone, StateRequested, 1}, // Deployment: 無し → 作成要求
		{3, ResReplicaSet, StateNone, StateCreated, 2},
		{5, ResPod, StateNone, StateUnscheduled, 3},
		{7, ResPod, StateUnscheduled, StateBound, 4},
		{9, CaptionContainer, StateNone, StatePrepared, 5},
		{11, ResPod, StatePending, StateRunning, 5},
	}
	for _, tt := range tests {
		s, ok := GuideStepInfo(tt.n)
		if !ok || s.Caption != (Caption{tt.object, tt.before, tt.after}) || s.ChapterStep != tt.chapterStep {
			t.Errorf("step %d: %+v", tt.n, s)
		}
	}
	for _, n := range []int{0, -1, GuideSteps + 1} {
		if _, ok := GuideStepInfo(n); ok {
			t.Errorf("GuideStepInfo(%d) exists", n)
		}
	}
}

func TestGuideStateAfterEachMessage(t *testing.T) {
	c := New(1)
	check := func(n int, cond bool, what string) {
		t.Helper()
		if !cond {
			t.Fatalf("after message %d: %s", n, what)
		}
	}
	next := func() { t.Helper(); _, err := c.Next(); must(t, err) }
	if _, _, ok := c.ReplicaSet(); ok || c.Replicas() != 3 || c.Converged() {
		t.Fatal("before the apply: no ReplicaSet, the apply's 3 replicas on their way, not converged")
	}
	next()
	check(1, c.api.deploy != nil && c.api.deploy.replicas == 3 && len(c.Pods()) == 0, "Deployment stored, no pod")
	next()
	next()
	_, _, ok := c.ReplicaSet()
	check(3, ok && len(c.Pods()) == 0, "ReplicaSet made, still no pod: the Deployment controller makes no pods")
	next()
	next()
	check(5, len(c.Pods()) == 3 && phases(c)[PhasePending] == 3, "3 Pending pods")
	for _, p := range c.Pods() {
		check(5, p.Node == "", "nodeName empty")
	}
	next()
	next()
	for _, p := range c.Pods() {
		check(7, p.Node != "" && p.Phase == PhasePending && p.Container == "", "bound, nothing started")
	}
	next()
	next()
	for _, p := range c.Pods() {
		check(9, p.Container == StatePrepared && nodeView(c, p.Node).ImagePulled, "sandbox and image")
	}
	next()
	for _, p := range c.Pods() {
		check(10, p.Container == StateRunning && p.Phase == PhasePending, "container running, status not yet written")
	}
	next()
	check(11, phases(c)[PhaseRunning] == 3, "3 pods Running")
}

func TestGuideBackReplaysTheMessagesBefore(t *testing.T) {
	for n := 1; n <= GuideSteps; n++ {
		c, want := New(99), New(99)
		for range n {
			_, _ = c.Next()
		}
		for range n - 1 {
			_, _ = want.Next()
		}
		must(t, c.Back())
		if !reflect.DeepEqual(c.Snapshot(), want.Snapshot()) || !reflect.DeepEqual(c.Pods(), want.Pods()) ||
			!reflect.DeepEqual(c.Messages(), want.Messages()) || !reflect.DeepEqual(c.InFlight(), want.InFlight()) {
			t.Fatalf("Back from %d is not the guide at %d", n, n-1)
		}
	}
}

func TestGuideBackIsRefusedAtTheStartAndOnceLive(t *testing.T) {
	c := New(3)
	if c.Back() == nil {
		t.Fatal("Back at the start was accepted")
	}
	c.FinishGuide()
	if !c.Guide().CanBack {
		t.Fatal("right after the eleventh message, Back should still undo it")
	}
	c.Advance(time.Second)
	if g := c.Guide(); !g.Live || g.CanBack || c.Back() == nil {
		t.Fatalf("Back was possible on a live cluster: %+v", g)
	}
}

func TestGuideFreezesTimeAndRefusesLiveControls(t *testing.T) {
	c := New(5)
	_, _ = c.Next()
	before := c.Snapshot()
	now := c.Now()
	c.Advance(time.Hour)
	if _, ok := c.NextDue(); ok {
		t.Fatal("NextDue during the guide")
	}
	if _, ok := c.Step(); ok {
		t.Fatal("Step during the guide")
	}
	if _, ok := c.SkipToNext(); ok {
		t.Fatal("SkipToNext during the guide")
	}
	if _, ok := c.NextEvent(); ok {
		t.Fatal("NextEvent during the guide")
	}
	for name, err := range map[string]error{
		"SetReplicas":  c.SetReplicas(5),
		"KillPod":      c.KillPod("web-x"),
		"SetComponent": c.SetComponent(ProcessScheduler, false),
		"SetNode":      c.SetNode("node-1", false),
	} {
		if !errors.Is(err, ErrGuide) && name != "KillPod" {
			t.Errorf("%s during the guide: %v, want ErrGuide", name, err)
		}
		if err == nil {
			t.Errorf("%s during the guide was accepted", name)
		}
	}
	if c.Now() != now || !reflect.DeepEqual(c.Snapshot(), before) {
		t.Fatal("the guide moved without Next")
	}
}

func TestResetReturnsToTheGuideStart(t *testing.T) {
	c := live(t, 11)
	must(t, c.SetRuntime(RuntimeDockershim))
	must(t, c.SetReplicas(6))
	c.Advance(time.Minute)
	c.Reset()
	want := New(11)
	want.runtime = RuntimeDockershim
	if !reflect.DeepEqual(c.Snapshot(), want.Snapshot()) || len(c.Events()) != 0 || len(c.Messages()) != 0 {
		t.Fatalf("Reset: %+v", c.Snapshot())
	}
}

func TestNamesAreDeterministicPerSeedAndFromTheAlphabet(t *testing.T) {
	names := func(seed uint64) []string {
		c := New(seed)
		c.FinishGuide()
		var out []string
		for _, p := range c.Pods() {
			out = append(out, p.Name)
		}
		return out
	}
	a, b, other := names(2024), names(2024), names(2025)
	if New(2024).Seed() != 2024 {
		t.Fatal("Seed")
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the same seed gave %v and %v", a, b)
	}
	if reflect.DeepEqual(a, other) {
		t.Fatalf("two seeds gave the same names %v", a)
	}
	rs := ReplicaSetName()
	hash := strings.TrimPrefix(rs, "web-")
	if rs == hash || len(hash) == 0 || strings.Trim(hash, "456789bcdf") != "" {
		t.Fatalf("ReplicaSet %q: a pod-template-hash is SafeEncodeString of a decimal number", rs)
	}
	for _, n := range append(a, other...) {
		if !validPodName(n) || !strings.HasPrefix(n, rs+"-") {
			t.Fatalf("pod name %q", n)
		}
	}
}

func TestGenerateNameAvoidsTakenNames(t *testing.T) {
	r := rng{s: 1}
	first := generateName(&rng{s: 1}, "p-", func(string) bool { return false })
	got := generateName(&r, "p-", func(n string) bool { return n == first })
	if got == first || !strings.HasPrefix(got, "p-") {
		t.Fatalf("got %q, first draw %q", got, first)
	}
	// Every draw taken: the scan finds the first free name in order.
	got = generateName(&rng{s: 1}, "p-", func(n string) bool { return n != "p-bbbbc" })
	if got != "p-bbbbc" {
		t.Fatalf("scan got %q", got)
	}
}

// Figure 4: with dockershim the kubelet's calls pass dockershim and dockerd
// (one hop each, a little slower); the image pulled is the same OCI image.
func TestRuntimeStackChangesThePathNotTheImage(t *testing.T) {
	for _, tt := range []struct {
		rt   Runtime
		via  []string
		path []string
	}{
		{RuntimeContainerd, nil, []string{LaneKubelet, LaneContainerd}},
		{RuntimeDockershim, []string{"dockershim", "dockerd"}, []string{LaneKubelet, "dockershim", "dockerd", LaneContainerd}},
	} {
		t.Run(string(tt.rt), func(t *testing.T) {
			c := New(1)
			must(t, c.SetRuntime(tt.rt))
			c.FinishGuide()
			if !reflect.DeepEqual(tt.rt.Path(), tt.path) {
				t.Fatalf("Path = %v", tt.rt.Path())
			}
			for _, m := range c.Messages() {
				if m.Kind != KindCRI {
					if m.Via != nil {
						t.Fatalf("%s carries via %v", m.Reason, m.Via)
					}
					continue
				}
				if !slices.Equal(m.Via, tt.via) || m.From != LaneKubelet || m.To != LaneContainerd {
					t.Fatalf("CRI message %+v, want via %v", m, tt.via)
				}
				if m.Arrive-m.Sent != latency(KindCRI, m.Calls, nil)+time.Duration(len(tt.via))*HopLatency {
					t.Fatalf("CRI latency %v", m.Arrive-m.Sent)
				}
				if slices.Contains(m.Calls, CallPullImage) != (m.Image == Image) {
					t.Fatalf("image %q with calls %v", m.Image, m.Calls)
				}
			}
		})
	}
	c := New(1)
	if c.SetRuntime("docker") == nil || c.Runtime() != RuntimeContainerd {
		t.Fatal("an unknown runtime was accepted")
	}
}
