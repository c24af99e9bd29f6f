package reconcile

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The fuzz targets decode their input as a program: two bytes per operation,
// an opcode and an argument.

const (
	opDesired    = iota // SetDesired / SetMembers(int8(arg)): any value, in range or not
	opKill              // kill the pod or member arg % len, or an unknown name
	opController        // toggle the controller
	opStep              // one reconcile
	opAdvance           // Advance(arg × 10ms)
	opPause             // SetPaused(arg odd)
	opSpeed             // SetSpeed(arg % 5 - 1): -1 and 3 are not speeds
	opBackup            // operator only: SetBackup(arg odd); replica: Advance(arg ms)
	opRestore           // continue with the demo rebuilt from its snapshot
	numOps
)

// maxOps bounds a program: long enough for any scenario of the demos, short
// enough that the fuzzer's minimizer stays quick.
const maxOps = 64

func program(ops ...[2]byte) []byte {
	var b []byte
	for _, op := range ops {
		b = append(b, op[0], op[1])
	}
	return b
}

// nameNumber returns N for a name prefix-N, and false for any other name.
func nameNumber(name, prefix string) (int, bool) {
	s, ok := strings.CutPrefix(name, prefix+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

// Restoring arbitrary snapshots must never panic; a snapshot that restores
// gives a demo that runs and whose own snapshot restores again.

// longRun is how far the restore fuzzers move a restored demo's clock:
// Advance(10s) twice, at up to 2×.
const longRun = 2 * 2 * 10 * time.Second

// knownUnrestorable reports whether a demo restored at seq may, after
// longRun, create a pod or member past the sequence bound: a documented
// limit (chapter.MaxSeq) that no demo reaches, so the fuzzers skip it.
func knownUnrestorable(now int64, seq int) bool {
	return seq > chapter.MaxSeq-1000
}

// checkReplicaInvariants checks what holds in every state of a replica demo
// that has at most maxPods pods: MaxDesired for a demo driven from its start,
// chapter.MaxPods for one restored from any snapshot.
func checkReplicaInvariants(t *testing.T, d *Demo, opt sim.Options, maxPods int) {
	t.Helper()
	opt = opt.WithDefaults()
	snap := d.Snapshot()
	pods := d.Pods()
	if !sort.SliceIsSorted(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name }) {
		t.Fatalf("pods not sorted: %+v", pods)
	}
	if len(pods) > maxPods {
		t.Fatalf("%d pods exist, more than %d", len(pods), maxPods)
	}
	seen := map[string]bool{}
	for _, p := range pods {
		n, ok := nameNumber(p.Name, "pod")
		if !ok || n > snap.Seq {
			t.Fatalf("pod name %q with Seq %d", p.Name, snap.Seq)
		}
		if seen[p.Name] {
			t.Fatalf("duplicate pod %s", p.Name)
		}
		seen[p.Name] = true
		switch p.Phase {
		case chapter.Pending:
			if p.StartsIn < 0 || p.StartsIn > opt.StartDelay {
				t.Fatalf("Pending pod %s starts in %v", p.Name, p.StartsIn)
			}
		case chapter.Running, chapter.Failed:
			if p.StartsIn != 0 {
				t.Fatalf("%v pod %s starts in %v", p.Phase, p.Name, p.StartsIn)
			}
		default:
			t.Fatalf("pod %s in phase %v", p.Name, p.Phase)
		}
	}
	if d.Desired() < 0 || d.Desired() > MaxDesired {
		t.Fatalf("desired %d", d.Desired())
	}
	if n := len(d.Events()); n > opt.LogSize {
		t.Fatalf("%d events, LogSize %d", n, opt.LogSize)
	}
	if n := len(d.History()); n > sim.MaxSamples || n == 0 {
		t.Fatalf("%d history samples", n)
	}
	if due, ok := d.NextDue(); ok && due < 0 {
		t.Fatalf("NextDue = %v", due)
	}
	// The snapshot a frame writes by hand is json.Marshal's of Snapshot.
	var written strings.Builder
	if err := d.WriteSnapshotJSON(&written); err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(snap); written.String() != string(want) {
		t.Fatalf("snapshot written\n%s\nwant\n%s", written.String(), want)
	}
	r, err := RestoreDemo(opt, snap)
	if err != nil {
		t.Fatalf("snapshot %+v does not restore: %v", snap, err)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
		t.Fatalf("snapshot round trip:\n got %+v\nwant %+v", got, snap)
	}
}

func alivePods(d *Demo) int {
	n := 0
	for _, p := range d.Pods() {
		if p.Phase != chapter.Failed {
			n++
		}
	}
	return n
}

func runReplicaProgram(t *testing.T, data []byte) {
	opt := sim.Options{LogSize: 16}
	d := NewDemo(opt, int(int8(len(data)))%12, len(data)%2 == 0)
	checkReplicaInvariants(t, d, opt, MaxDesired)
	// The page's frames render a fragment only when its key changes: the
	// keys must change whenever the HTML does.
	view := demo.View{Lang: ui.Ja, SID: demotest.SID}
	keys := demotest.NewKeys(t, demo.Wrap(&Kind, d), view)
	for i := 0; i+1 < len(data) && i < 2*maxOps; i += 2 {
		op, arg := int(data[i])%numOps, data[i+1]
		before, reconciles, now := d.Snapshot(), d.Reconciles(), d.Now()
		switch op {
		case opDesired:
			n := int(int8(arg))
			err := d.SetDesired(n)
			if (err != nil) != (n < 0 || n > MaxDesired) {
				t.Fatalf("SetDesired(%d) = %v", n, err)
			}
			if err != nil && !reflect.DeepEqual(d.Snapshot(), before) {
				t.Fatalf("refused SetDesired(%d) changed the demo", n)
			}
		case opKill:
			pods := d.Pods()
			name := "pod-" + strconv.Itoa(int(arg))
			if len(pods) > 0 && arg < 200 {
				name = pods[int(arg)%len(pods)].Name
			}
			err := d.Kill(name)
			if err != nil && !reflect.DeepEqual(d.Snapshot(), before) {
				t.Fatalf("refused Kill(%s) changed the demo", name)
			}
		case opController:
			d.SetController(!d.Controller())
		case opStep:
			r := d.Step()
			if d.Reconciles() != reconciles+1 || r.Trigger != "step" {
				t.Fatalf("Step ran %d reconciles, report %+v", d.Reconciles()-reconciles, r)
			}
		case opAdvance:
			d.Advance(time.Duration(arg) * 10 * ms)
		case opPause:
			d.SetPaused(arg%2 == 1)
		case opSpeed:
			d.SetSpeed(sim.Speed(int(arg%5) - 1))
		case opBackup:
			d.Advance(time.Duration(arg) * ms)
		case opRestore:
			r, err := RestoreDemo(opt, before)
			if err != nil {
				t.Fatalf("snapshot does not restore: %v", err)
			}
			d, reconciles = r, r.Reconciles()
			keys = demotest.NewKeys(t, demo.Wrap(&Kind, d), view)
		}
		keys.Step(t)
		switch {
		case op == opRestore:
			// A snapshot keeps virtual milliseconds.
			if d.Now() != time.Duration(before.Now)*ms {
				t.Fatalf("restored at %v, snapshot at %dms", d.Now(), before.Now)
			}
		case d.Now() < now:
			t.Fatalf("op %d: time went back from %v to %v", op, now, d.Now())
		case d.Paused() && d.Now() != now:
			t.Fatalf("op %d: time moved while paused", op)
		}
		// After a reconcile (a tick of a running controller, or a step),
		// alive pods match desired: never more, and until the next
		// SetDesired or Kill, never fewer.
		if d.Reconciles() > reconciles {
			if op != opStep && !before.Controller {
				t.Fatalf("op %d: a controller that is off ticked", op)
			}
			if a := alivePods(d); a > d.Desired() {
				t.Fatalf("op %d: %d alive pods after a reconcile, desired %d", op, a, d.Desired())
			} else if a != d.Desired() {
				t.Fatalf("op %d: %d alive pods after a reconcile, desired %d", op, a, d.Desired())
			}
		}
		checkReplicaInvariants(t, d, opt, MaxDesired)
	}
}

func FuzzDemo(f *testing.F) {
	f.Add([]byte{})
	f.Add(program([2]byte{opAdvance, 250}, [2]byte{opKill, 0}, [2]byte{opKill, 1}, [2]byte{opAdvance, 100}))
	f.Add(program([2]byte{opController, 0}, [2]byte{opDesired, 10}, [2]byte{opStep, 0}, [2]byte{opAdvance, 200},
		[2]byte{opKill, 3}, [2]byte{opKill, 7}, [2]byte{opKill, 9}, [2]byte{opStep, 0}, [2]byte{opDesired, 2}, [2]byte{opStep, 0}))
	f.Add(program([2]byte{opDesired, 0xff}, [2]byte{opDesired, 11}, [2]byte{opDesired, 0x80}, [2]byte{opKill, 250}))
	f.Add(program([2]byte{opSpeed, 3}, [2]byte{opAdvance, 60}, [2]byte{opPause, 1}, [2]byte{opAdvance, 255},
		[2]byte{opRestore, 0}, [2]byte{opPause, 0}, [2]byte{opSpeed, 0}, [2]byte{opAdvance, 255}, [2]byte{opSpeed, 4}))
	f.Add(program([2]byte{opDesired, 10}, [2]byte{opBackup, 1}, [2]byte{opAdvance, 100}, [2]byte{opRestore, 0},
		[2]byte{opKill, 0}, [2]byte{opRestore, 0}, [2]byte{opAdvance, 37}, [2]byte{opController, 0}, [2]byte{opDesired, 1}, [2]byte{opStep, 0}))
	f.Fuzz(runReplicaProgram)
}

func FuzzRestoreSnapshot(f *testing.F) {
	for _, mk := range replicaStates() {
		b, _ := json.Marshal(mk().Snapshot())
		f.Add(b)
	}
	b, _ := json.Marshal(goodSnapshot())
	f.Add(b)
	f.Add([]byte(`{"v":1,"now":1000000000,"desired":10,"controller":true,"speed":"2","seq":1073741824,"pods":[{"name":"pod-1073741824","phase":"Pending","startsIn":0}]}`))
	f.Add([]byte(`{"v":1,"now":0,"desired":0,"speed":"0.5","seq":3,"pods":[{"name":"pod-3","phase":"Failed"},{"name":"pod-1","phase":"Pending","startsIn":1500}]}`))
	many := Snapshot{Envelope: sim.Envelope{V: 1, Now: 123456, Speed: "0.5"}, Desired: 2, Controller: true, Seq: 99}
	for i := 1; i <= chapter.MaxPods; i++ {
		phase := []string{"Running", "Pending", "Failed"}[i%3]
		many.Pods = append(many.Pods, PodState{Name: "pod-" + strconv.Itoa(i+30), Phase: phase, StartsIn: int64(i % 3 % 2 * 1000)})
	}
	b, _ = json.Marshal(many)
	f.Add(b)
	f.Add([]byte(`{"v":1,"now":-1}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"pods":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Snapshot
		if json.Unmarshal(data, &s) != nil {
			return
		}
		d, err := RestoreDemo(sim.Options{}, s)
		if err != nil {
			if d != nil {
				t.Fatal("an error and a demo")
			}
			return
		}
		checkReplicaInvariants(t, d, sim.Options{}, chapter.MaxPods)
		d.Advance(10 * time.Second)
		r := d.Step()
		if a := alivePods(d); a != r.Desired {
			t.Fatalf("%d alive pods after a step, desired %d", a, r.Desired)
		}
		d.Advance(10 * time.Second)
		if knownUnrestorable(s.Now, s.Seq) {
			return
		}
		checkReplicaInvariants(t, d, sim.Options{}, chapter.MaxPods)
	})
}
