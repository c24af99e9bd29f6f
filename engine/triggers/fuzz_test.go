package triggers

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
)

// The fuzz target decodes its input as a program: two bytes per operation,
// an opcode and an argument.
const (
	opKill    = iota // kill the pod arg % len of both sides' names, or pod-arg
	opDesired        // SetDesired(int8(arg) % 13): -12 … 12, in range or not
	opDrop           // SetDrop(arg odd)
	opDup            // DuplicateNext
	opSwap           // SwapNext
	opRestart        // Restart (refused while restarting)
	opStep           // Step
	opAdvance        // Advance(arg × 10ms) in one call
	opFine           // the same, one due instant at a time, checking each
	opRestore        // go on with the world rebuilt from its JSON snapshot
	opTick           // Advance(arg ms)
	numOps
)

// maxOps bounds a program: long enough for any story, short enough for the
// minimizer.
const maxOps = 64

// levelBound is how long after the last visitor action the level side may
// take to converge: the rest of a restart, a resync, a start.
const levelBound = RestartTime + Resync + StartDelay

func program(ops ...[2]byte) []byte {
	var b []byte
	for _, op := range ops {
		b = append(b, op[0], op[1])
	}
	return b
}

// shadow is what the fuzzer remembers across operations.
type shadow struct {
	seq  [2]int             // the last pod number of each side
	gone [2]map[string]bool // names that existed and were deleted
	seen [2]map[string]bool // names that existed
	log  [2]int             // Seq of each side's newest log entry
}

func newShadow(w *World) *shadow {
	sh := &shadow{}
	for s := Level; s <= Edge; s++ {
		sh.gone[s], sh.seen[s] = map[string]bool{}, map[string]bool{}
	}
	sh.observe(nil, w, true)
	return sh
}

func lastLogSeq(v SideView) int {
	if len(v.Log) == 0 {
		return 0
	}
	return v.Log[len(v.Log)-1].Seq
}

// observe checks what holds from one state to the next and remembers the
// new one. fresh is true for a world whose logs start afresh (restored).
func (sh *shadow) observe(t *testing.T, w *World, fresh bool) {
	for s := Level; s <= Edge; s++ {
		v := w.View(s)
		seq := w.levelCl.Seq()
		if s == Edge {
			seq = w.edgeCl.Seq()
		}
		if t != nil {
			if seq < sh.seq[s] {
				t.Fatalf("%v: pod seq went back from %d to %d", s, sh.seq[s], seq)
			}
			// Every pod created was created by the side's controller, in a
			// logged reaction: each log entry says what it created.
			newEntries := lastLogSeq(v) - sh.log[s]
			if !fresh && newEntries <= LogSize {
				created := 0
				for _, e := range v.Log[len(v.Log)-newEntries:] {
					for _, a := range e.Actions() {
						if a.Kind == ActCreate {
							created++
						}
					}
					if s == Edge && len(e.Actions()) > 0 && e.Heard.Seq == 0 {
						t.Fatalf("edge acted without hearing an event: %+v", e)
					}
				}
				if created != seq-sh.seq[s] {
					t.Fatalf("%v: %d pods created, the log says %d", s, seq-sh.seq[s], created)
				}
			}
		}
		now := map[string]bool{}
		for _, p := range v.Pods {
			now[p.Name] = true
			if t != nil && sh.gone[s][p.Name] {
				t.Fatalf("%v: name %s reused", s, p.Name)
			}
			if t != nil && !sh.seen[s][p.Name] {
				if n, _ := podNumber(p.Name, seq); n <= sh.seq[s] {
					t.Fatalf("%v: new pod %s numbered at or below the old seq %d", s, p.Name, sh.seq[s])
				}
			}
			sh.seen[s][p.Name] = true
		}
		for n := range sh.seen[s] {
			if !now[n] {
				sh.gone[s][n] = true
			}
		}
		sh.seq[s], sh.log[s] = seq, lastLogSeq(v)
	}
}

// allowed returns the names the edge controller may delete from now until
// the next instant: those it knows and those named by its events on the way.
func allowed(w *World) map[string]bool {
	ok := map[string]bool{}
	for _, n := range w.edge.Known() {
		ok[n] = true
	}
	for _, e := range w.View(Edge).Stream {
		if e.InFlight > 0 || e.Held {
			ok[e.Pod.String()] = true
		}
	}
	return ok
}

// checkTouch checks that the edge side deleted only pods it had heard of.
func checkTouch(t *testing.T, before []string, ok map[string]bool, w *World) {
	t.Helper()
	after := names(w.edgeCl.Pods())
	for _, n := range before {
		if !slices.Contains(after, n) && !ok[n] {
			t.Fatalf("the edge controller deleted %s, which it had not heard of", n)
		}
	}
}

// checkWorld checks the invariants every state holds.
func checkWorld(t *testing.T, w *World) {
	t.Helper()
	if w.desired < 0 || w.desired > MaxDesired || w.level.Desired() != w.desired {
		t.Fatalf("desired %d, level controller %d", w.desired, w.level.Desired())
	}
	down, upIn := w.Restarting()
	if down != w.down || upIn < 0 || upIn > RestartTime {
		t.Fatalf("restarting %v, up in %v", down, upIn)
	}
	for s := Level; s <= Edge; s++ {
		v := w.View(s)
		limit := MaxPods
		if s == Level {
			limit = MaxDesired
		}
		if len(v.Pods) > limit {
			t.Fatalf("%v holds %d pods, bound %d", s, len(v.Pods), limit)
		}
		if !sort.SliceIsSorted(v.Pods, func(i, j int) bool { return v.Pods[i].Name < v.Pods[j].Name }) {
			t.Fatalf("%v pods not sorted", s)
		}
		alive, running := 0, 0
		for i, p := range v.Pods {
			if i > 0 && v.Pods[i-1].Name == p.Name {
				t.Fatalf("%v: pod %s twice", s, p.Name)
			}
			switch p.Phase {
			case reconcile.Pending:
				alive++
				if p.StartsIn < 0 || p.StartsIn > StartDelay {
					t.Fatalf("%v: %s starts in %v", s, p.Name, p.StartsIn)
				}
			case reconcile.Running:
				alive++
				running++
				fallthrough
			default:
				if p.StartsIn != 0 {
					t.Fatalf("%v: %v pod %s starts in %v", s, p.Phase, p.Name, p.StartsIn)
				}
			}
		}
		if v.Alive != alive || v.Running != running || v.Alive+v.Failed != len(v.Pods) {
			t.Fatalf("%v counts %+v", s, v)
		}
		if v.Converged != w.Converged(s) {
			t.Fatalf("%v: the view and Converged disagree", s)
		}
		if len(v.Log) > LogSize {
			t.Fatalf("%v log of %d", s, len(v.Log))
		}
		str := &w.sides[s].stream
		if len(v.Stream) > StreamShown+MaxInFlight || str.inFlight() > MaxInFlight || len(str.queue) > 2*MaxInFlight {
			t.Fatalf("%v stream of %d events, %d in flight", s, len(v.Stream), str.inFlight())
		}
		if !slices.IsSortedFunc(str.queue, func(a, b delivery) int { return int(a.at - b.at) }) {
			t.Fatalf("%v queue out of order", s)
		}
		if down && (len(str.queue) > 0 || str.held != 0) {
			t.Fatalf("%v: events in flight while restarting", s)
		}
		for _, e := range v.Stream {
			if (e.Fate == Dropped) != (e.Loss != LossNone) || e.Delivered+e.InFlight > e.Fate.copies() {
				t.Fatalf("%v: event %+v", s, e)
			}
			if e.InFlight > 0 && (e.ArrivesIn < 0 || e.ArrivesIn > maxCopyIn) {
				t.Fatalf("%v: event %+v arrives in %v", s, e, e.ArrivesIn)
			}
		}
	}
	known := w.edge.Known()
	if len(known) > MaxKnown || (down && len(known) > 0) {
		t.Fatalf("the edge controller knows %v (restarting %v)", known, down)
	}
	for _, n := range known {
		if _, ok := podNumber(n, w.edgeCl.Seq()); !ok {
			t.Fatalf("the edge controller knows %q, never a pod", n)
		}
	}
	if l := w.Mattered(); l.Row != l.Reason.row() || l.At > w.Now() {
		t.Fatalf("lesson %+v at %v", l, w.Now())
	}
	if d, ok := w.NextDue(); ok && d < 0 {
		t.Fatalf("NextDue = %v", d)
	}
	// The snapshot restores, through JSON, to the same snapshot.
	snap := w.Snapshot()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(back)
	if err != nil {
		t.Fatalf("snapshot does not restore: %v\n%s", err, b)
	}
	if !equalJSON(r.Snapshot(), snap) {
		t.Fatalf("snapshot round trip:\n got %+v\nwant %+v", r.Snapshot(), snap)
	}
}

// fine advances d one due instant at a time, checking at each that the edge
// controller deletes only what it heard of.
func fine(t *testing.T, w *World, d time.Duration) {
	for d > 0 {
		next, ok := w.NextDue()
		if !ok || next >= d {
			w.Advance(d)
			return
		}
		next = max(next, 1)
		before, ok2 := names(w.edgeCl.Pods()), allowed(w)
		w.Advance(next)
		checkTouch(t, before, ok2, w)
		d -= next
	}
}

// quietDown checks the end of every program: the level side converges
// within levelBound, then the world falls quiet and stays as it is.
func quietDown(t *testing.T, w *World) {
	t.Helper()
	fine(t, w, levelBound)
	if !w.Converged(Level) {
		t.Fatalf("the level side did not converge within %v of the last action: %+v", levelBound, w.View(Level))
	}
	fine(t, w, 10*time.Second)
	if !w.Converged(Level) {
		t.Fatal("the level side left convergence by itself")
	}
	quiet(t, w)
}

func runProgram(t *testing.T, w *World, data []byte) {
	sh := newShadow(w)
	checkWorld(t, w)
	// A page's frames write the snapshot into the same arrays, world after
	// world: what they read must be Snapshot, fresh, to the last nil.
	var reused Snapshot
	var peeked [2]SideView
	for i := 0; i+1 < len(data) && i < 2*maxOps; i += 2 {
		op, arg := int(data[i])%numOps, data[i+1]
		before, now := w.Snapshot(), w.Now()
		fresh := false
		var err error
		switch op {
		case opKill:
			var all []string
			for s := Level; s <= Edge; s++ {
				all = append(all, names(w.pods(s))...)
			}
			slices.Sort(all)
			name := "pod-" + strconv.Itoa(int(arg))
			if len(all) > 0 && arg < 200 {
				name = all[int(arg)%len(all)]
			}
			err = w.Kill(name)
		case opDesired:
			err = w.SetDesired(int(int8(arg)) % 13)
		case opDrop:
			w.SetDrop(arg%2 == 1)
		case opDup:
			w.DuplicateNext()
		case opSwap:
			w.SwapNext()
		case opRestart:
			wasDown := w.down
			err = w.Restart()
			if (err != nil) != wasDown {
				t.Fatalf("Restart() = %v while restarting %v", err, wasDown)
			}
		case opStep:
			before, ok := names(w.edgeCl.Pods()), allowed(w)
			r := w.Step()
			checkTouch(t, before, ok, w)
			if (r.Level != nil) == w.down {
				t.Fatalf("step ran the level side %v while restarting %v", r.Level != nil, w.down)
			}
			// After one Reconcile, alive pods are exactly desired, none Failed.
			if v := w.View(Level); r.Level != nil && (v.Alive != w.desired || v.Failed != 0) {
				t.Fatalf("after a level step %+v", v)
			}
			if w.Now() != now {
				t.Fatal("a step moved time")
			}
		case opAdvance:
			w.Advance(time.Duration(arg) * 10 * ms1)
		case opFine:
			d := time.Duration(arg) * 10 * ms1
			clone, rerr := Restore(before)
			if rerr != nil {
				t.Fatal(rerr)
			}
			fine(t, w, d)
			// One long Advance and many short ones agree.
			clone.Advance(d)
			if !equalJSON(clone.Snapshot(), w.Snapshot()) {
				t.Fatalf("Advance(%v) and the same in steps differ:\n%+v\n%+v", d, clone.Snapshot(), w.Snapshot())
			}
		case opRestore:
			b, _ := json.Marshal(before)
			var snap Snapshot
			if err := json.Unmarshal(b, &snap); err != nil {
				t.Fatal(err)
			}
			r, rerr := Restore(snap)
			if rerr != nil {
				t.Fatalf("snapshot does not restore: %v", rerr)
			}
			w, fresh = r, true
		case opTick:
			w.Advance(time.Duration(arg) * ms1)
		}
		if err != nil && !equalJSON(w.Snapshot(), before) {
			t.Fatalf("op %d refused (%v) but changed the world", op, err)
		}
		if w.Now() < now {
			t.Fatalf("op %d: time went back from %v to %v", op, now, w.Now())
		}
		checkWorld(t, w)
		sh.observe(t, w, fresh)
		if w.SnapshotInto(&reused); !reflect.DeepEqual(reused, w.Snapshot()) {
			t.Fatalf("SnapshotInto over an older snapshot:\n got %+v\nwant %+v", reused, w.Snapshot())
		}
		for s := Level; s <= Edge; s++ {
			if w.PeekInto(s, &peeked[s]); !reflect.DeepEqual(peeked[s], w.Peek(s)) {
				t.Fatalf("PeekInto(%v) over an older view:\n got %+v\nwant %+v", s, peeked[s], w.Peek(s))
			}
		}
	}
	quietDown(t, w)
	sh.observe(t, w, false)
}

func FuzzWorld(f *testing.F) {
	f.Add([]byte{})
	// The stories.
	f.Add(program([2]byte{opDrop, 1}, [2]byte{opKill, 1}, [2]byte{opFine, 255}, [2]byte{opStep, 0}, [2]byte{opDrop, 0}, [2]byte{opFine, 255}))
	f.Add(program([2]byte{opDup, 0}, [2]byte{opKill, 1}, [2]byte{opFine, 100}, [2]byte{opStep, 0}, [2]byte{opFine, 200}))
	f.Add(program([2]byte{opKill, 0}, [2]byte{opKill, 2}, [2]byte{opRestart, 0}, [2]byte{opKill, 4}, [2]byte{opFine, 255}, [2]byte{opRestart, 0}))
	f.Add(program([2]byte{opSwap, 0}, [2]byte{opDesired, 5}, [2]byte{opDesired, 4}, [2]byte{opFine, 90}, [2]byte{opSwap, 0},
		[2]byte{opDesired, 10}, [2]byte{opDesired, 0}, [2]byte{opFine, 255}))
	// Floods, restores, refused input.
	f.Add(program([2]byte{opDesired, 10}, [2]byte{opAdvance, 200}, [2]byte{opDup, 0}, [2]byte{opKill, 3}, [2]byte{opDup, 0},
		[2]byte{opKill, 5}, [2]byte{opRestore, 0}, [2]byte{opDesired, 0}, [2]byte{opDesired, 10}, [2]byte{opFine, 255}))
	f.Add(program([2]byte{opDesired, 0xff}, [2]byte{opDesired, 11}, [2]byte{opKill, 250}, [2]byte{opRestart, 0}, [2]byte{opRestart, 0},
		[2]byte{opSwap, 0}, [2]byte{opTick, 10}, [2]byte{opKill, 1}, [2]byte{opRestore, 0}, [2]byte{opFine, 255}))
	f.Fuzz(func(t *testing.T, data []byte) { runProgram(t, New(), data) })
}

// FuzzRestore feeds Restore any JSON: it never panics, and whatever it
// accepts holds the invariants and behaves (the level side converges, the
// world falls quiet).
func FuzzRestore(f *testing.F) {
	for _, mk := range []func() *World{
		New,
		func() *World {
			w := New()
			w.DuplicateNext()
			w.Kill("pod-1")
			w.Advance(450 * ms1)
			w.SwapNext()
			w.SetDesired(6)
			return w
		},
		func() *World { w := New(); w.Kill("pod-2"); w.Restart(); w.Advance(700 * ms1); return w },
	} {
		b, _ := json.Marshal(mk().Snapshot())
		f.Add(b, []byte{})
		f.Add(b, program([2]byte{opStep, 0}, [2]byte{opKill, 1}, [2]byte{opFine, 255}))
	}
	f.Fuzz(func(t *testing.T, snapJSON, prog []byte) {
		var snap Snapshot
		if json.Unmarshal(snapJSON, &snap) != nil {
			return
		}
		w, err := Restore(snap)
		if err != nil {
			if w != nil {
				t.Fatal("Restore returned a world with an error")
			}
			return
		}
		runProgram(t, w, prog)
	})
}

// TestFuzzSeeds runs the seed programs and a spread of deterministic
// pseudo-random ones, so the invariants are checked by plain go test too.
func TestFuzzPrograms(t *testing.T) {
	x := uint32(2463534242)
	for i := range racetest.Runs(300) {
		data := make([]byte, 2*(8+i%56))
		for j := range data {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			data[j] = byte(x)
		}
		t.Run(strconv.Itoa(i), func(t *testing.T) { runProgram(t, New(), data) })
	}
}
