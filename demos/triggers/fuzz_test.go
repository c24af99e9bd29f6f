package triggers

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
	"github.com/reconcile-demo/reconcile-demo/templates"
)

// FuzzDemo decodes its input as a program, two bytes per operation (an
// opcode and an argument), runs it on a demo through Apply, Advance and
// NextDue as the server does, and checks the demo's invariants after every
// operation: refusals change nothing, time is bounded and follows the
// engine, a quiet demo sets no timer, everything is bounded, the snapshot
// is small and round-trips, and every fragment renders.
func FuzzDemo(f *testing.F) {
	f.Add(program(op(opDrop, 1), op(opKill, 0), op(opAdvance, 200), op(opStep, 0), op(opStep, 0), op(opRestore, 0), op(opDue, 0)))
	f.Add(program(op(opDup, 0), op(opKill, 1), op(opDue, 0), op(opDue, 0), op(opDue, 0), op(opDue, 0)))
	f.Add(program(op(opPause, 1), op(opKill, 0), op(opKill, 1), op(opRestart, 0), op(opKill, 2), op(opStep, 0), op(opPause, 0), op(opAdvance, 255)))
	f.Add(program(op(opSwap, 0), op(opInc, 0), op(opDec, 0), op(opRestore, 0), op(opAdvance, 100), op(opReset, 0), op(opSpeed, 2), op(opDue, 0)))
	f.Add(program(op(opSpeed, 0), op(opInc, 0), op(opInc, 0), op(opDup, 0), op(opSwap, 0), op(opKill, 3), op(opRestart, 0), op(opRestart, 0), op(opDue, 0)))
	f.Fuzz(func(t *testing.T, prog []byte) { run(t, prog, 1) })
}

// run runs a program, checking the invariants and that the fragments'
// keys are honest after every operation, and rendering every
// renderEvery-th state in both languages.
func run(t *testing.T, prog []byte, renderEvery int) {
	t.Helper()
	if len(prog) > 2*maxOps {
		prog = prog[:2*maxOps]
	}
	d := NewDemo()
	live := demo.Wrap(&Kind, d)
	// The page's frames render a fragment only when its key changes: the
	// keys must change whenever the HTML does.
	view := demo.View{Lang: templates.Ja, SID: demotest.SID}
	keys := demotest.NewKeys(t, live, view)
	reconciles := 0
	for i := 0; i+1 < len(prog); i += 2 {
		code, arg := prog[i]%numOps, prog[i+1]
		before := d.Snapshot()
		switch code {
		case opAdvance:
			live.Advance(time.Duration(arg) * 10 * time.Millisecond)
		case opDue:
			if wait, ok := live.NextDue(); ok {
				live.Advance(wait)
			}
		case opRestore:
			live = roundTrip(t, d)
			d, reconciles = live.Instance().(*Demo), 0 // a restored demo counts from zero
			keys = demotest.NewKeys(t, live, view)
		default:
			if err := live.Apply(command(code, arg)); err != nil {
				var r *demo.Rejection
				if !errors.As(err, &r) {
					t.Fatalf("op %d(%d): %v, not a refusal", code, arg, err)
				}
				if !equalJSON(t, before, d.Snapshot()) {
					t.Fatalf("op %d(%d) was refused but changed the demo", code, arg)
				}
			}
		}
		keys.Step(t)
		if d.Reconciles() < reconciles {
			t.Fatalf("reconciles went down: %d → %d", reconciles, d.Reconciles())
		}
		reconciles = d.Reconciles()
		checkInvariants(t, d)
		checkSnapshotWritten(t, d)
		if (i/2)%renderEvery == 0 {
			checkRead(t, live, view)
			for _, l := range []templates.Lang{templates.Ja, templates.En} {
				demotest.RenderAll(t, live, demo.View{Lang: l, SID: "sid"})
			}
		}
	}
}

// roundTrip rebuilds a live demo from d's snapshot, as a page that
// reconnects does.
func roundTrip(t *testing.T, d *Demo) *demo.Live {
	t.Helper()
	raw, err := json.Marshal(d.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	live, err := demo.Resume(&Kind, demo.Options{}, raw)
	if err != nil {
		t.Fatalf("the demo's own snapshot does not restore: %v\n%s", err, raw)
	}
	return live
}

// checkRead checks that what the fragments read (their keys, the reading
// of the world they render from, and the stream rows the last frame wrote)
// is the world as it is now: every change of the world marked the reading
// stale, and a row is copied only when written from the same event, state
// and language. It renders every fragment
// from the demo's reading, then from a fresh one, and compares.
func checkRead(t *testing.T, live *demo.Live, v demo.View) {
	t.Helper()
	d := live.Instance().(*Demo)
	render := func() ([]uint64, map[string]string) {
		r := live.Renderer(v)
		keys := make([]uint64, r.Len())
		for i := range keys {
			keys[i] = r.Key(i)
		}
		return keys, demotest.RenderAll(t, live, v)
	}
	k1, h1 := render()
	d.fr = frame{} // forget the reading: the next key reads the world again
	k2, h2 := render()
	for i, f := range live.Fragments() {
		if k1[i] != k2[i] {
			t.Fatalf("fragment %s: its key was read before the world last changed", f.ID)
		}
		if h1[f.ID] != h2[f.ID] {
			t.Fatalf("fragment %s was rendered from a reading of the world before it last changed:\n%s\n%s", f.ID, h1[f.ID], h2[f.ID])
		}
	}
}

// The opcodes of a program.
const (
	opKill    = iota // kill pod-(arg%16+1): alive, Failed, gone or never there
	opInc            // replicas-inc (refused at MaxDesired)
	opDec            // replicas-dec (refused at 0)
	opDrop           // drop-events on (arg odd) or off
	opDup            // duplicate-next
	opSwap           // swap-next
	opRestart        // restart (refused while restarting)
	opStep           // step (refused while restarting)
	opAdvance        // Advance(arg × 10ms) of the caller's time
	opDue            // Advance to NextDue, as the server's timer does
	opPause          // pause (arg odd) or resume
	opSpeed          // speed 0.5, 1 or 2 (arg%3)
	opReset          // reset
	opRestore        // continue with the demo rebuilt from its snapshot
	opSet            // set-replicas arg%13-1: -1 and 11 are past the bounds
	numOps
)

// maxOps bounds a program: long enough for every story, short enough for a
// quick minimizer.
const maxOps = 96

func op(code, arg byte) [2]byte { return [2]byte{code, arg} }

func program(ops ...[2]byte) []byte {
	var b []byte
	for _, o := range ops {
		b = append(b, o[0], o[1])
	}
	return b
}

func command(code, arg byte) demo.Command {
	switch code {
	case opKill:
		return demo.Command{Action: "kill", Name: "pod-" + strconv.Itoa(int(arg%16)+1)}
	case opInc:
		return demo.Command{Action: "replicas-inc"}
	case opDec:
		return demo.Command{Action: "replicas-dec"}
	case opDrop:
		return demo.Command{Action: "drop-events", On: arg%2 == 1}
	case opDup:
		return demo.Command{Action: "duplicate-next"}
	case opSwap:
		return demo.Command{Action: "swap-next"}
	case opRestart:
		return demo.Command{Action: "restart"}
	case opStep:
		return demo.Command{Action: "step"}
	case opPause:
		return demo.Command{Action: "pause", On: arg%2 == 1}
	case opSpeed:
		return demo.Command{Action: "speed", Speed: sim.Speed(arg % 3)}
	case opSet:
		return demo.Command{Action: "set-replicas", N: int(arg%13) - 1}
	}
	return demo.Command{Action: "reset"}
}

// checkInvariants checks what holds in every state of the demo.
func checkInvariants(t *testing.T, d *Demo) {
	t.Helper()
	w := d.w
	if d.Now() != w.Now() {
		t.Fatalf("the clock reads %v, the engine %v", d.Now(), w.Now())
	}
	wait, ok := d.NextDue()
	if ok && (d.Paused() || wait < 0) {
		t.Fatalf("NextDue = %v, true while paused=%v", wait, d.Paused())
	}
	quiet := true
	for _, s := range sides {
		v := w.View(s)
		if v.Desired < 0 || v.Desired > engine.MaxDesired {
			t.Fatalf("desired %d", v.Desired)
		}
		if (s == engine.Level && len(v.Pods) > engine.MaxDesired) || len(v.Pods) > engine.MaxPods {
			t.Fatalf("%v side holds %d pods", s, len(v.Pods))
		}
		if len(v.Stream) > engine.StreamShown+engine.MaxInFlight || len(v.Log) > engine.LogSize {
			t.Fatalf("%v side keeps %d events and %d log entries", s, len(v.Stream), len(v.Log))
		}
		for _, e := range v.Stream {
			quiet = quiet && e.InFlight == 0 && !e.Held
		}
		quiet = quiet && v.Converged && !v.Restarting
		dp := diffProps(templates.En, &v)
		if (dp.State == "converged") != v.Converged {
			t.Fatalf("%v side: diff state %q, converged %v", s, dp.State, v.Converged)
		}
		if (dp.State == "stuck" || dp.State == "held") && (s == engine.Level || v.Restarting) {
			t.Fatalf("%v side said stuck: %+v", s, v)
		}
	}
	if quiet && ok {
		t.Fatalf("both sides converged with nothing in flight, yet NextDue = %v", wait)
	}
	raw, err := json.Marshal(d.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 6<<10 {
		t.Fatalf("snapshot of %d bytes", len(raw))
	}
	in, err := Kind.Restore(demo.Options{}, raw)
	if err != nil {
		t.Fatalf("the demo's snapshot does not restore: %v\n%s", err, raw)
	}
	again, _ := json.Marshal(in.(*Demo).Snapshot())
	if !bytes.Equal(again, raw) {
		t.Fatalf("snapshot round trip:\n got %s\nwant %s", again, raw)
	}
}

// TestFuzzPrograms runs longer programs than the seeds, in every opcode
// mix, so that `go test` alone covers the invariants without the fuzzer.
func TestFuzzPrograms(t *testing.T) {
	for seed := range racetest.Runs(40) {
		var prog []byte
		x := uint32(seed*2654435761 + 1)
		for range maxOps {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			prog = append(prog, byte(x), byte(x>>8))
		}
		t.Run(strconv.Itoa(seed), func(t *testing.T) { run(t, prog, 8) })
	}
}
