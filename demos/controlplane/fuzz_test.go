package controlplane

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The fuzz target decodes its input as a program: two bytes per operation,
// an opcode and an argument.
const (
	opNext = iota
	opBack
	opFinish
	opReplicas  // set-replicas int(arg%13)-1: -1 and 11 are out of range
	opKill      // kill pod arg%len, or an unknown name
	opComponent // scheduler or controller-manager (arg&1), on (arg&2)
	opNode      // node arg%3, on (arg&4)
	opRuntime   // the other stack
	opPreset    // scheduler (even) or node (odd)
	opSkip
	opStep
	opAdvance // arg × 97.013 ms of real time: never whole milliseconds
	opPause   // arg odd
	opSpeed   // arg%3
	opRestore // continue with the demo rebuilt from its snapshot
	opReset   // only when arg is 0: reset is rare
	numOps
)

const maxOps = 96

func program(ops ...[2]byte) []byte {
	var b []byte
	for _, op := range ops {
		b = append(b, op[0], op[1])
	}
	return b
}

// missingKey finds a catalog key rendered as it is: a word missing from the
// catalog.
var missingKey = regexp.MustCompile(`[>" ](cp|log|reason|guide|quiz|why|chapter|err)\.[a-z][a-z0-9.-]*[<"]`)

// FuzzDemo runs random programs of commands and time steps and checks what
// holds in every state: the clock is the engine's time after base, and it
// never goes back; NextDue is false
// while paused or during the guide, and when false nothing changes by
// itself; a refused command changes nothing; pods stay within bounds; the
// snapshot is small and round-trips; every fragment renders in both
// languages with every word found.
func FuzzDemo(f *testing.F) {
	f.Add(program([2]byte{opNext, 0}, [2]byte{opNext, 0}, [2]byte{opBack, 0}, [2]byte{opRuntime, 0},
		[2]byte{opFinish, 0}, [2]byte{opReplicas, 8}, [2]byte{opAdvance, 30}, [2]byte{opKill, 1}, [2]byte{opAdvance, 30}))
	f.Add(program([2]byte{opPreset, 1}, [2]byte{opSkip, 0}, [2]byte{opAdvance, 9}, [2]byte{opRestore, 0},
		[2]byte{opSkip, 0}, [2]byte{opAdvance, 40}, [2]byte{opNode, 4}, [2]byte{opAdvance, 40}))
	f.Add(program([2]byte{opPreset, 0}, [2]byte{opAdvance, 12}, [2]byte{opComponent, 1}, [2]byte{opKill, 0},
		[2]byte{opPause, 1}, [2]byte{opStep, 0}, [2]byte{opRestore, 0}, [2]byte{opPause, 0}, [2]byte{opComponent, 3},
		[2]byte{opSpeed, 2}, [2]byte{opAdvance, 200}))
	f.Add(program([2]byte{opFinish, 0}, [2]byte{opReplicas, 11}, [2]byte{opNode, 0}, [2]byte{opNode, 1},
		[2]byte{opAdvance, 250}, [2]byte{opSkip, 0}, [2]byte{opSkip, 0}, [2]byte{opSkip, 0}, [2]byte{opReset, 0}))
	// The guide replayed for another runtime and taken back: the same
	// steps, other arrows.
	f.Add(program([2]byte{opNext, 0}, [2]byte{opNext, 0}, [2]byte{opNext, 0}, [2]byte{opRuntime, 0}, [2]byte{opBack, 0},
		[2]byte{opRuntime, 0}, [2]byte{opNext, 0}, [2]byte{opReset, 0}, [2]byte{opNext, 0}, [2]byte{opFinish, 0},
		[2]byte{opRuntime, 0}, [2]byte{opReplicas, 6}, [2]byte{opAdvance, 30}))
	// A node's outage to its eviction, the controller-manager stopped and
	// started on the way, restored in the middle.
	f.Add(program([2]byte{opFinish, 0}, [2]byte{opReplicas, 8}, [2]byte{opAdvance, 40}, [2]byte{opNode, 0},
		[2]byte{opSkip, 0}, [2]byte{opComponent, 1}, [2]byte{opAdvance, 100}, [2]byte{opComponent, 3}, [2]byte{opSkip, 0},
		[2]byte{opSkip, 0}, [2]byte{opRestore, 0}, [2]byte{opSkip, 0}, [2]byte{opSkip, 0}, [2]byte{opSkip, 0},
		[2]byte{opAdvance, 200}, [2]byte{opKill, 0},
		[2]byte{opStep, 0}, [2]byte{opStep, 0}, [2]byte{opNode, 4}, [2]byte{opAdvance, 100}))
	f.Fuzz(runProgram)
}

func runProgram(t *testing.T, prog []byte) {
	if len(prog) > 2*maxOps {
		prog = prog[:2*maxOps]
	}
	live := demo.Wrap(&Kind, NewDemo())
	// The page's frames render a fragment only when its key changes: the
	// keys must change whenever the HTML does.
	view := demo.View{Lang: []ui.Lang{ui.Ja, ui.En}[len(prog)/2%2], SID: demotest.SID}
	keys := demotest.NewKeys(t, live, view)
	last := live.Now()
	for i := 0; i+1 < len(prog); i += 2 {
		next := runOp(t, live, prog[i]%numOps, prog[i+1])
		if next != live { // restored: a new demo, and a new page
			live = next
			keys = demotest.NewKeys(t, live, view)
		}
		keys.Step(t)
		checkInvariants(t, live, i/2)
		// The timeline logs actions at the demo's time: it never goes back.
		if now := live.Now(); now < last {
			t.Fatalf("op %d: the clock went back from %v to %v", i/2, last, now)
		} else {
			last = now
		}
	}
}

// runOp carries out one operation on a live demo, as the page's session
// does, and returns the live demo that follows (another one after a
// restore).
func runOp(t *testing.T, live *demo.Live, op, arg byte) *demo.Live {
	t.Helper()
	d := live.Instance().(*Demo)
	var c demo.Command
	switch op {
	case opNext:
		c = demo.Command{Action: "guided-next"}
	case opBack:
		c = demo.Command{Action: "guided-back"}
	case opFinish:
		c = demo.Command{Action: "guided-finish"}
	case opReplicas:
		c = demo.Command{Action: "set-replicas", N: int(arg%13) - 1}
	case opKill:
		name := "web-5846cdcf6d-zzzzz"
		if pods := d.Cluster().Pods(); len(pods) > 0 && arg < 200 {
			name = pods[int(arg)%len(pods)].Name
		}
		c = demo.Command{Action: "kill", Name: name}
	case opComponent:
		name := cp.ProcessScheduler
		if arg&1 == 1 {
			name = cp.ProcessControllerManager
		}
		c = demo.Command{Action: "component", Name: name, On: arg&2 != 0}
	case opNode:
		c = demo.Command{Action: "node", Name: cp.NodeNames()[int(arg)%cp.NodeCount], On: arg&4 != 0}
	case opRuntime:
		c = demo.Command{Action: "runtime", Name: otherRuntime(string(d.Cluster().Runtime()))}
	case opPreset:
		c = demo.Command{Action: "preset", Name: []string{QuizScheduler, QuizNode}[arg%2]}
	case opSkip:
		c = demo.Command{Action: "skip"}
	case opStep:
		c = demo.Command{Action: "step"}
	case opAdvance:
		advance(t, live, time.Duration(arg)*97013*time.Microsecond+time.Duration(arg)%7)
		return live
	case opPause:
		c = demo.Command{Action: "pause", On: arg%2 == 1}
	case opSpeed:
		c = demo.Command{Action: "speed", Speed: sim.Speed(arg % 3)}
	case opRestore:
		return demo.Wrap(&Kind, roundTrip(t, d))
	case opReset:
		if arg != 0 {
			return live
		}
		c = demo.Command{Action: "reset"}
	}
	// The framework carries out every action on a whole millisecond, moving
	// time on to it first, refused or not (demo.Live.Apply): what a refusal
	// must not change is the state there.
	if frac := d.Now() % time.Millisecond; frac != 0 {
		paused, speed := d.Paused(), d.Speed()
		d.SetPaused(false)
		d.SetSpeed(sim.Normal)
		d.Advance(time.Millisecond - frac)
		d.SetPaused(paused)
		d.SetSpeed(speed)
	}
	before := demo.MustJSON(d.Snapshot())
	n := d.Reconciles()
	err := live.Apply(c)
	var r *demo.Rejection
	switch {
	case err == nil:
	case errors.As(err, &r):
		if after := demo.MustJSON(d.Snapshot()); after != before {
			t.Fatalf("refused %+v changed the demo:\n%s\n%s", c, before, after)
		}
	default:
		t.Fatalf("%+v: not a rejection: %v", c, err)
	}
	if d.Reconciles() < n {
		t.Fatalf("%+v: reconciles went down %d → %d", c, n, d.Reconciles())
	}
	return live
}

// advance lets real time pass, checking NextDue against what happens: with
// nothing due, nothing the page shows changes.
func advance(t *testing.T, live *demo.Live, dt time.Duration) {
	t.Helper()
	d := live.Instance().(*Demo)
	due, ok := d.NextDue()
	if (d.Paused() || !d.Live()) && ok {
		t.Fatalf("due %v while paused or during the guide", due)
	}
	if ok && due < 0 {
		t.Fatalf("due in %v", due)
	}
	before := observable(d)
	now := d.Now()
	live.Advance(dt)
	switch {
	case d.Paused() || !d.Live():
		if d.Now() != now || observable(d) != before {
			t.Fatal("time ran while paused or during the guide")
		}
	case !ok || dt < due:
		if observable(d) != before {
			t.Fatalf("nothing was due (%v %v) but %v changed:\n%s\n%s", due, ok, dt, before, observable(d))
		}
	}
}

// observable is what the page shows that could change by itself: pods,
// nodes (but their Lease, which is derived from the clock), the programs
// and the messages.
func observable(d *Demo) string {
	type nodeState struct {
		Name    string
		Ready   cp.ConditionStatus
		Kubelet bool
		Tainted bool
		Pods    int
	}
	var nodes []nodeState
	for _, n := range d.Cluster().Nodes() {
		nodes = append(nodes, nodeState{n.Name, n.Ready, n.Kubelet, n.Tainted, n.Pods})
	}
	var running []bool
	for _, c := range d.Cluster().Components() {
		running = append(running, c.Running)
	}
	b, _ := json.Marshal([]any{d.Cluster().Pods(), nodes, running, len(d.Cluster().Messages()), len(d.Cluster().InFlight()), d.Cluster().Guide().Step})
	return string(b)
}

func checkInvariants(t *testing.T, live *demo.Live, step int) {
	t.Helper()
	d := live.Instance().(*Demo)
	checkClock(t, d)
	if pods := d.Cluster().Pods(); len(pods) > cp.MaxPods {
		t.Fatalf("op %d: %d pods", step, len(pods))
	}
	for _, n := range d.Cluster().Nodes() {
		if n.Pods > cp.NodeCapacity {
			t.Fatalf("op %d: %s holds %d pods", step, n.Name, n.Pods)
		}
	}
	if r := d.Cluster().Replicas(); r < 0 || r > cp.MaxReplicas {
		t.Fatalf("op %d: replicas %d", step, r)
	}
	raw := demo.MustJSON(d.Snapshot())
	if len(raw) > 6<<10 {
		t.Fatalf("op %d: snapshot of %d bytes", step, len(raw))
	}
	if step%8 == 0 {
		for _, l := range []ui.Lang{ui.Ja, ui.En} {
			for id, h := range demotest.RenderAll(t, live, demo.View{Lang: l, SID: "s"}) {
				if strings.Contains(h, "%!") {
					t.Fatalf("op %d: %s has a format error: %s", step, id, h)
				}
				if m := missingKey.FindString(h); m != "" {
					t.Fatalf("op %d: %s shows the key %s", step, id, m)
				}
			}
		}
	}
}
