package controlplane

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// live returns a demo whose guide is over and whose readyReplicas roll-up
// has landed: three pods Running and Ready, nothing due.
func live(t *testing.T) *Demo {
	t.Helper()
	d := NewDemo()
	must(t, d.FinishGuide())
	settle(t, d)
	if !d.Cluster().Converged() {
		t.Fatalf("the guide did not converge: %+v", d.Cluster().Pods())
	}
	return d
}

// settle lets time run (at 1×) until nothing is in flight, at most a minute.
func settle(t *testing.T, d *Demo) {
	t.Helper()
	for range 600 {
		if len(d.Cluster().InFlight()) == 0 {
			return
		}
		d.Advance(100 * time.Millisecond)
	}
	t.Fatalf("messages still in flight after a minute: %+v", d.Cluster().InFlight())
}

func phases(d *Demo) map[cp.Phase]int {
	out := map[cp.Phase]int{}
	for _, p := range d.Cluster().Pods() {
		out[p.Phase]++
	}
	return out
}

func node(d *Demo, name string) cp.NodeView {
	for _, n := range d.Cluster().Nodes() {
		if n.Name == name {
			return n
		}
	}
	return cp.NodeView{}
}

// The clock is the engine's time after base: every change keeps them so.
func checkClock(t *testing.T, d *Demo) {
	t.Helper()
	if d.clk.Now() != d.base+d.Cluster().Elapsed() {
		t.Fatalf("clock %v, engine %v after %v", d.clk.Now(), d.Cluster().Elapsed(), d.base)
	}
}

// During the guide time stands still: nothing is due, Advance moves
// nothing, and the page's clock is drawn paused.
func TestGuideTimeStandsStill(t *testing.T) {
	d := NewDemo()
	for step := range cp.GuideSteps {
		if _, ok := d.NextDue(); ok {
			t.Fatalf("step %d: something due during the guide", step)
		}
		before := d.Now()
		d.Advance(time.Hour)
		if d.Now() != before || d.Cluster().Guide().Step != step {
			t.Fatalf("step %d: an hour moved the guide to %v, step %d", step, d.Now(), d.Cluster().Guide().Step)
		}
		page := demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: ui.Ja})
		if !strings.Contains(page["cp-clock"], `data-paused="true"`) || strings.Contains(page["cp-controls"], `data-testid="pause" data-key=" " aria-pressed="true"`) {
			t.Fatalf("step %d: the page's clock runs during the guide, or its pause button is pressed:\n%s\n%s", step, page["cp-clock"], page["cp-controls"])
		}
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
		checkClock(t, d)
	}
}

// Next sends exactly one message, Back undoes one (the engine's time goes
// back, the demo's stands still, and Next moves it on by the message's
// latency again), and both refuse at the ends; after the eleventh message
// the cluster is live and Back is refused.
func TestGuideNextAndBack(t *testing.T) {
	d := NewDemo()
	if err := d.Back(); err == nil {
		t.Fatal("Back at the guide's start was accepted")
	}
	var times []time.Duration
	for n := 1; n <= cp.GuideSteps; n++ {
		m, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		info, _ := cp.GuideStepInfo(n)
		if m.From != info.From || m.To != info.To || m.Kind != info.Kind || d.Cluster().Guide().Step != n {
			t.Fatalf("message %d is %s→%s %s, want %s→%s %s", n, m.From, m.To, m.Kind, info.From, info.To, info.Kind)
		}
		if got := len(d.Cluster().Messages()); got != n {
			t.Fatalf("after %d messages the diagram holds %d", n, got)
		}
		times = append(times, d.Now())
		checkClock(t, d)
	}
	if _, err := d.Next(); err == nil {
		t.Fatal("a twelfth message was sent")
	}
	if err := d.Back(); err == nil {
		t.Fatal("Back after the eleventh message was accepted")
	}
	if !d.Live() {
		t.Fatal("the cluster is not live after the guide")
	}

	d = NewDemo()
	for range 7 {
		_, _ = d.Next()
	}
	for n := 6; n >= 0; n-- {
		must(t, d.Back())
		checkClock(t, d)
		engine := time.Duration(0)
		if n > 0 {
			engine = times[n-1]
		}
		if d.Cluster().Guide().Step != n || d.Now() != times[6] || d.Cluster().Now() != engine || len(d.Cluster().Messages()) != n {
			t.Fatalf("Back to %d: step %d at %v (engine %v) with %d messages, want %v (engine %v)", n, d.Cluster().Guide().Step,
				d.Now(), d.Cluster().Now(), len(d.Cluster().Messages()), times[6], engine)
		}
	}
	_, _ = d.Next()
	checkClock(t, d)
	if d.Now() != times[6]+times[0] {
		t.Fatalf("Next after Back to the start: %v, want %v", d.Now(), times[6]+times[0])
	}
}

// The chapter's first step reads "1/11 POST Deployment", captioned
// "Deployment: 無し → 作成要求", and every step's arrow is drawn as the chapter's
// legend says: solid for writes and CRI calls, dotted for watch events.
func TestGuideCaptionsAndArrows(t *testing.T) {
	d := NewDemo()
	g, seq := d.guide(ui.Ja), d.sequence(ui.Ja)
	if g.Step != 0 || g.Label != "" || seq.Ghost == nil || seq.Ghost.Label != "次: POST Deployment" {
		t.Fatalf("the guide's start: %+v, ghost %+v", g, seq.Ghost)
	}
	for n := 1; n <= cp.GuideSteps; n++ {
		_, _ = d.Next()
		g, seq := d.guide(ui.Ja), d.sequence(ui.Ja)
		info, _ := cp.GuideStepInfo(n)
		if g.Step != n || g.Object != info.Caption.Object || g.After != info.Caption.After {
			t.Fatalf("step %d: %+v", n, g)
		}
		if len(seq.Rows) != n || !seq.Rows[n-1].New || seq.Rows[n-1].Kind != info.Kind {
			t.Fatalf("step %d: rows %+v", n, seq.Rows)
		}
		if (n < cp.GuideSteps) != (seq.Ghost != nil) {
			t.Fatalf("step %d: ghost %+v", n, seq.Ghost)
		}
		if n == 1 && (g.Label != "POST Deployment" || g.Head != "Deployment: 無し → 作成要求") {
			t.Fatalf("step 1 reads %q, %q", g.Label, g.Head)
		}
	}
	want := []string{"POST Deployment", "ADDED Deployment", "POST ReplicaSet", "ADDED ReplicaSet", "POST Pod ×3",
		`ADDED Pod ×3 nodeName=""`, "POST Binding ×3", "ADDED Pod ×3", "RunPodSandbox + PullImage ×3",
		"CreateContainer + StartContainer ×3", "PATCH Pod status ×3"}
	var got []string
	for _, a := range d.sequence(ui.En).Rows {
		got = append(got, a.Label)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("labels %q\nwant %q", got, want)
	}
}

// The dockershim stack draws its two hops on the kubelet's CRI arrows; the
// image pulled is the same.
func TestRuntimeHopsOnTheArrow(t *testing.T) {
	d := NewDemo()
	for range 9 {
		_, _ = d.Next()
	}
	must(t, d.SetRuntime(cp.RuntimeDockershim))
	last := d.sequence(ui.En).Rows[8]
	if last.Kind != cp.KindCRI || len(last.Via) != 2 || last.Via[0].Label != "dockershim" || last.Via[1].Label != "dockerd" {
		t.Fatalf("the CRI arrow through dockershim: %+v", last)
	}
	if last.Via[0].X < last.X1 || last.Via[1].X+last.Via[1].W > last.X2+13 {
		t.Fatalf("the hops leave the arrow: %+v", last)
	}
	if m := d.Cluster().Messages()[8]; m.Image != cp.Image {
		t.Fatalf("pulled %q", m.Image)
	}
	must(t, d.SetRuntime(cp.RuntimeContainerd))
	if rows := d.sequence(ui.En).Rows; len(rows[8].Via) != 0 {
		t.Fatalf("containerd's arrow has hops: %+v", rows[8])
	}
}

// Live, time runs at the visitor's pace: scaled by the speed, none while
// paused; NextDue is the engine's next moment at that pace.
func TestLivePace(t *testing.T) {
	for _, tc := range []struct {
		speed       sim.Speed
		real, virt  time.Duration
		due, dueVir time.Duration
	}{
		{sim.Normal, time.Second, time.Second, cp.WriteLatency, cp.WriteLatency},
		{sim.Double, time.Second, 2 * time.Second, cp.WriteLatency / 2, cp.WriteLatency},
		{sim.Half, time.Second, time.Second / 2, 2 * cp.WriteLatency, cp.WriteLatency},
	} {
		d := live(t)
		d.SetSpeed(tc.speed)
		start := d.Now()
		must(t, d.SetReplicas(4)) // kubectl's PATCH is on its way
		due, ok := d.NextDue()
		if !ok || due != tc.due {
			t.Fatalf("speed %v: NextDue %v %v, want %v", tc.speed, due, ok, tc.due)
		}
		d.Advance(tc.real)
		if d.Now() != start+tc.virt {
			t.Fatalf("speed %v: %v of real time moved the clock %v, want %v", tc.speed, tc.real, d.Now()-start, tc.virt)
		}
		checkClock(t, d)
		d.SetPaused(true)
		if _, ok := d.NextDue(); ok {
			t.Fatalf("speed %v: due while paused", tc.speed)
		}
		before := d.Snapshot()
		d.Advance(time.Minute)
		if d.Now() != start+tc.virt || !sameJSON(before, d.Snapshot()) {
			t.Fatalf("speed %v: time ran while paused", tc.speed)
		}
	}
}

// "Open tabs cost nothing": a converged cluster sets no timer, and neither
// does a cluster whose only difference is pods waiting for a stopped
// scheduler, or a dead node whose pods are already replaced.
func TestQuietClusterSetsNoTimer(t *testing.T) {
	d := live(t)
	if _, ok := d.NextDue(); ok {
		t.Fatal("a converged cluster is due")
	}
	d.Advance(24 * time.Hour)
	if _, ok := d.NextDue(); ok || !d.Cluster().Converged() {
		t.Fatal("a day of heartbeats made something due")
	}

	must(t, d.SetComponent(cp.ProcessScheduler, false))
	must(t, d.SetReplicas(5))
	settle(t, d)
	if _, ok := d.NextDue(); ok {
		t.Fatal("pods waiting for a stopped scheduler set a timer")
	}

	d = live(t)
	must(t, d.SetNode("node-2", false))
	for range 20 {
		if err := d.Skip(); err != nil {
			break
		}
	}
	settle(t, d)
	if _, ok := d.NextDue(); ok {
		t.Fatalf("a dead node whose pods are replaced is due: %+v", d.Cluster().InFlight())
	}
}

// The node outage, as the chapter tells it: a stopped node goes Unknown
// NodeMonitorGracePeriod after its last heartbeat and is tainted; its pods
// are evicted EvictionTimeout later, replaced on the other nodes and left
// Terminating. Each countdown the page shows ends when the engine acts, and
// each skip lands on the moment the skip line announced.
func TestNodeOutageCountdownsEndWhenTheEngineActs(t *testing.T) {
	d := live(t)
	must(t, d.SetReplicas(5))
	settle(t, d)
	d.Advance(33 * time.Second) // a heartbeat later than the last one
	name := "node-1"
	must(t, d.SetNode(name, false))
	lastRenew := node(d, name).LastRenew

	n, next := d.node(ui.Ja, 0), d.next(ui.Ja)
	if n.ETA == nil || n.ETA.At != (lastRenew+cp.NodeMonitorGracePeriod).Milliseconds() {
		t.Fatalf("the Unknown countdown ends at %+v, want %v", n.ETA, lastRenew+cp.NodeMonitorGracePeriod)
	}
	if next.Kind != cp.DueNodeUnknown || next.ETA.At != n.ETA.At {
		t.Fatalf("the skip line says %+v", next)
	}
	must(t, d.Skip())
	if d.Now() != lastRenew+cp.NodeMonitorGracePeriod {
		t.Fatalf("the skip landed at %v", d.Now())
	}
	settle(t, d)
	if nv := node(d, name); nv.Ready != cp.ConditionUnknown || !nv.Tainted {
		t.Fatalf("%s after its grace period: %+v", name, nv)
	}
	old := map[string]bool{}
	for _, pod := range d.Cluster().Pods() {
		if pod.Node == name {
			old[pod.Name] = true
		}
	}
	evictAt, next := d.node(ui.Ja, 0).ETA, d.next(ui.Ja)
	if evictAt == nil || next.Kind != cp.DueEviction || next.ETA.At != evictAt.At {
		t.Fatalf("the eviction countdown %+v, skip line %+v", evictAt, next)
	}
	must(t, d.Skip())
	if d.Now().Milliseconds() != evictAt.At {
		t.Fatalf("evicted at %v, the countdown said %d ms", d.Now(), evictAt.At)
	}
	settle(t, d)
	running := 0
	for _, pod := range d.Cluster().Pods() {
		switch {
		case old[pod.Name] && pod.Phase != cp.PhaseTerminating:
			t.Fatalf("%s on the dead node is %s", pod.Name, pod.Phase)
		case pod.Phase == cp.PhaseRunning && pod.Node == name:
			t.Fatalf("a replacement runs on the dead node: %+v", pod)
		case pod.Phase == cp.PhaseRunning:
			running++
		}
	}
	if running != 5 {
		t.Fatalf("%d Running after the eviction, want 5: %+v", running, d.Cluster().Pods())
	}
	if got := d.node(ui.Ja, 0); got.ETA != nil || got.Note == "" {
		t.Fatalf("the dead node after the eviction: %+v", got)
	}
}

// ふりかえり: the scheduler stopped for a minute. The pods are made anyway
// and wait with an empty nodeName (the tray says why); when the minute is
// over the scheduler starts and places them.
func TestSchedulerOutagePreset(t *testing.T) {
	d := NewDemo()
	must(t, d.Preset(QuizScheduler))
	if !d.Live() || d.Quiz() != QuizScheduler {
		t.Fatal("the preset did not finish the guide")
	}
	settle(t, d)
	if tray, note := d.tray(ui.Ja); len(tray) != 2 || note != T(ui.Ja, "cp.tray.stopped") {
		t.Fatalf("tray %+v note %q", tray, note)
	}
	restart := d.Now() + d.Cluster().Components()[0].RestartIn
	if c := d.components(ui.Ja)[0]; c.Running || c.ETA == nil || c.ETA.At != restart.Milliseconds() {
		t.Fatalf("the scheduler's row %+v", c)
	}
	if next := d.next(ui.Ja); next.Kind != cp.DueRestart {
		t.Fatalf("the skip line says %+v", next)
	}
	must(t, d.Skip())
	if d.Now() != restart {
		t.Fatalf("the skip landed at %v, the restart was due at %v", d.Now(), restart)
	}
	settle(t, d)
	if ph := phases(d); ph[cp.PhaseRunning] != 5 || len(d.Cluster().Pods()) != 5 {
		t.Fatalf("after the minute: %+v", d.Cluster().Pods())
	}
	if tray, _ := d.tray(ui.Ja); !d.components(ui.Ja)[0].Running || len(tray) != 0 {
		t.Fatal("the scheduler did not come back")
	}
}

// With the controller-manager stopped its controllers stop together: a
// killed pod is not replaced and a stopped node stays Ready (the card says
// why). Started, both resolve.
func TestControllerManagerStopped(t *testing.T) {
	d := live(t)
	must(t, d.SetComponent(cp.ProcessControllerManager, false))
	var victim string
	for _, p := range d.Cluster().Pods() {
		if p.Node == "node-1" {
			victim = p.Name
		}
	}
	must(t, d.KillPod(victim))
	must(t, d.SetNode("node-3", false))
	settle(t, d)
	d.Advance(10 * time.Minute)
	if len(d.Cluster().Pods()) != 2 {
		t.Fatalf("the killed pod was replaced: %+v", d.Cluster().Pods())
	}
	if n := d.node(ui.Ja, 2); n.Ready != "True" || n.Note != T(ui.Ja, "cp.node.cm-stopped") || n.ETA != nil {
		t.Fatalf("node-3 with the controller-manager stopped: %+v", n)
	}
	must(t, d.SetComponent(cp.ProcessControllerManager, true))
	settle(t, d)
	if phases(d)[cp.PhaseRunning] != 3 {
		t.Fatalf("the killed pod was not replaced: %+v", d.Cluster().Pods())
	}
	must(t, d.Skip())
	settle(t, d)
	if n := node(d, "node-3"); n.Ready != cp.ConditionUnknown {
		t.Fatalf("node-3 %+v", n)
	}
}

// Step processes one thing, whatever the pace; with nothing due it is
// refused and changes nothing.
func TestStep(t *testing.T) {
	d := live(t)
	if err := d.Step(); err == nil {
		t.Fatal("a step on a quiet cluster was accepted")
	}
	d.SetPaused(true)
	must(t, d.SetReplicas(4))
	before := d.Cluster().Messages()
	next := d.Cluster().InFlight()[0]
	must(t, d.Step())
	after := d.Cluster().Messages()
	if after[len(after)-1].Seq != next.Seq || after[len(after)-2].Seq != before[len(before)-1].Seq || d.Now() != d.Cluster().Now() {
		t.Fatal("a step did not deliver exactly one message")
	}
	if !d.Paused() {
		t.Fatal("a step resumed time")
	}
}

// Reset returns to the guide's start, keeping the pace and the runtime; the
// count of messages sent for metrics never goes down. The demo's clock stays
// where it was: the timeline's time never goes back.
func TestReset(t *testing.T) {
	d := live(t)
	d.SetSpeed(sim.Double)
	d.SetPaused(true)
	must(t, d.SetRuntime(cp.RuntimeDockershim))
	must(t, d.Preset(QuizNode))
	n := d.Reconciles()
	before := d.Now()
	d.Reset()
	checkClock(t, d)
	if d.Now() != before || d.Cluster().Now() != 0 || d.Live() || d.Cluster().Guide().Step != 0 || d.Quiz() != QuizNone {
		t.Fatalf("after reset: %v (engine %v) step %d quiz %q, want %v", d.Now(), d.Cluster().Now(), d.Cluster().Guide().Step, d.Quiz(), before)
	}
	if d.Speed() != sim.Double || !d.Paused() || d.Cluster().Runtime() != cp.RuntimeDockershim {
		t.Fatal("reset lost the pace or the runtime")
	}
	if d.Reconciles() < n {
		t.Fatalf("reconciles went down: %d → %d", n, d.Reconciles())
	}
	_, _ = d.Next()
	if d.Reconciles() <= n {
		t.Fatalf("a message after reset was not counted: %d", d.Reconciles())
	}
}

// A demo's reconciles count the messages sent: the guide's eleven and the
// notification its last one sends (the ReplicaSet controller hears the pods
// turn Ready), then the rest as they are sent.
func TestReconcilesCountMessages(t *testing.T) {
	d := NewDemo()
	must(t, d.FinishGuide())
	if n := cp.GuideSteps + len(d.Cluster().InFlight()); d.Reconciles() != n || n != cp.GuideSteps+1 {
		t.Fatalf("after the guide: %d, want %d", d.Reconciles(), n)
	}
	settle(t, d)
	n := d.Reconciles()
	must(t, d.SetReplicas(4))
	settle(t, d)
	if d.Reconciles() <= n {
		t.Fatal("messages after the guide were not counted")
	}
}

func sameJSON(a, b Snapshot) bool { return demo.MustJSON(a) == demo.MustJSON(b) }

// The demo's time never goes back, whatever replaces its cluster (Reset,
// Back, a runtime switch during the guide, a preset): the timeline logs
// every action at it. Every time the page shows is the demo's: after a
// reset live, the diagram's and the log's times are later than the reset.
func TestClockNeverGoesBack(t *testing.T) {
	d := NewDemo()
	last := d.Now()
	check := func(what string) {
		t.Helper()
		checkClock(t, d)
		if d.Now() < last {
			t.Fatalf("%s: the clock went back from %v to %v", what, last, d.Now())
		}
		last = d.Now()
	}
	for range 4 {
		_, _ = d.Next()
		check("next")
	}
	must(t, d.Back())
	check("back")
	must(t, d.SetRuntime(cp.RuntimeDockershim))
	check("runtime")
	must(t, d.Preset(QuizNode))
	check("preset")
	must(t, d.Skip())
	check("skip")
	d.Advance(3*time.Second + 500*time.Microsecond)
	check("advance")
	resetAt := d.Now()
	d.Reset()
	check("reset")
	must(t, d.FinishGuide())
	check("finish")
	settle(t, d)
	r := d.facts()
	for _, m := range r.msgs {
		if m.Arrive < resetAt {
			t.Fatalf("a message drawn at %v, before the reset at %v", m.Arrive, resetAt)
		}
	}
	for _, e := range r.events {
		if e.At < resetAt {
			t.Fatalf("an event logged at %v, before the reset at %v", e.At, resetAt)
		}
	}
	seq := d.sequence(ui.En)
	if first := seq.Rows[0].Left; first != ui.ClockText(r.msgs[0].Arrive) || r.msgs[0].Arrive != d.Base()+d.Cluster().Messages()[0].Arrive {
		t.Fatalf("the diagram's first time %s, the engine's %v after %v", first, d.Cluster().Messages()[0].Arrive, d.Base())
	}
}
