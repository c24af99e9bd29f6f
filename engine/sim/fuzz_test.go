package sim

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/operator"
	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
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

// checkReplicaInvariants checks what holds in every state of a replica demo
// that has at most maxPods pods: MaxDesired for a demo driven from its start,
// reconcile.MaxPods for one restored from any snapshot.
func checkReplicaInvariants(t *testing.T, d *ReplicaDemo, opt Options, maxPods int) {
	t.Helper()
	opt = opt.withDefaults()
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
		case reconcile.Pending:
			if p.StartsIn < 0 || p.StartsIn > opt.StartDelay {
				t.Fatalf("Pending pod %s starts in %v", p.Name, p.StartsIn)
			}
		case reconcile.Running, reconcile.Failed:
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
	if n := len(d.History()); n > maxSamples || n == 0 {
		t.Fatalf("%d history samples", n)
	}
	if due, ok := d.NextDue(); ok && due < 0 {
		t.Fatalf("NextDue = %v", due)
	}
	r, err := RestoreReplicaDemo(opt, snap)
	if err != nil {
		t.Fatalf("snapshot %+v does not restore: %v", snap, err)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
		t.Fatalf("snapshot round trip:\n got %+v\nwant %+v", got, snap)
	}
}

func alivePods(d *ReplicaDemo) int {
	n := 0
	for _, p := range d.Pods() {
		if p.Phase != reconcile.Failed {
			n++
		}
	}
	return n
}

func runReplicaProgram(t *testing.T, data []byte) {
	opt := Options{LogSize: 16}
	d := NewReplicaDemo(opt, int(int8(len(data)))%12, len(data)%2 == 0)
	checkReplicaInvariants(t, d, opt, MaxDesired)
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
			d.SetSpeed(Speed(int(arg%5) - 1))
		case opBackup:
			d.Advance(time.Duration(arg) * ms)
		case opRestore:
			r, err := RestoreReplicaDemo(opt, before)
			if err != nil {
				t.Fatalf("snapshot does not restore: %v", err)
			}
			d, reconciles = r, r.Reconciles()
		}
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

func FuzzReplicaDemo(f *testing.F) {
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

func checkOperatorInvariants(t *testing.T, d *OperatorDemo, opt Options) {
	t.Helper()
	opt = opt.withDefaults()
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
		n, ok := nameNumber(m.Name, OperatorName)
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
		if n, ok := nameNumber(l, OperatorName); !ok || n > snap.Seq {
			t.Fatalf("leader %q with Seq %d", l, snap.Seq)
		}
	}
	if cs := d.Conditions(); len(cs) != 3 {
		t.Fatalf("conditions %+v", cs)
	}
	if n := len(d.Events()); n > opt.LogSize {
		t.Fatalf("%d events", n)
	}
	if n := len(d.ChapterLog()); n > maxOperatorLog {
		t.Fatalf("%d chapter log lines", n)
	}
	if due, ok := d.NextDue(); ok && due < 0 {
		t.Fatalf("NextDue = %v", due)
	}
	r, err := RestoreOperatorDemo(opt, snap)
	if err != nil {
		t.Fatalf("snapshot %+v does not restore: %v", snap, err)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
		t.Fatalf("snapshot round trip:\n got %+v\nwant %+v", got, snap)
	}
}

func runOperatorProgram(t *testing.T, data []byte) {
	opt := Options{LogSize: 16}
	d := NewOperatorDemo(opt, len(data)%2 == 0)
	checkOperatorInvariants(t, d, opt)
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
			want := map[string]operator.Phase{"wait": operator.Creating, "degraded": operator.Degraded, "noop": operator.Ready}
			if ph, ok := want[plan.Kind]; ok && (r.Action.Kind != "noop" || r.Phase != ph) {
				t.Fatalf("plan %+v but action %+v in %v", plan, r.Action, r.Phase)
			} else if !ok && r.Action != plan {
				t.Fatalf("plan %+v but action %+v", plan, r.Action)
			}
			if r.Phase == operator.Ready {
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
			d.SetSpeed(Speed(int(arg%5) - 1))
		case opBackup:
			d.SetBackup(arg%2 == 1)
		case opRestore:
			r, err := RestoreOperatorDemo(opt, before)
			if err != nil {
				t.Fatalf("snapshot does not restore: %v", err)
			}
			d, reconciles = r, r.Reconciles()
		}
		if d.Reconciles() > reconciles && op != opStep && !before.Controller {
			t.Fatalf("op %d: a controller that is off ticked", op)
		}
		// At most one member per reconcile, and a name is never used twice.
		after := d.Snapshot().Seq
		if after-seq > d.Reconciles()-reconciles {
			t.Fatalf("op %d: %d members created in %d reconciles", op, after-seq, d.Reconciles()-reconciles)
		}
		for k := seq + 1; k <= after; k++ {
			name := OperatorName + "-" + strconv.Itoa(k)
			if created[name] {
				t.Fatalf("member name %s reused", name)
			}
			created[name] = true
		}
		checkOperatorInvariants(t, d, opt)
	}
}

func FuzzOperatorDemo(f *testing.F) {
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

func FuzzRestoreReplicaSnapshot(f *testing.F) {
	for _, mk := range replicaStates() {
		b, _ := json.Marshal(mk().Snapshot())
		f.Add(b)
	}
	b, _ := json.Marshal(goodReplicaSnapshot())
	f.Add(b)
	f.Add([]byte(`{"v":1,"now":1000000000,"desired":10,"controller":true,"speed":"2","seq":1073741824,"pods":[{"name":"pod-1073741824","phase":"Pending","startsIn":0}]}`))
	f.Add([]byte(`{"v":1,"now":0,"desired":0,"speed":"0.5","seq":3,"pods":[{"name":"pod-3","phase":"Failed"},{"name":"pod-1","phase":"Pending","startsIn":1500}]}`))
	many := ReplicaSnapshot{V: 1, Now: 123456, Desired: 2, Controller: true, Speed: "0.5", Seq: 99}
	for i := 1; i <= reconcile.MaxPods; i++ {
		phase := []string{"Running", "Pending", "Failed"}[i%3]
		many.Pods = append(many.Pods, PodState{Name: "pod-" + strconv.Itoa(i+30), Phase: phase, StartsIn: int64(i % 3 % 2 * 1000)})
	}
	b, _ = json.Marshal(many)
	f.Add(b)
	f.Add([]byte(`{"v":1,"now":-1}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"pods":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s ReplicaSnapshot
		if json.Unmarshal(data, &s) != nil {
			return
		}
		d, err := RestoreReplicaDemo(Options{}, s)
		if err != nil {
			if d != nil {
				t.Fatal("an error and a demo")
			}
			return
		}
		checkReplicaInvariants(t, d, Options{}, reconcile.MaxPods)
		d.Advance(10 * time.Second)
		r := d.Step()
		if a := alivePods(d); a != r.Desired {
			t.Fatalf("%d alive pods after a step, desired %d", a, r.Desired)
		}
		d.Advance(10 * time.Second)
		if knownUnrestorable(s.Now, s.Seq) {
			return
		}
		checkReplicaInvariants(t, d, Options{}, reconcile.MaxPods)
	})
}

func FuzzRestoreOperatorSnapshot(f *testing.F) {
	for _, mk := range operatorStates() {
		b, _ := json.Marshal(mk().Snapshot())
		f.Add(b)
	}
	b, _ := json.Marshal(goodOperatorSnapshot())
	f.Add(b)
	f.Add([]byte(`{"v":1,"now":5,"members":1,"backup":false,"controller":true,"speed":"1","status":{"phase":"Ready","members":28,"leader":"db-9","restored":false},"seq":9,"world":[{"name":"db-9","ready":false,"startsIn":0}],"conditions":[{"type":"Ready","status":"True","reason":"X","since":5},{"type":"Progressing","status":"Unknown","reason":"Y","since":0},{"type":"Degraded","status":"False","reason":"Z","since":1}]}`))
	f.Add([]byte(`{"v":1,"members":7,"speed":"2","status":{"phase":"Pending"},"conditions":[{"type":"Ready","status":"Unknown","reason":"A"},{"type":"Progressing","status":"Unknown","reason":"A"},{"type":"Degraded","status":"Unknown","reason":"A"}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"v":1,"world":[{"name":"db-1"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s OperatorSnapshot
		if json.Unmarshal(data, &s) != nil {
			return
		}
		d, err := RestoreOperatorDemo(Options{}, s)
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
		r, err := RestoreOperatorDemo(Options{}, snap)
		if err != nil {
			t.Fatalf("snapshot %+v does not restore: %v", snap, err)
		}
		if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
			t.Fatalf("snapshot round trip:\n got %+v\nwant %+v", got, snap)
		}
	})
}
