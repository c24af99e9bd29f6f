package operator

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/operator"
	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
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
// limit (reconcile.MaxSeq) that no demo reaches, so the fuzzers skip it.
func knownUnrestorable(now int64, seq int) bool {
	return seq > reconcile.MaxSeq-1000
}

func checkOperatorInvariants(t *testing.T, d *Demo, opt sim.Options) {
	t.Helper()
	opt = opt.WithDefaults()
	snap := d.Snapshot()
	res := d.Resource()
	members := d.Members()
	// An operator never creates a member before its restore.
	if !res.Status.Restored && len(members) > 0 {
		t.Fatalf("members %v exist before the restore: %+v", members, res.Status)
	}
	if res.Spec.Members < MinMembers || res.Spec.Members > MaxMembers {
		t.Fatalf("Spec.Members %d", res.Spec.Members)
	}
	if len(members) > MaxMembers {
		t.Fatalf("%d members", len(members))
	}
	for i, m := range members {
		n, ok := nameNumber(m.Name, ResourceName)
		if !ok || n > snap.Seq {
			t.Fatalf("member name %q with Seq %d", m.Name, snap.Seq)
		}
		if i > 0 && members[i-1].Name >= m.Name {
			t.Fatalf("members not sorted or not unique: %+v", members)
		}
		if m.Ready && m.StartsIn != 0 {
			t.Fatalf("ready member %+v has a start time", m)
		}
		if m.StartsIn < 0 || m.StartsIn > opt.StartDelay {
			t.Fatalf("member %s starts in %v", m.Name, m.StartsIn)
		}
		if m.Leader != (m.Name == res.Status.Leader) {
			t.Fatalf("leader mark on %+v, leader %q", m, res.Status.Leader)
		}
	}
	if l := res.Status.Leader; l != "" {
		if n, ok := nameNumber(l, ResourceName); !ok || n > snap.Seq {
			t.Fatalf("leader %q with Seq %d", l, snap.Seq)
		}
	}
	if cs := d.Conditions(); len(cs) != 3 {
		t.Fatalf("conditions %+v", cs)
	}
	if n := len(d.Events()); n > opt.LogSize {
		t.Fatalf("%d events", n)
	}
	if n := len(d.ChapterLog()); n > maxChapterLog {
		t.Fatalf("%d chapter log lines", n)
	}
	if due, ok := d.NextDue(); ok && due < 0 {
		t.Fatalf("NextDue = %v", due)
	}
	r, err := RestoreDemo(opt, snap)
	if err != nil {
		t.Fatalf("snapshot %+v does not restore: %v", snap, err)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
		t.Fatalf("snapshot round trip:\n got %+v\nwant %+v", got, snap)
	}
}

func runOperatorProgram(t *testing.T, data []byte) {
	opt := sim.Options{LogSize: 16}
	d := NewDemo(opt, len(data)%2 == 0)
	checkOperatorInvariants(t, d, opt)
	// The page's frames render a fragment only when its key changes: the
	// keys must change whenever the HTML does.
	view := demo.View{Lang: ui.Ja, SID: demotest.SID}
	keys := demotest.NewKeys(t, demo.Wrap(&Kind, d), view)
	created := map[string]bool{}
	for i := 0; i+1 < len(data) && i < 2*maxOps; i += 2 {
		op, arg := int(data[i])%numOps, data[i+1]
		before, reconciles, seq := d.Snapshot(), d.Reconciles(), d.Snapshot().Seq
		switch op {
		case opDesired:
			n := int(int8(arg))
			err := d.SetMembers(n)
			if (err != nil) != (n < MinMembers || n > MaxMembers) {
				t.Fatalf("SetMembers(%d) = %v", n, err)
			}
			if err != nil && !reflect.DeepEqual(d.Snapshot(), before) {
				t.Fatalf("refused SetMembers(%d) changed the demo", n)
			}
		case opKill:
			ms := d.Members()
			name := "db-" + strconv.Itoa(int(arg))
			switch {
			case arg%7 == 0 && d.Resource().Status.Leader != "":
				name = d.Resource().Status.Leader
			case len(ms) > 0 && arg < 200:
				name = ms[int(arg)%len(ms)].Name
			}
			if err := d.Kill(name); err != nil && !reflect.DeepEqual(d.Snapshot(), before) {
				t.Fatalf("refused Kill(%s) changed the demo", name)
			}
		case opController:
			d.SetController(!d.Controller())
		case opStep:
			plan := d.Next()
			r := d.Step()
			if d.Reconciles() != reconciles+1 || r.Trigger != "step" || r.Plan != plan {
				t.Fatalf("Step: %d reconciles, report %+v, plan was %+v", d.Reconciles()-reconciles, r, plan)
			}
			want := map[string]chapter.Phase{"wait": chapter.Creating, "degraded": chapter.Degraded, "noop": chapter.Ready}
			if ph, ok := want[plan.Kind]; ok && (r.Action.Kind != "noop" || r.Phase != ph) {
				t.Fatalf("plan %+v but action %+v in %v", plan, r.Action, r.Phase)
			} else if !ok && r.Action != plan {
				t.Fatalf("plan %+v but action %+v", plan, r.Action)
			}
			if r.Phase == chapter.Ready {
				st := d.Resource().Status
				ready, leaderReady := 0, false
				for _, m := range d.Members() {
					if m.Ready {
						ready++
						leaderReady = leaderReady || m.Name == st.Leader
					}
				}
				if ready < d.Resource().Spec.Members || !leaderReady {
					t.Fatalf("Ready with %d ready members of %d, leader %q ready %v", ready, d.Resource().Spec.Members, st.Leader, leaderReady)
				}
			}
		case opAdvance:
			d.Advance(time.Duration(arg) * 10 * ms)
		case opPause:
			d.SetPaused(arg%2 == 1)
		case opSpeed:
			d.SetSpeed(sim.Speed(int(arg%5) - 1))
		case opBackup:
			d.SetBackup(arg%2 == 1)
		case opRestore:
			r, err := RestoreDemo(opt, before)
			if err != nil {
				t.Fatalf("snapshot does not restore: %v", err)
			}
			d, reconciles = r, r.Reconciles()
			keys = demotest.NewKeys(t, demo.Wrap(&Kind, d), view)
		}
		keys.Step(t)
		if d.Reconciles() > reconciles && op != opStep && !before.Controller {
			t.Fatalf("op %d: a controller that is off ticked", op)
		}
		// At most one member per reconcile, and a name is never used twice.
		after := d.Snapshot().Seq
		if after-seq > d.Reconciles()-reconciles {
			t.Fatalf("op %d: %d members created in %d reconciles", op, after-seq, d.Reconciles()-reconciles)
		}
		for k := seq + 1; k <= after; k++ {
			name := ResourceName + "-" + strconv.Itoa(k)
			if created[name] {
				t.Fatalf("member name %s reused", name)
			}
			created[name] = true
		}
		checkOperatorInvariants(t, d, opt)
	}
}

func FuzzDemo(f *testing.F) {
	f.Add([]byte{})
	f.Add(program([2]byte{opAdvance, 250}, [2]byte{opAdvance, 250}, [2]byte{opKill, 7}, [2]byte{opAdvance, 250},
		[2]byte{opKill, 0}, [2]byte{opKill, 1}, [2]byte{opKill, 2}, [2]byte{opAdvance, 255}))
	f.Add(program([2]byte{opController, 0}, [2]byte{opStep, 0}, [2]byte{opStep, 0}, [2]byte{opStep, 0},
		[2]byte{opStep, 0}, [2]byte{opStep, 0}, [2]byte{opAdvance, 150}, [2]byte{opStep, 0}, [2]byte{opStep, 0}, [2]byte{opStep, 0}))
	f.Add(program([2]byte{opBackup, 0}, [2]byte{opAdvance, 200}, [2]byte{opStep, 0}, [2]byte{opRestore, 0},
		[2]byte{opBackup, 1}, [2]byte{opAdvance, 255}, [2]byte{opAdvance, 255}, [2]byte{opAdvance, 255}))
	f.Add(program([2]byte{opDesired, 7}, [2]byte{opDesired, 0}, [2]byte{opDesired, 8}, [2]byte{opDesired, 0xff},
		[2]byte{opSpeed, 3}, [2]byte{opAdvance, 255}, [2]byte{opPause, 1}, [2]byte{opAdvance, 255}, [2]byte{opRestore, 0},
		[2]byte{opPause, 0}, [2]byte{opAdvance, 255}, [2]byte{opDesired, 1}, [2]byte{opKill, 14}, [2]byte{opAdvance, 255}))
	f.Fuzz(runOperatorProgram)
}

func FuzzRestoreSnapshot(f *testing.F) {
	for _, mk := range operatorStates() {
		b, _ := json.Marshal(mk().Snapshot())
		f.Add(b)
	}
	b, _ := json.Marshal(goodSnapshot())
	f.Add(b)
	f.Add([]byte(`{"v":1,"now":5,"members":1,"backup":false,"controller":true,"speed":"1","status":{"phase":"Ready","members":28,"leader":"db-9","restored":false},"seq":9,"world":[{"name":"db-9","ready":false,"startsIn":0}],"conditions":[{"type":"Ready","status":"True","reason":"X","since":5},{"type":"Progressing","status":"Unknown","reason":"Y","since":0},{"type":"Degraded","status":"False","reason":"Z","since":1}]}`))
	f.Add([]byte(`{"v":1,"members":7,"speed":"2","status":{"phase":"Pending"},"conditions":[{"type":"Ready","status":"Unknown","reason":"A"},{"type":"Progressing","status":"Unknown","reason":"A"},{"type":"Degraded","status":"Unknown","reason":"A"}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"v":1,"world":[{"name":"db-1"}]}`))
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
		before := len(d.Members())
		seq := d.Snapshot().Seq
		d.Advance(10 * time.Second)
		d.Step()
		d.Advance(10 * time.Second)
		if got := d.Snapshot().Seq - seq; got > d.Reconciles() {
			t.Fatalf("%d members created in %d reconciles", got, d.Reconciles())
		}
		if n := len(d.Members()); n > max(before, d.Resource().Spec.Members) {
			t.Fatalf("%d members from %d with Spec.Members %d", n, before, d.Resource().Spec.Members)
		}
		snap := d.Snapshot()
		if knownUnrestorable(s.Now, s.Seq) {
			return
		}
		r, err := RestoreDemo(sim.Options{}, snap)
		if err != nil {
			t.Fatalf("snapshot %+v does not restore: %v", snap, err)
		}
		if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
			t.Fatalf("snapshot round trip:\n got %+v\nwant %+v", got, snap)
		}
	})
}
