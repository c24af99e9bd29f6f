package controlplane

import (
	"errors"
	"testing"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// Every refused command returns a *demo.Rejection with a sentence in both
// languages, and changes nothing.
func TestRefusalsChangeNothing(t *testing.T) {
	guide := func(n int) func(t *testing.T) *Demo {
		return func(t *testing.T) *Demo {
			d := NewDemo()
			for range n {
				_, _ = d.Next()
			}
			return d
		}
	}
	quiet := func(t *testing.T) *Demo { return live(t) }
	allStopped := func(t *testing.T) *Demo {
		d := live(t)
		for _, n := range cp.NodeNames() {
			must(t, d.SetNode(n, false))
		}
		return d
	}
	deleting := func(t *testing.T) *Demo {
		d := live(t)
		must(t, d.KillPod(d.Cluster().Pods()[0].Name))
		return d
	}
	terminating := func(t *testing.T) *Demo {
		d := live(t)
		must(t, d.SetNode("node-1", false))
		for _, p := range d.Cluster().Pods() {
			if p.Node == "node-1" {
				must(t, d.KillPod(p.Name))
			}
		}
		settle(t, d)
		return d
	}
	atTen := func(t *testing.T) *Demo {
		d := live(t)
		must(t, d.SetReplicas(cp.MaxReplicas))
		return d
	}
	atZero := func(t *testing.T) *Demo {
		d := live(t)
		must(t, d.SetReplicas(0))
		return d
	}
	firstPod := func(d *Demo) string { return d.Cluster().Pods()[0].Name }
	for _, tc := range []struct {
		name  string
		state func(t *testing.T) *Demo
		cmd   func(d *Demo) demo.Command
		key   string
	}{
		{"next after the guide", quiet, fixed(demo.Command{Action: "guided-next"}), "err.guide-over"},
		{"finish after the guide", quiet, fixed(demo.Command{Action: "guided-finish"}), "err.guide-over"},
		{"back at the start", guide(0), fixed(demo.Command{Action: "guided-back"}), "err.no-back"},
		{"back after the eleventh", guide(11), fixed(demo.Command{Action: "guided-back"}), "err.no-back"},
		{"back once live", quiet, fixed(demo.Command{Action: "guided-back"}), "err.no-back"},
		{"replicas during the guide", guide(3), fixed(demo.Command{Action: "replicas-inc"}), "err.guide"},
		{"set-replicas during the guide", guide(0), fixed(demo.Command{Action: "set-replicas", N: 5}), "err.guide"},
		{"kill during the guide", guide(11 - 1), func(d *Demo) demo.Command { return demo.Command{Action: "kill", Name: firstPod(d)} }, "err.guide"},
		{"component during the guide", guide(5), fixed(demo.Command{Action: "component", Name: cp.ProcessScheduler}), "err.guide"},
		{"node during the guide", guide(5), fixed(demo.Command{Action: "node", Name: "node-1"}), "err.guide"},
		{"skip during the guide", guide(5), fixed(demo.Command{Action: "skip"}), "err.guide"},
		{"skip on a quiet cluster", quiet, fixed(demo.Command{Action: "skip"}), "err.nothing-due"},
		{"step on a quiet cluster", quiet, fixed(demo.Command{Action: "step"}), "err.nothing-due"},
		{"an unknown pod", quiet, fixed(demo.Command{Action: "kill", Name: "web-5846cdcf6d-zzzzz"}), "err.pod"},
		{"a pod being deleted", deleting, func(d *Demo) demo.Command { return demo.Command{Action: "kill", Name: firstPod(d)} }, "err.pod"},
		{"a terminating pod", terminating, func(d *Demo) demo.Command {
			for _, p := range d.Cluster().Pods() {
				if p.Phase == cp.PhaseTerminating {
					return demo.Command{Action: "kill", Name: p.Name}
				}
			}
			return demo.Command{}
		}, "err.pod"},
		{"the node preset with every node down", allStopped, fixed(demo.Command{Action: "preset", Name: QuizNode}), "err.preset-node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.state(t)
			before := demo.MustJSON(d.Snapshot())
			err := d.Apply(tc.cmd(d))
			var r *demo.Rejection
			if !errors.As(err, &r) {
				t.Fatalf("not refused: %v", err)
			}
			if want := words.T(ui.En, tc.key); r.Text(ui.En) == "" || r.Text(ui.Ja) == r.Text(ui.En) || !startsLike(r.Text(ui.En), want) {
				t.Fatalf("refusal %q, want %s", r.Text(ui.En), tc.key)
			}
			if after := demo.MustJSON(d.Snapshot()); after != before {
				t.Fatalf("a refused command changed the demo:\n%s\n%s", before, after)
			}
		})
	}
	// Out of range: the shared rejection.
	for _, tc := range []struct {
		state func(t *testing.T) *Demo
		cmd   demo.Command
	}{{atTen, demo.Command{Action: "replicas-inc"}}, {atZero, demo.Command{Action: "replicas-dec"}}} {
		d := tc.state(t)
		before := demo.MustJSON(d.Snapshot())
		var r *demo.Rejection
		if err := d.Apply(tc.cmd); !errors.As(err, &r) || r.Reason != demo.ReasonOutOfRange {
			t.Fatalf("%s: %v", tc.cmd.Action, err)
		}
		if demo.MustJSON(d.Snapshot()) != before {
			t.Fatalf("%s changed the demo", tc.cmd.Action)
		}
	}
}

func fixed(c demo.Command) func(*Demo) demo.Command { return func(*Demo) demo.Command { return c } }

// startsLike reports whether a rejection's text is the catalog's sentence
// (formatted with a name or not): the same first word.
func startsLike(got, want string) bool {
	first := func(s string) string {
		for i, r := range s {
			if r == ' ' {
				return s[:i]
			}
		}
		return s
	}
	return first(got) == first(want)
}

// Every accepted command does what its name says.
func TestAcceptedCommands(t *testing.T) {
	d := NewDemo()
	live := demo.Wrap(&Kind, d)
	apply := func(c demo.Command) {
		t.Helper()
		if err := live.Apply(c); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	apply(demo.Command{Action: "guided-next"})
	apply(demo.Command{Action: "guided-next"})
	apply(demo.Command{Action: "guided-back"})
	if d.Cluster().Guide().Step != 1 {
		t.Fatalf("step %d", d.Cluster().Guide().Step)
	}
	apply(demo.Command{Action: "step"}) // during the guide: the next message
	if d.Cluster().Guide().Step != 2 {
		t.Fatalf("step during the guide: %d", d.Cluster().Guide().Step)
	}
	apply(demo.Command{Action: "runtime", Name: string(cp.RuntimeDockershim)})
	if d.Cluster().Runtime() != cp.RuntimeDockershim {
		t.Fatal("runtime")
	}
	apply(demo.Command{Action: "guided-finish"})
	apply(demo.Command{Action: "replicas-inc"})
	apply(demo.Command{Action: "replicas-inc"})
	apply(demo.Command{Action: "replicas-dec"})
	if d.Cluster().Replicas() != 4 {
		t.Fatalf("replicas %d", d.Cluster().Replicas())
	}
	apply(demo.Command{Action: "set-replicas", N: 6})
	settle(t, d)
	apply(demo.Command{Action: "kill", Name: d.Cluster().Pods()[0].Name})
	apply(demo.Command{Action: "component", Name: cp.ProcessScheduler, On: false})
	apply(demo.Command{Action: "component", Name: cp.ProcessControllerManager, On: false})
	if c := d.Cluster().Components(); c[0].Running || c[1].Running {
		t.Fatalf("components %+v", c)
	}
	apply(demo.Command{Action: "node", Name: "node-2", On: false})
	if node(d, "node-2").Kubelet {
		t.Fatal("node-2 runs")
	}
	apply(demo.Command{Action: "component", Name: cp.ProcessControllerManager, On: true})
	apply(demo.Command{Action: "skip"})
	apply(demo.Command{Action: "pause", On: true})
	if !d.Paused() {
		t.Fatal("pause")
	}
	apply(demo.Command{Action: "preset", Name: QuizScheduler})
	if d.Quiz() != QuizScheduler {
		t.Fatal("quiz")
	}
	apply(demo.Command{Action: "reset"})
	if d.Live() || d.Quiz() != QuizNone {
		t.Fatal("reset")
	}
}

// The wire: the closed set of actions, each field checked for shape and
// range before the demo sees it.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		action string // "" when refused
		name   string
		on     bool
	}{
		{`{"action":"guided-next","HEADERS":{"HX-Trigger-Name":null}}`, "guided-next", "", false},
		{`{"action":"component","component":"scheduler","on":false}`, "component", "scheduler", false},
		{`{"action":"component","component":"controller-manager","on":"true"}`, "component", "controller-manager", true},
		{`{"action":"component","component":"apiserver","on":true}`, "", "", false},
		{`{"action":"component","component":"scheduler"}`, "", "", false},
		{`{"action":"node","node":"node-3","on":true}`, "node", "node-3", true},
		{`{"action":"node","node":"node-4","on":true}`, "", "", false},
		{`{"action":"runtime","runtime":"dockershim"}`, "runtime", "dockershim", false},
		{`{"action":"runtime","runtime":"docker"}`, "", "", false},
		{`{"action":"preset","preset":"node-outage"}`, "preset", "node-outage", false},
		{`{"action":"preset","preset":"etcd-outage"}`, "", "", false},
		{`{"action":"set-replicas","replicas":"11"}`, "", "", false},
		{`{"action":"kill","pod":""}`, "", "", false},
		{`{"action":"skip","extra":1}`, "", "", false},
		{`{"action":"back"}`, "", "", false},
	} {
		c := demo.Decode(&Kind, []byte(tc.msg))
		if tc.action == "" {
			if c.Reject == nil {
				t.Errorf("%s was accepted: %+v", tc.msg, c)
			}
			continue
		}
		if c.Reject != nil || c.Action != tc.action || c.Name != tc.name || c.On != tc.on {
			t.Errorf("%s decoded as %+v", tc.msg, c)
		}
	}
}

// The load generator's steps are each answered by a frame.
func TestLoadMessages(t *testing.T) { demotest.CheckLoad(t, Kind) }
