package pipeline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The fuzz target decodes its input as a program of two bytes per
// operation, an opcode and an argument. Commands go through the wire
// (demo.Decode of the JSON a button sends), some of them malformed or out
// of range on purpose.
const (
	opCreate = iota
	opEdit
	opDelete
	opUnfinalize
	opDependency
	opNotReady
	opStatusWrite
	opPredicate
	opWorkers
	opStatusFrom
	opChildWrite
	opAfterCreate
	opPeriodic
	opTrap
	opController
	opStep
	opPause
	opSpeed
	opReset
	opQueueKind
	opSecretWatch
	opChildEdit
	opAdvance     // arg × 10 ms of real time
	opAdvanceLong // arg² × 100 ms
	opRestore     // go on with the demo rebuilt from its snapshot
	numOps
)

const maxOps = 96

// message is the JSON the page would send for op with arg; a few values
// are invalid on purpose.
func message(op, arg byte) string {
	pick := func(vs ...string) string { return vs[int(arg)%len(vs)] }
	name := pick("app-1", "app-2", "app-3", "app-4", "")
	on := arg&1 == 1
	switch op {
	case opCreate:
		return fmt.Sprintf(`{"action":"create","name":%q}`, name)
	case opEdit:
		return fmt.Sprintf(`{"action":"edit","name":%q}`, name)
	case opDelete:
		return fmt.Sprintf(`{"action":"delete","name":%q}`, name)
	case opUnfinalize:
		return fmt.Sprintf(`{"action":"remove-finalizer","name":%q}`, name)
	case opDependency:
		return fmt.Sprintf(`{"action":"dependency","present":%v}`, on)
	case opNotReady:
		return fmt.Sprintf(`{"action":"not-ready","value":%q}`, pick("error", "requeue", "requeue-true", "requeue-after"))
	case opStatusWrite:
		return fmt.Sprintf(`{"action":"status-write","value":%q}`, pick("always", "on-change", "never"))
	case opPredicate:
		return fmt.Sprintf(`{"action":"predicate","on":%v}`, on)
	case opWorkers:
		return fmt.Sprintf(`{"action":"workers","n":%d}`, int(arg)%4)
	case opStatusFrom:
		return fmt.Sprintf(`{"action":"status-from","value":%q}`, pick(statusFromValues...))
	case opChildWrite:
		return fmt.Sprintf(`{"action":"child-write","value":%q}`, pick(childWriteValues...))
	case opAfterCreate:
		return fmt.Sprintf(`{"action":"after-create","value":%q}`, pick(afterCreateValues...))
	case opPeriodic:
		return fmt.Sprintf(`{"action":"periodic","value":%q}`, pick(append(periodicValues, "often")...))
	case opTrap:
		traps := engine.Traps()
		t := "nope"
		if i := int(arg>>1) % (len(traps) + 1); i < len(traps) {
			t = string(traps[i])
		}
		return fmt.Sprintf(`{"action":"trap","trap":%q,"on":%v}`, t, on)
	case opController:
		return fmt.Sprintf(`{"action":"controller","on":%v}`, on)
	case opStep:
		return `{"action":"step","HEADERS":{"HX-Trigger-Name":null}}`
	case opPause:
		return fmt.Sprintf(`{"action":"pause","paused":%v}`, on)
	case opSpeed:
		return fmt.Sprintf(`{"action":"speed","speed":%q}`, pick("0.5", "1", "2", "3"))
	case opReset:
		return `{"action":"reset"}`
	case opQueueKind:
		return fmt.Sprintf(`{"action":"queue-kind","value":%q}`, pick("priority", "classic", "fifo"))
	case opSecretWatch:
		return fmt.Sprintf(`{"action":"secret-watch","on":%v}`, on)
	case opChildEdit:
		return fmt.Sprintf(`{"action":"child-edit","name":%q}`, name)
	}
	return ""
}

// runProgram runs prog on a fresh demo, checking the invariants (and,
// with checkKeys, that the fragments' keys are honest) after every
// operation, and returns the demo.
func runProgram(t *testing.T, prog []byte, checkKeys bool) *Demo {
	t.Helper()
	if len(prog) > 2*maxOps {
		prog = prog[:2*maxOps]
	}
	d := NewDemo()
	// The page's frames render a fragment only when its key changes: the
	// keys must change whenever the HTML does, for either language and
	// role (neither is an input of a key).
	view := demo.View{Lang: ui.Ja, SID: demotest.SID}
	if len(prog)%4 >= 2 {
		view = demo.View{Lang: ui.En, Role: demo.RoleFollower}
	}
	live := demo.Wrap(&Kind, d)
	lines := map[[2]uint64]ui.LogLine{} // a log line's identity and language → the line
	var keys *demotest.Keys
	if checkKeys {
		keys = demotest.NewKeys(t, live, view)
	}
	for i := 0; i+1 < len(prog); i += 2 {
		op, arg := prog[i]%numOps, prog[i+1]
		switch op {
		case opAdvance:
			d.Advance(time.Duration(arg) * 10 * time.Millisecond)
		case opAdvanceLong:
			d.Advance(time.Duration(arg) * time.Duration(arg) * 100 * time.Millisecond)
		case opRestore:
			d = restored(t, d)
			live = demo.Wrap(&Kind, d)
			clear(lines) // another demo: the framework tells their lines apart
			if checkKeys {
				keys = demotest.NewKeys(t, live, view)
			}
		default:
			msg := message(op, arg)
			c := demo.Decode(&Kind, []byte(msg))
			if c.Reject != nil {
				continue // refused on the wire: the demo never sees it
			}
			before := demo.MustJSON(d.Snapshot())
			if err := live.Apply(c); err != nil {
				if _, ok := err.(*demo.Rejection); !ok {
					t.Fatalf("op %d %s: %v, want a rejection", i/2, msg, err)
				}
				if after := demo.MustJSON(d.Snapshot()); after != before {
					t.Fatalf("op %d %s: refused, yet the demo changed", i/2, msg)
				}
			}
		}
		if checkKeys {
			keys.Step(t)
		}
		check(t, d, i/2)
		checkLogItems(t, d, lines, i/2)
	}
	return d
}

// checkLogItems holds the log's identities to its lines (a frame formats
// only the lines whose identities are new to the page): one identity is
// one line, in either language, all program long, and the n newest lines
// are the tail of the panel's.
func checkLogItems(t *testing.T, d *Demo, seen map[[2]uint64]ui.LogLine, op int) {
	t.Helper()
	items := d.logItems(nil)
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		lines := d.logNewest(l)
		if len(items) != len(lines) {
			t.Fatalf("op %d: %d identities for %d log lines", op, len(items), len(lines))
		}
		for j, id := range items {
			k := [2]uint64{id, uint64(l[0])}
			if was, ok := seen[k]; ok && was != lines[j] {
				t.Fatalf("op %d: one identity for two log lines:\n%+v\n%+v", op, was, lines[j])
			}
			seen[k] = lines[j]
		}
		for _, n := range []int{1, 2, len(lines)} {
			if got, want := d.logTail(l, n), lines[len(lines)-min(n, len(lines)):]; !slices.Equal(got, want) {
				t.Fatalf("op %d: the %d newest log lines are %+v, want %+v", op, n, got, want)
			}
		}
	}
}

// check holds the demo's invariants.
func check(t *testing.T, d *Demo, i int) {
	t.Helper()
	w := d.World()
	if d.Now() != w.Now() {
		t.Fatalf("op %d: clock %v, engine %v", i, d.Now(), w.Now())
	}
	due, ok := d.NextDue()
	switch {
	case ok && (d.Paused() || w.Quiet()):
		t.Fatalf("op %d: paused %v or quiet %v, yet NextDue %v", i, d.Paused(), w.Quiet(), due)
	case !ok && !d.Paused() && !w.Quiet():
		t.Fatalf("op %d: something is due, yet NextDue reports nothing", i)
	case ok && due < 0:
		t.Fatalf("op %d: NextDue %v", i, due)
	}
	seen := map[string]bool{}
	for _, v := range w.Workers() {
		if v.Busy && seen[v.Key] {
			t.Fatalf("op %d: two workers on %s", i, v.Key)
		}
		seen[v.Key] = v.Busy
	}
	// The page reads only the newest events: what it says from them is
	// what it would say from the whole log.
	all := w.Events()
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		if a, b := demo.MustJSON(writeProps(l, all)), demo.MustJSON(writeProps(l, newestEvents(w, writeLines, isWrite))); a != b {
			t.Fatalf("op %d: writes from the whole log %s, from the newest events %s", i, a, b)
		}
		if a, b := demo.MustJSON(logProps(l, all)), demo.MustJSON(logProps(l, newestEvents(w, logLines, nil))); a != b {
			t.Fatalf("op %d: log from the whole log %s, from the newest events %s", i, a, b)
		}
		if a, b := liveText(l, all), liveText(l, newestEvents(w, 1, isReconcile)); a != b {
			t.Fatalf("op %d: live line from the whole log %q, from the newest events %q", i, a, b)
		}
	}
	// The writes lane and the live region read the log only when its mark
	// or the epoch moved: what they kept is what the log says.
	var kept, read [3]int64
	write, writes, rec := d.shownEvents()
	kept = [3]int64{write, int64(writes), rec}
	write, writes, rec = shownEvents(w)
	read = [3]int64{write, int64(writes), rec}
	if kept != read {
		t.Fatalf("op %d: shown events kept %v, read %v", i, kept, read)
	}
	// The cache lane walks the store and the cache side by side: it says
	// what matching them by name says.
	if a, b := demo.MustJSON(cacheProps(ui.En, w, d.Now())), demo.MustJSON(cachePropsByName(ui.En, w, d.Now())); a != b {
		t.Fatalf("op %d: cache lane %s, matched by name %s", i, a, b)
	}
	// With {"action":"restore","snapshot":…} around it, the snapshot must
	// fit the server's 8 KB message limit, or a restore would close the
	// socket: plain or packed, it stays under 6 KB.
	if n := len(demo.MustJSON(d.Snapshot())); n > MaxPlainBytes {
		t.Fatalf("op %d: snapshot of %d bytes", i, n)
	}
	// A frame writes it as it encodes it, plain or packed.
	var written bytes.Buffer
	if err := d.WriteSnapshotJSON(&written); err != nil || written.String() != d.SnapshotJSON() {
		t.Fatalf("op %d: snapshot written (%v)\n%s\nSnapshotJSON\n%s", i, err, written.String(), d.SnapshotJSON())
	}
}

// restored returns d rebuilt from its snapshot, checking the round trip.
func restored(t *testing.T, d *Demo) *Demo {
	t.Helper()
	raw := demo.MustJSON(d.Snapshot())
	in, err := Kind.Restore(demo.Options{}, json.RawMessage(raw))
	if err != nil {
		t.Fatalf("the demo's own snapshot is refused: %v\n%s", err, raw)
	}
	r := in.(*Demo)
	if got := demo.MustJSON(r.Snapshot()); got != raw {
		t.Fatalf("round trip:\n got %s\nwant %s", got, raw)
	}
	return r
}

// render renders every fragment in both languages.
func render(t *testing.T, d *Demo) {
	t.Helper()
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: l, SID: "s"})
	}
}

func FuzzDemo(f *testing.F) {
	prog := func(ops ...[2]byte) []byte {
		var b []byte
		for _, op := range ops {
			b = append(b, op[0], op[1])
		}
		return b
	}
	f.Add(prog())
	f.Add(prog([2]byte{opEdit, 0}, [2]byte{opAdvance, 30}, [2]byte{opRestore, 0}, [2]byte{opAdvance, 100}))
	f.Add(prog([2]byte{opTrap, 0<<1 | 1}, [2]byte{opWorkers, 2}, [2]byte{opCreate, 1}, [2]byte{opCreate, 2},
		[2]byte{opAdvanceLong, 40}, [2]byte{opRestore, 0}, [2]byte{opStep, 0}))
	f.Add(prog([2]byte{opController, 0}, [2]byte{opDelete, 0}, [2]byte{opUnfinalize, 0}, [2]byte{opController, 1},
		[2]byte{opAdvance, 80}))
	f.Add(prog([2]byte{opDependency, 0}, [2]byte{opNotReady, 0}, [2]byte{opPause, 1}, [2]byte{opStep, 0},
		[2]byte{opStep, 0}, [2]byte{opRestore, 0}, [2]byte{opPause, 0}, [2]byte{opAdvanceLong, 20}))
	for i := 0; i < 40; i++ {
		f.Add(prog([2]byte{opEdit, 0}, [2]byte{opEdit, 0}, [2]byte{opEdit, 0}, [2]byte{opEdit, 0}, [2]byte{opAdvance, byte(i)}))
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		d := runProgram(t, prog, true)
		restored(t, d)
		render(t, d)
	})
}

// TestRandomPrograms runs long random programs, beyond what the fuzzer's
// seeds reach, and reports the largest snapshot they made.
func TestRandomPrograms(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	largest, programs := 0, racetest.Runs(100)
	for n := 0; n < programs; n++ {
		prog := make([]byte, 2*maxOps)
		for i := range prog {
			prog[i] = byte(rng.Intn(256))
		}
		// Busy worlds: writes and short advances, more than anything else.
		for i := 0; i < len(prog); i += 2 {
			if rng.Intn(3) == 0 {
				prog[i] = []byte{opCreate, opEdit, opEdit, opAdvance}[rng.Intn(4)]
				prog[i+1] = byte(rng.Intn(8))
			}
		}
		d := runProgram(t, prog, n%4 == 0) // the fuzzer checks the keys of many more
		largest = max(largest, len(demo.MustJSON(d.Snapshot())))
		if n%20 == 0 {
			render(t, d)
		}
	}
	t.Logf("largest final snapshot: %d bytes", largest)
}

// cachePropsByName is cacheProps's entries found as the lane first did,
// through maps of the store's and the cache's objects by kind and name.
func cachePropsByName(l ui.Lang, w *engine.World, now time.Duration) CacheProps {
	p := cacheProps(l, w, now)
	if !w.ControllerOn() {
		return p
	}
	type ref struct{ kind, name string }
	objs := w.Objects()
	store := map[ref]apiserver.Object{}
	for _, o := range objs {
		store[ref{o.Kind, o.Name}] = o
	}
	cached := map[ref]bool{}
	var entries []CacheEntry
	for _, o := range w.Cache() {
		cached[ref{o.Kind, o.Name}] = true
		e := CacheEntry{Kind: o.Kind, Name: o.Name, RV: o.ResourceVersion, Generation: o.Generation, State: "fresh"}
		s, ok := store[ref{o.Kind, o.Name}]
		switch {
		case !ok:
			e.State = "gone"
		case s.ResourceVersion != o.ResourceVersion:
			e.State, e.StoreRV = "stale", s.ResourceVersion
		}
		entries = append(entries, e)
	}
	for _, o := range objs {
		if !cached[ref{o.Kind, o.Name}] {
			entries = append(entries, CacheEntry{Kind: o.Kind, Name: o.Name, StoreRV: o.ResourceVersion,
				Generation: o.Generation, State: "missing"})
		}
	}
	slices.SortStableFunc(entries, func(a, b CacheEntry) int {
		return cmp.Or(kindOrder(a.Kind)-kindOrder(b.Kind), strings.Compare(a.Name, b.Name))
	})
	p.Entries = entries
	return p
}

// TestShownEventsAfterReset: a reset starts a new log in the same world. It
// logs one event more than the start did, as does turning the controller
// off: the two logs have the same mark, and the demo's epoch tells them
// apart.
func TestShownEventsAfterReset(t *testing.T) {
	d := NewDemo()
	live := demo.Wrap(&Kind, d)
	if err := live.Apply(demo.Decode(&Kind, []byte(`{"action":"controller","on":false}`))); err != nil {
		t.Fatal(err)
	}
	d.shownEvents()
	kept := d.shown.mark
	d.Reset()
	if d.World().LogMark() != kept {
		t.Fatalf("the log's mark after the reset is %v, not %v: this test no longer holds what it says", d.World().LogMark(), kept)
	}
	write, writes, rec := d.shownEvents()
	w2, n2, r2 := shownEvents(d.World())
	if write != w2 || writes != n2 || rec != r2 {
		t.Fatalf("after a reset, shown events kept (%d %d %d), read (%d %d %d)", write, writes, rec, w2, n2, r2)
	}
}
