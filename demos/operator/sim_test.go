package operator

import (
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	chapter "github.com/reconcile-demo/reconcile-demo/engine/operator"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

const ms = time.Millisecond

func kinds(evs []sim.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

func mustNextDue(t *testing.T, d interface{ NextDue() (time.Duration, bool) }, want time.Duration) {
	t.Helper()
	got, ok := d.NextDue()
	if !ok || got != want {
		t.Fatalf("NextDue() = %v, %v; want %v, true", got, ok, want)
	}
}

func mustIdle(t *testing.T, d interface{ NextDue() (time.Duration, bool) }) {
	t.Helper()
	if got, ok := d.NextDue(); ok {
		t.Fatalf("NextDue() = %v, true; want false", got)
	}
}

func memberNames(d *Demo) []string {
	var out []string
	for _, m := range d.Members() {
		out = append(out, m.Name)
	}
	return out
}

func condStatuses(d *Demo) [3]chapter.ConditionStatus {
	cs := d.Conditions()
	return [3]chapter.ConditionStatus{cs[0].Status, cs[1].Status, cs[2].Status}
}

func lastEvent(evs []sim.Event) sim.Event { return evs[len(evs)-1] }

// readyDemo returns an operator demo with the controller on, run to Ready
// (at virtual 7s).
func readyDemo(t *testing.T) *Demo {
	t.Helper()
	d := NewDemo(sim.Options{}, true)
	d.Advance(7 * time.Second)
	if d.Resource().Status.Phase != chapter.Ready {
		t.Fatalf("not Ready at 7s: %+v", d.Resource().Status)
	}
	return d
}

func TestDemoStartsWithTheControllerOff(t *testing.T) {
	d := NewDemo(sim.Options{}, false)
	want := chapter.Resource{Spec: chapter.Spec{Name: "db", Members: 3, RestoreFrom: "backup-07-28"}}
	if d.Controller() || !d.Backup() || d.Resource() != want || len(d.Members()) != 0 {
		t.Fatalf("start: on %v, backup %v, %+v, members %v", d.Controller(), d.Backup(), d.Resource(), d.Members())
	}
	if got := condStatuses(d); got != [3]chapter.ConditionStatus{"Unknown", "Unknown", "Unknown"} {
		t.Fatalf("conditions = %v", got)
	}
	if d.Next() != (chapter.Action{Kind: "restore", Target: BackupName}) {
		t.Fatalf("Next() = %+v", d.Next())
	}
	mustIdle(t, d)
	d.Advance(time.Minute)
	if d.Reconciles() != 0 || d.Resource() != want || len(d.Events()) != 0 {
		t.Fatalf("a controller that is off moved: %d reconciles, %+v, %v", d.Reconciles(), d.Resource(), d.Events())
	}
	if _, ok := d.Last(); ok {
		t.Fatal("Last() before any reconcile")
	}
}

func TestOperatorStepMakesOneMoveInOrder(t *testing.T) {
	d := NewDemo(sim.Options{}, false)
	type step struct {
		advance time.Duration // before the step
		plan    string
		action  chapter.Action
		phase   chapter.Phase
		members int
		event   sim.Event
	}
	steps := []step{
		{0, "restore", chapter.Action{Kind: "restore", Target: BackupName}, chapter.Restoring, 0,
			sim.Event{Kind: EventOpRestore, Name: BackupName}},
		{0, "create", chapter.Action{Kind: "create", Target: "db-1"}, chapter.Creating, 1,
			sim.Event{Kind: EventOpCreate, Name: "db-1", N: 1, M: 3}},
		{0, "create", chapter.Action{Kind: "create", Target: "db-2"}, chapter.Creating, 2,
			sim.Event{Kind: EventOpCreate, Name: "db-2", N: 2, M: 3}},
		{0, "create", chapter.Action{Kind: "create", Target: "db-3"}, chapter.Creating, 3,
			sim.Event{Kind: EventOpCreate, Name: "db-3", N: 3, M: 3}},
		{0, "wait", chapter.Action{Kind: "noop"}, chapter.Creating, 3,
			sim.Event{Kind: EventOpWait, N: 0, M: 3}},
		{1500 * ms, "elect", chapter.Action{Kind: "elect", Target: "db-1"}, chapter.Creating, 3,
			sim.Event{Kind: EventOpElect, Name: "db-1"}},
		{0, "noop", chapter.Action{Kind: "noop"}, chapter.Ready, 3,
			sim.Event{Kind: EventOpReady, N: 3}},
		{0, "noop", chapter.Action{Kind: "noop"}, chapter.Ready, 3,
			sim.Event{Kind: EventOpNoop}},
	}
	for i, s := range steps {
		d.Advance(s.advance)
		if next := d.Next(); next.Kind != s.plan {
			t.Fatalf("step %d: Next() = %+v, want %s", i, next, s.plan)
		}
		r := d.Step()
		if r.Plan.Kind != s.plan || r.Action != s.action || r.Phase != s.phase || r.Trigger != "step" || r.At != d.Now() {
			t.Fatalf("step %d: report %+v, want plan %s, action %+v, phase %v", i, r, s.plan, s.action, s.phase)
		}
		if d.Reconciles() != i+1 || len(d.Members()) != s.members || d.Resource().Status.Phase != s.phase {
			t.Fatalf("step %d: %d reconciles, members %v, phase %v", i, d.Reconciles(), d.Members(), d.Resource().Status.Phase)
		}
		e := lastEvent(d.Events())
		e.Seq, e.At = 0, 0
		if e != s.event {
			t.Fatalf("step %d: event %+v, want %+v", i, e, s.event)
		}
	}
	st := d.Resource().Status
	if st != (chapter.Status{Phase: chapter.Ready, Members: 3, Leader: "db-1", Restored: true}) {
		t.Fatalf("final status = %+v", st)
	}
	want := []MemberView{{Name: "db-1", Ready: true, Leader: true}, {Name: "db-2", Ready: true}, {Name: "db-3", Ready: true}}
	if got := d.Members(); !reflect.DeepEqual(got, want) {
		t.Fatalf("members = %+v", got)
	}
	if got := d.ChapterLog(); !reflect.DeepEqual(got, []string{"backup-07-28 から復元した", "db-1 を作成",
		"db-2 を作成", "db-3 を作成", "db-1 をリーダーに選出"}) {
		t.Fatalf("chapter log = %q", got)
	}
	if got := condStatuses(d); got != [3]chapter.ConditionStatus{"True", "False", "False"} {
		t.Fatalf("conditions = %v", got)
	}
}

func TestStartMembersStartAfterTheDelayWithTheControllerOff(t *testing.T) {
	d := NewDemo(sim.Options{StartDelay: 2 * time.Second}, false)
	d.Step()
	d.Step() // db-1
	if m := d.Members(); len(m) != 1 || m[0].Ready || m[0].StartsIn != 2*time.Second {
		t.Fatalf("members = %+v", m)
	}
	mustNextDue(t, d, 2*time.Second)
	d.Advance(2*time.Second - 1)
	if d.Members()[0].Ready {
		t.Fatal("ready before the delay")
	}
	d.Advance(1)
	if m := d.Members()[0]; !m.Ready || m.StartsIn != 0 {
		t.Fatalf("after the delay: %+v", m)
	}
	if e := lastEvent(d.Events()); e.Kind != EventMemberReady || e.Name != "db-1" || e.At != 2*time.Second {
		t.Fatalf("event = %+v", e)
	}
	mustIdle(t, d)
}

func TestOperatorControllerOnReachesReadyByItself(t *testing.T) {
	d := NewDemo(sim.Options{}, true)
	// One move per 1s tick: restore 1s, create 2s 3s 4s, wait 5s (db-2 came
	// up), elect 6s, Ready 7s.
	d.Advance(6999 * ms)
	if p := d.Resource().Status.Phase; p == chapter.Ready {
		t.Fatal("Ready before 7s")
	}
	d.Advance(ms)
	st := d.Resource().Status
	if st != (chapter.Status{Phase: chapter.Ready, Members: 3, Leader: "db-1", Restored: true}) {
		t.Fatalf("status at 7s = %+v", st)
	}
	if d.Reconciles() != 7 {
		t.Fatalf("%d reconciles, want 7", d.Reconciles())
	}
	mustIdle(t, d)
	d.Advance(time.Minute)
	if d.Reconciles() != 7 || d.Resource().Status != st {
		t.Fatalf("Ready did not stay idle: %d reconciles", d.Reconciles())
	}
	wantHist := []PhaseSample{{0, "Pending"}, {time.Second, "Restoring"}, {2 * time.Second, "Creating"}, {7 * time.Second, "Ready"}}
	d2 := readyDemo(t)
	if got := d2.History(); !reflect.DeepEqual(got, wantHist) {
		t.Fatalf("history = %+v", got)
	}
	cs := d2.Conditions()
	if cs[0].Status != "True" || cs[0].LastTransitionTime != 7*time.Second ||
		cs[2].Status != "False" || cs[2].LastTransitionTime != time.Second {
		t.Fatalf("conditions = %+v", cs)
	}
}

func TestOperatorMissingBackupIsDegradedAndIdle(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run("on="+strconv.FormatBool(on), func(t *testing.T) {
			d := NewDemo(sim.Options{}, on)
			d.SetBackup(false)
			if e := lastEvent(d.Events()); e.Kind != EventBackup || e.N != 0 || e.Name != BackupName {
				t.Fatalf("event = %+v", e)
			}
			if !on {
				d.Step()
			}
			d.Advance(time.Minute)
			st := d.Resource().Status
			if st.Phase != chapter.Degraded || len(d.Members()) != 0 || st.Restored {
				t.Fatalf("status %+v, members %v", st, d.Members())
			}
			if d.Reconciles() != 1 {
				t.Fatalf("%d reconciles: a Degraded resource must not tick", d.Reconciles())
			}
			mustIdle(t, d)
			if got := d.ChapterLog(); !reflect.DeepEqual(got, []string{"復元元 backup-07-28 が見つからない"}) {
				t.Fatalf("chapter log = %q", got)
			}
			if got := condStatuses(d); got != [3]chapter.ConditionStatus{"False", "False", "True"} {
				t.Fatalf("conditions = %v", got)
			}
			if e := lastEvent(d.Events()); e.Kind != EventOpNoBackup || e.Name != BackupName {
				t.Fatalf("event = %+v", e)
			}
			// Steps still run, and still create nothing.
			for i := 0; i < 5; i++ {
				if r := d.Step(); r.Plan.Kind != "degraded" || r.Action.Kind != "noop" || len(d.Members()) != 0 {
					t.Fatalf("step %d = %+v, members %v", i, r, d.Members())
				}
			}
			d.SetBackup(true)
			if !on {
				d.SetController(true)
			}
			mustNextDue(t, d, time.Second)
			d.Advance(10 * time.Second)
			if d.Resource().Status.Phase != chapter.Ready || !reflect.DeepEqual(memberNames(d), []string{"db-1", "db-2", "db-3"}) {
				t.Fatalf("with the backup back: %+v, %v", d.Resource().Status, memberNames(d))
			}
		})
	}
}

func TestOperatorKillLeaderIsReelected(t *testing.T) {
	d := readyDemo(t)
	if err := d.Kill("db-1"); err != nil {
		t.Fatal(err)
	}
	if e := lastEvent(d.Events()); e.Kind != EventKillMember || e.Name != "db-1" {
		t.Fatalf("event = %+v", e)
	}
	mustNextDue(t, d, time.Second)
	d.Advance(10 * time.Second)
	st := d.Resource().Status
	if st.Phase != chapter.Ready || st.Leader != "db-2" {
		t.Fatalf("status = %+v", st)
	}
	if got := memberNames(d); !reflect.DeepEqual(got, []string{"db-2", "db-3", "db-4"}) {
		t.Fatalf("members = %v", got)
	}
	for _, m := range d.Members() {
		if m.Leader != (m.Name == "db-2") {
			t.Fatalf("leader mark on %+v", m)
		}
	}
	var lost, elect int
	for i, e := range d.Events() {
		switch {
		case e.Kind == EventOpLeaderLost && e.Name == "db-1":
			lost = i
		case e.Kind == EventOpElect && e.Name == "db-2":
			elect = i
		}
	}
	if lost == 0 || elect != lost+1 {
		t.Fatalf("events: leader-lost at %d, elect at %d: %v", lost, elect, kinds(d.Events()))
	}
	log := d.ChapterLog()
	if want := []string{"db-4 を作成", "リーダー db-1 が居なくなった", "db-2 をリーダーに選出"}; !reflect.DeepEqual(log[len(log)-3:], want) {
		t.Fatalf("chapter log tail = %q", log[len(log)-3:])
	}
	if n := countRestores(log); n != 1 {
		t.Fatalf("restored %d times", n)
	}
}

func countRestores(log []string) int {
	n := 0
	for _, l := range log {
		if l == BackupName+" から復元した" {
			n++
		}
	}
	return n
}

func TestOperatorRecoversWhenEveryMemberIsGone(t *testing.T) {
	d := readyDemo(t)
	for _, n := range []string{"db-1", "db-2", "db-3"} {
		if err := d.Kill(n); err != nil {
			t.Fatal(err)
		}
	}
	d.Advance(15 * time.Second)
	if st := d.Resource().Status; st.Phase != chapter.Ready || st.Leader != "db-4" {
		t.Fatalf("status = %+v", st)
	}
	if got := memberNames(d); !reflect.DeepEqual(got, []string{"db-4", "db-5", "db-6"}) {
		t.Fatalf("members = %v", got)
	}
	if countRestores(d.ChapterLog()) != 1 {
		t.Fatal("the restore ran again")
	}
}

func TestOperatorKillPendingMemberCancelsItsStart(t *testing.T) {
	d := NewDemo(sim.Options{}, false)
	d.Step()
	d.Step() // db-1, starts at 1.5s
	if err := d.Kill("db-1"); err != nil {
		t.Fatal(err)
	}
	mustIdle(t, d)
	d.Advance(time.Minute)
	if len(d.Members()) != 0 {
		t.Fatalf("members = %+v", d.Members())
	}
}

func TestOperatorKillUnknownMemberChangesNothing(t *testing.T) {
	for _, name := range []string{"db-9", "", "db-0", "pod-1", "db-1 "} {
		t.Run(name, func(t *testing.T) {
			d := readyDemo(t)
			snap, evs := d.Snapshot(), d.Events()
			if err := d.Kill(name); err == nil {
				t.Fatalf("Kill(%q) succeeded", name)
			}
			if !reflect.DeepEqual(d.Snapshot(), snap) || !reflect.DeepEqual(d.Events(), evs) {
				t.Fatal("a refused Kill changed the demo")
			}
		})
	}
}

func TestOperatorSetMembers(t *testing.T) {
	tests := []struct {
		n       int
		wantErr bool
	}{
		{MinMembers - 1, true}, {-1, true}, {MaxMembers + 1, true}, {math.MinInt, true}, {math.MaxInt, true},
		{MinMembers, false}, {MaxMembers, false}, {5, false}, {3, false},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.n), func(t *testing.T) {
			d := readyDemo(t)
			snap, evs := d.Snapshot(), d.Events()
			err := d.SetMembers(tt.n)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				if !reflect.DeepEqual(d.Snapshot(), snap) || !reflect.DeepEqual(d.Events(), evs) {
					t.Fatal("a refused SetMembers changed the demo")
				}
				return
			}
			if err != nil || d.Resource().Spec.Members != tt.n {
				t.Fatalf("SetMembers(%d) = %v, Spec %+v", tt.n, err, d.Resource().Spec)
			}
			if tt.n == 3 {
				if !reflect.DeepEqual(d.Events(), evs) {
					t.Fatal("an unchanged Spec was logged")
				}
				return
			}
			if e := lastEvent(d.Events()); e.Kind != EventSpecMembers || e.N != tt.n || e.M != 3 {
				t.Fatalf("event = %+v", e)
			}
			// The Spec changed only; the Status follows on the controller's ticks.
			if d.Resource().Status.Phase != chapter.Ready {
				t.Fatal("SetMembers wrote the Status")
			}
			d.Advance(20 * time.Second)
			if st := d.Resource().Status; st.Phase != chapter.Ready || len(d.Members()) != max(tt.n, 3) {
				t.Fatalf("after SetMembers(%d): %+v, members %v", tt.n, st, memberNames(d))
			}
		})
	}
}

func TestOperatorPauseAndSpeed(t *testing.T) {
	d := NewDemo(sim.Options{}, true)
	d.SetPaused(true)
	mustIdle(t, d)
	d.Advance(time.Minute)
	if d.Now() != 0 || d.Reconciles() != 0 || !d.Paused() {
		t.Fatalf("paused: now %v, %d reconciles", d.Now(), d.Reconciles())
	}
	d.SetPaused(false)
	d.SetSpeed(sim.Double)
	d.SetSpeed(sim.Speed(9)) // ignored
	if d.Speed() != sim.Double {
		t.Fatalf("speed = %v", d.Speed())
	}
	mustNextDue(t, d, 500*ms)
	d.Advance(3499 * ms)
	if d.Resource().Status.Phase == chapter.Ready {
		t.Fatal("Ready early at 2×")
	}
	d.Advance(ms)
	if d.Resource().Status.Phase != chapter.Ready || d.Now() != 7*time.Second {
		t.Fatalf("at 2× after 3.5s: %v at %v", d.Resource().Status.Phase, d.Now())
	}
	d2 := NewDemo(sim.Options{}, true)
	d2.SetSpeed(sim.Half)
	d2.Advance(13999 * ms)
	if d2.Resource().Status.Phase == chapter.Ready {
		t.Fatal("Ready early at 0.5×")
	}
	d2.Advance(2 * ms)
	if d2.Resource().Status.Phase != chapter.Ready {
		t.Fatal("not Ready after 14s at 0.5×")
	}
}

func TestOperatorReset(t *testing.T) {
	d := readyDemo(t)
	d.SetMembers(5)
	d.SetBackup(false)
	d.SetSpeed(sim.Double)
	d.Advance(time.Second)
	now := d.Now()
	d.Reset()
	res := d.Resource()
	if res.Status != (chapter.Status{}) || res.Spec.Members != 5 || d.Backup() || !d.Controller() ||
		d.Now() != now || d.Speed() != sim.Double || len(d.Members()) != 0 || len(d.ChapterLog()) != 0 {
		t.Fatalf("after Reset: %+v, backup %v, on %v, now %v, members %v", res, d.Backup(), d.Controller(), d.Now(), d.Members())
	}
	if _, ok := d.Last(); ok {
		t.Fatal("Last() survived Reset")
	}
	if got := kinds(d.Events()); !reflect.DeepEqual(got, []string{sim.EventWatchStart, sim.EventReset}) {
		t.Fatalf("events = %v", got)
	}
	for _, c := range d.Conditions() {
		if c.Status != chapter.ConditionUnknown || c.LastTransitionTime != now {
			t.Fatalf("condition after Reset = %+v", c)
		}
	}
	if h := d.History(); len(h) != 1 || h[0] != (PhaseSample{now, "Pending"}) {
		t.Fatalf("history = %+v", h)
	}
	d.Advance(time.Minute)
	if d.Resource().Status.Phase != chapter.Degraded || len(d.Members()) != 0 {
		t.Fatalf("after Reset without a backup: %+v", d.Resource().Status)
	}
}

func TestOperatorLogsAreBounded(t *testing.T) {
	d := NewDemo(sim.Options{LogSize: 7}, false)
	for i := 0; i < 200; i++ {
		d.Step()
		d.Advance(2 * time.Second)
		if i%5 == 4 {
			d.Kill(d.Resource().Status.Leader)
		}
	}
	if n := len(d.Events()); n != 7 {
		t.Fatalf("%d events, want 7", n)
	}
	log := d.ChapterLog()
	if len(log) != maxChapterLog {
		t.Fatalf("chapter log has %d lines, want %d", len(log), maxChapterLog)
	}
	if d.Reconciles() != 200 {
		t.Fatalf("%d reconciles", d.Reconciles())
	}
}

func TestOperatorAccessorsReturnCopies(t *testing.T) {
	d := readyDemo(t)
	d.Conditions()[0].Status = "x"
	d.ChapterLog()[0] = "x"
	d.History()[0].Phase = "x"
	d.Events()[0].Kind = "x"
	if d.Conditions()[0].Status == "x" || d.ChapterLog()[0] == "x" || d.History()[0].Phase == "x" || d.Events()[0].Kind == "x" {
		t.Fatal("an accessor returned the demo's own slice")
	}
	if d.Window() != time.Minute {
		t.Fatalf("Window() = %v", d.Window())
	}
}
