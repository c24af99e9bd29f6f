package operator

import (
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

const backup = "backup-07-28"

// chapter returns the chapter's resource {db, 3 members, backup-07-28} and a
// world where that backup is present or not.
func chapter(present bool) (*Resource, *World) {
	r := &Resource{Spec: Spec{Name: "db", Members: 3, RestoreFrom: backup}}
	w := NewWorld()
	w.SetBackup(backup, present)
	return r, w
}

func memberNames(w *World) []string {
	var out []string
	for _, m := range w.Members() {
		out = append(out, m.Name)
	}
	return out
}

func countLines(log []string, line string) int {
	n := 0
	for _, l := range log {
		if l == line {
			n++
		}
	}
	return n
}

// toReady runs the operator to Ready and fails the test if it does not get
// there.
func toReady(t *testing.T, o *Operator, r *Resource, w *World) {
	t.Helper()
	o.Run(r, w, 50)
	if r.Status.Phase != Ready {
		t.Fatalf("Run did not reach Ready: %+v, members %v", r.Status, w.Members())
	}
}

func TestNoMemberBeforeTheRestore(t *testing.T) {
	r, w := chapter(true)
	o := New()
	act := o.Reconcile(r, w)
	if act != (Action{Kind: "restore", Target: backup}) {
		t.Fatalf("first action = %+v, want restore %s", act, backup)
	}
	if len(w.Members()) != 0 {
		t.Fatalf("the restoring reconcile created members: %v", w.Members())
	}
	if !r.Status.Restored || r.Status.Phase != Restoring {
		t.Fatalf("status after restore = %+v", r.Status)
	}
	// The restore comes first whatever the world already holds.
	r2, w2 := chapter(true)
	w2.create("db")
	w2.StartPending()
	if act := o.Reconcile(r2, w2); act.Kind != "restore" {
		t.Fatalf("with a member present, first action = %+v, want restore", act)
	}
	if len(w2.Members()) != 1 {
		t.Fatalf("restore changed the members: %v", w2.Members())
	}
}

func TestOneMemberPerReconcile(t *testing.T) {
	for _, n := range []int{1, 3, 7} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			r, w := chapter(true)
			r.Spec.Members = n
			o := New()
			o.Reconcile(r, w) // restore
			for i := 1; i <= n; i++ {
				act := o.Reconcile(r, w)
				want := Action{Kind: "create", Target: "db-" + strconv.Itoa(i)}
				if act != want {
					t.Fatalf("reconcile %d = %+v, want %+v", i, act, want)
				}
				if got := len(w.Members()); got != i {
					t.Fatalf("after %d reconciles %d members exist", i, got)
				}
				if r.Status.Phase != Creating {
					t.Fatalf("phase = %v, want Creating", r.Status.Phase)
				}
			}
			// Every member is there but none is ready: wait, create nothing.
			for i := 0; i < 3; i++ {
				if act := o.Reconcile(r, w); act.Kind != "noop" || r.Status.Phase != Creating {
					t.Fatalf("waiting reconcile = %+v, phase %v", act, r.Status.Phase)
				}
			}
			if len(w.Members()) != n {
				t.Fatalf("waiting created members: %v", w.Members())
			}
		})
	}
}

func TestRestoreNeverRepeats(t *testing.T) {
	r, w := chapter(true)
	o := New()
	toReady(t, o, r, w)
	// Everything is lost, and the backup too: the restore is a state already
	// reached, not a step to run again.
	for _, m := range w.Members() {
		w.Kill(m.Name)
	}
	w.SetBackup(backup, false)
	toReady(t, o, r, w)
	for i := 0; i < 10; i++ {
		if act := o.Reconcile(r, w); act.Kind == "restore" {
			t.Fatalf("reconcile %d restored again", i)
		}
	}
	if n := countLines(o.Log, backup+" から復元した"); n != 1 {
		t.Fatalf("restored %d times, want 1: %q", n, o.Log)
	}
}

func TestNothingHappensOnceReady(t *testing.T) {
	r, w := chapter(true)
	o := New()
	toReady(t, o, r, w)
	status, members, seq := r.Status, w.Members(), w.Seq()
	logLen := len(o.Log)
	for i := 0; i < 20; i++ {
		if act := o.Reconcile(r, w); act != (Action{Kind: "noop"}) {
			t.Fatalf("reconcile %d after Ready = %+v, want noop", i, act)
		}
		if r.Status != status {
			t.Fatalf("status changed from %+v to %+v", status, r.Status)
		}
		if !reflect.DeepEqual(w.Members(), members) || w.Seq() != seq {
			t.Fatalf("world changed: %v", w.Members())
		}
		if len(o.Log) != logLen {
			t.Fatalf("log grew: %q", o.Log[logLen:])
		}
	}
	if status.Members != 3 || status.Leader != "db-1" || !status.Restored {
		t.Fatalf("Ready status = %+v", status)
	}
}

func TestRecoversWhenEveryMemberIsGone(t *testing.T) {
	r, w := chapter(true)
	o := New()
	toReady(t, o, r, w)
	for _, m := range w.Members() {
		w.Kill(m.Name)
	}
	if len(w.Members()) != 0 {
		t.Fatal("Kill left members")
	}
	toReady(t, o, r, w)
	if got, want := memberNames(w), []string{"db-4", "db-5", "db-6"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("members = %v, want %v", got, want)
	}
	if r.Status.Leader != "db-4" || r.Status.Members != 3 {
		t.Fatalf("status = %+v, want leader db-4 and 3 members", r.Status)
	}
	if n := countLines(o.Log, backup+" から復元した"); n != 1 {
		t.Fatalf("restored %d times, want 1", n)
	}
	if countLines(o.Log, "リーダー db-1 が居なくなった") != 1 {
		t.Fatalf("log does not say the leader was lost: %q", o.Log)
	}
}

func TestMissingBackupIsDegradedWithoutMembers(t *testing.T) {
	r, w := chapter(false)
	o := New()
	for i := 0; i < 25; i++ {
		act := o.Reconcile(r, w)
		if act != (Action{Kind: "noop"}) {
			t.Fatalf("reconcile %d = %+v, want noop", i, act)
		}
		if r.Status.Phase != Degraded {
			t.Fatalf("phase = %v, want Degraded", r.Status.Phase)
		}
		if len(w.Members()) != 0 || w.Seq() != 0 {
			t.Fatalf("members created without the restore: %v", w.Members())
		}
		if r.Status.Restored || r.Status.Leader != "" {
			t.Fatalf("status = %+v", r.Status)
		}
	}
	// Run gives up after max calls and has not created anything either.
	o.Run(r, w, 30)
	if len(w.Members()) != 0 || r.Status.Phase != Degraded {
		t.Fatalf("Run with no backup: %+v, %v", r.Status, w.Members())
	}
}

func TestBackupPresentAgainFinishes(t *testing.T) {
	r, w := chapter(false)
	o := New()
	o.Reconcile(r, w)
	o.Reconcile(r, w)
	if r.Status.Phase != Degraded {
		t.Fatalf("phase = %v, want Degraded", r.Status.Phase)
	}
	w.SetBackup(backup, true)
	if act := o.Reconcile(r, w); act.Kind != "restore" {
		t.Fatalf("with the backup back, action = %+v, want restore", act)
	}
	toReady(t, o, r, w)
	if got := memberNames(w); !reflect.DeepEqual(got, []string{"db-1", "db-2", "db-3"}) {
		t.Fatalf("members = %v", got)
	}
}

func TestLostLeaderIsReelected(t *testing.T) {
	r, w := chapter(true)
	o := New()
	toReady(t, o, r, w)
	w.Kill("db-1")
	steps := []struct {
		start bool // StartPending before the reconcile
		want  Action
		phase Phase
	}{
		{false, Action{"create", "db-4"}, Creating},
		{false, Action{"noop", ""}, Creating}, // db-4 not ready yet
		{true, Action{"elect", "db-2"}, Creating},
		{false, Action{"noop", ""}, Ready},
	}
	for i, s := range steps {
		if s.start {
			w.StartPending()
		}
		if act := o.Reconcile(r, w); act != s.want || r.Status.Phase != s.phase {
			t.Fatalf("step %d: %+v in %v, want %+v in %v", i, act, r.Status.Phase, s.want, s.phase)
		}
	}
	if r.Status.Leader != "db-2" {
		t.Fatalf("leader = %q, want db-2", r.Status.Leader)
	}
	tail := o.Log[len(o.Log)-3:]
	if want := []string{"db-4 を作成", "リーダー db-1 が居なくなった", "db-2 をリーダーに選出"}; !reflect.DeepEqual(tail, want) {
		t.Fatalf("log tail = %q, want %q", tail, want)
	}
}

func TestLeaderNotReadyOrUnknownIsReplaced(t *testing.T) {
	tests := []struct {
		name   string
		leader string
	}{
		{"member not ready", "db-4"},
		{"no such member", "db-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w := chapter(true)
			o := New()
			toReady(t, o, r, w)
			w.create("db") // db-4, not ready
			r.Status.Leader = tt.leader
			if act := o.Reconcile(r, w); act != (Action{"elect", "db-1"}) {
				t.Fatalf("action = %+v, want elect db-1", act)
			}
			if got := o.Log[len(o.Log)-2]; got != "リーダー "+tt.leader+" が居なくなった" {
				t.Fatalf("log = %q", got)
			}
		})
	}
}

func TestChapterLogLines(t *testing.T) {
	tests := []struct {
		name    string
		present bool
		runs    []int // Run's max, call after call
		want    []string
	}{
		{"restore then build", true, []int{3, 50}, []string{
			"backup-07-28 から復元した",
			"db-1 を作成",
			"db-2 を作成",
			"db-3 を作成",
			"db-1 をリーダーに選出",
		}},
		{"backup missing", false, []int{3}, []string{
			"復元元 backup-07-28 が見つからない",
			"復元元 backup-07-28 が見つからない",
			"復元元 backup-07-28 が見つからない",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w := chapter(tt.present)
			o := New()
			for _, max := range tt.runs {
				o.Run(r, w, max)
			}
			if !reflect.DeepEqual(o.Log, tt.want) {
				t.Fatalf("log = %q\nwant  %q", o.Log, tt.want)
			}
		})
	}
}

func TestRunStopsAtReady(t *testing.T) {
	// restore, create ×3, elect, noop: Ready is reached on the sixth call,
	// and Run must return there rather than go on to max. Calls past Ready
	// change nothing visible, but every Reconcile allocates (it lists the
	// members), so a Run that went on would allocate in proportion to max.
	run := func(max int) func() {
		return func() {
			r, w := chapter(true)
			New().Run(r, w, max)
			if r.Status.Phase != Ready {
				t.Fatalf("Run(%d) ended in %v", max, r.Status.Phase)
			}
		}
	}
	short, long := testing.AllocsPerRun(5, run(6)), testing.AllocsPerRun(5, run(5000))
	if long != short {
		t.Fatalf("Run(5000) allocated %v times, Run(6) %v: Run went on past Ready", long, short)
	}
	tests := []struct {
		max   int
		phase Phase
		log   int
	}{
		{0, Pending, 0},
		{1, Restoring, 1},
		{4, Creating, 4},
		{5, Creating, 5}, // elected, not yet Ready
		{6, Ready, 5},
		{100, Ready, 5},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.max), func(t *testing.T) {
			r, w := chapter(true)
			o := New()
			o.Run(r, w, tt.max)
			if r.Status.Phase != tt.phase || len(o.Log) != tt.log {
				t.Fatalf("Run(%d): phase %v, %d log lines; want %v, %d", tt.max, r.Status.Phase, len(o.Log), tt.phase, tt.log)
			}
		})
	}
}

func TestMemberNamesAreNeverReused(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	r, w := chapter(true)
	o := New()
	seen := map[string]bool{}
	for i := 0; i < 3000; i++ {
		switch rng.Intn(4) {
		case 0:
			if ms := w.Members(); len(ms) > 0 {
				w.Kill(ms[rng.Intn(len(ms))].Name)
			}
		case 1:
			w.StartPending()
		case 2:
			r.Spec.Members = 1 + rng.Intn(MaxMembers)
		default:
			act := o.Reconcile(r, w)
			if act.Kind != "create" {
				continue
			}
			if seen[act.Target] {
				t.Fatalf("name %s reused", act.Target)
			}
			seen[act.Target] = true
			if want := "db-" + strconv.Itoa(w.Seq()); act.Target != want {
				t.Fatalf("created %s, want %s", act.Target, want)
			}
		}
	}
	if len(seen) < 50 {
		t.Fatalf("only %d members created; the walk proved little", len(seen))
	}
}

// TestPlanAgreesWithReconcile walks many reachable states and checks that
// Plan, which changes nothing, names the move Reconcile then makes.
func TestPlanAgreesWithReconcile(t *testing.T) {
	kinds := map[string]int{}
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		r, w := chapter(rng.Intn(3) > 0)
		if rng.Intn(5) == 0 {
			r.Spec.RestoreFrom = ""
		}
		o := New()
		for i := 0; i < 300; i++ {
			switch rng.Intn(8) {
			case 0:
				w.StartPending()
			case 1:
				if ms := w.Members(); len(ms) > 0 {
					w.Start(ms[rng.Intn(len(ms))].Name)
				}
			case 2:
				if rng.Intn(2) == 0 && r.Status.Leader != "" {
					w.Kill(r.Status.Leader)
				} else if ms := w.Members(); len(ms) > 0 {
					w.Kill(ms[rng.Intn(len(ms))].Name)
				}
			case 3:
				w.SetBackup(backup, rng.Intn(2) == 0)
			case 4:
				r.Spec.Members = 1 + rng.Intn(MaxMembers)
			default:
				beforeR, beforeW, seq := *r, w.Members(), w.Seq()
				plan := Plan(r, w)
				if *r != beforeR || !reflect.DeepEqual(w.Members(), beforeW) || w.Seq() != seq {
					t.Fatalf("Plan changed the resource or the world")
				}
				act := o.Reconcile(r, w)
				kinds[plan.Kind]++
				var ok bool
				switch plan.Kind {
				case "restore", "create", "elect":
					ok = act == plan
				case "wait":
					ok = act == (Action{Kind: "noop"}) && r.Status.Phase == Creating
				case "degraded":
					ok = act == (Action{Kind: "noop"}) && r.Status.Phase == Degraded && plan.Target == r.Spec.RestoreFrom
				case "noop":
					ok = act == plan && r.Status.Phase == Ready
				}
				if !ok {
					t.Fatalf("seed %d step %d: Plan %+v but Reconcile did %+v (phase %v); before %+v, world %v",
						seed, i, plan, act, r.Status.Phase, beforeR, beforeW)
				}
			}
		}
	}
	for _, k := range []string{"restore", "create", "wait", "elect", "degraded", "noop"} {
		if kinds[k] < 5 {
			t.Errorf("Plan %q seen %d times; the walk did not cover it", k, kinds[k])
		}
	}
}

func TestPhaseString(t *testing.T) {
	want := map[Phase]string{Pending: "Pending", Creating: "Creating", Restoring: "Restoring",
		Ready: "Ready", Degraded: "Degraded", Phase(5): "Unknown", Phase(-1): "Unknown"}
	for p, s := range want {
		if p.String() != s {
			t.Errorf("Phase(%d).String() = %q, want %q", int(p), p.String(), s)
		}
	}
}

func TestWorld(t *testing.T) {
	w := NewWorld("b", "a")
	if got := w.Backups(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("Backups() = %v", got)
	}
	w.SetBackup("a", false)
	w.SetBackup("c", true)
	if w.HasBackup("a") || !w.HasBackup("c") || !reflect.DeepEqual(w.Backups(), []string{"b", "c"}) {
		t.Fatalf("backups = %v", w.Backups())
	}
	for i := 0; i < 12; i++ {
		w.create("db")
	}
	ms := w.Members()
	for i := 1; i < len(ms); i++ {
		if ms[i-1].Name >= ms[i].Name {
			t.Fatalf("Members() not sorted: %v", ms)
		}
	}
	if !w.Start("db-10") || w.Start("db-10") || w.Start("db-99") {
		t.Fatal("Start must report true only for a member that was not ready")
	}
	if got := w.readyMembers(); len(got) != 1 || got[0].Name != "db-10" {
		t.Fatalf("ready = %v", got)
	}
	w.Kill("db-10")
	w.Kill("nobody")
	if len(w.Members()) != 11 || w.Seq() != 12 {
		t.Fatalf("after Kill: %d members, seq %d", len(w.Members()), w.Seq())
	}
}

func TestConditionsFollowThePhase(t *testing.T) {
	tests := []struct {
		phase                       Phase
		ready, progressing, degrade ConditionStatus
		readyReason                 string
	}{
		{Pending, ConditionUnknown, ConditionUnknown, ConditionUnknown, "NotReconciled"},
		{Restoring, ConditionFalse, ConditionTrue, ConditionFalse, "Restoring"},
		{Creating, ConditionFalse, ConditionTrue, ConditionFalse, "MembersNotReady"},
		{Ready, ConditionTrue, ConditionFalse, ConditionFalse, "AllMembersReady"},
		{Degraded, ConditionFalse, ConditionFalse, ConditionTrue, "BackupNotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.phase.String(), func(t *testing.T) {
			r, _ := chapter(true)
			r.Status.Phase = tt.phase
			cs := UpdateConditions(InitialConditions(0), r, time.Second)
			if len(cs) != 3 || cs[0].Type != TypeReady || cs[1].Type != TypeProgressing || cs[2].Type != TypeDegraded {
				t.Fatalf("conditions = %+v", cs)
			}
			got := []ConditionStatus{cs[0].Status, cs[1].Status, cs[2].Status}
			if want := []ConditionStatus{tt.ready, tt.progressing, tt.degrade}; !reflect.DeepEqual(got, want) {
				t.Fatalf("Ready/Progressing/Degraded = %v, want %v", got, want)
			}
			if cs[0].Reason != tt.readyReason {
				t.Fatalf("Ready reason = %q, want %q", cs[0].Reason, tt.readyReason)
			}
			for _, c := range cs {
				if c.Reason == "" || c.Message == "" {
					t.Fatalf("condition %s has no reason or message", c.Type)
				}
			}
		})
	}
}

func TestConditionsProgressingNamesTheLeader(t *testing.T) {
	r, _ := chapter(true)
	r.Status = Status{Phase: Creating, Members: 2, Leader: "db-2", Restored: true}
	cs := UpdateConditions(nil, r, 0)
	if cs[1].Reason != "LeaderElected" || !strings.Contains(cs[1].Message, "db-2") {
		t.Fatalf("Progressing = %+v", cs[1])
	}
	r.Status.Leader = ""
	cs = UpdateConditions(nil, r, 0)
	if cs[1].Reason != "Creating" || cs[1].Message != "2/3 members ready" {
		t.Fatalf("Progressing = %+v", cs[1])
	}
}

func TestConditionsLastTransitionTimeChangesOnlyWhenStatusFlips(t *testing.T) {
	steps := []struct {
		at    time.Duration
		phase Phase
		want  [3]time.Duration // Ready, Progressing, Degraded
	}{
		{1 * time.Second, Restoring, [3]time.Duration{1e9, 1e9, 1e9}}, // all flip from Unknown
		{2 * time.Second, Creating, [3]time.Duration{1e9, 1e9, 1e9}},  // reasons change, statuses do not
		{3 * time.Second, Creating, [3]time.Duration{1e9, 1e9, 1e9}},
		{4 * time.Second, Ready, [3]time.Duration{4e9, 4e9, 1e9}},
		{5 * time.Second, Ready, [3]time.Duration{4e9, 4e9, 1e9}},
		{6 * time.Second, Creating, [3]time.Duration{6e9, 6e9, 1e9}},
		{7 * time.Second, Degraded, [3]time.Duration{6e9, 7e9, 7e9}},
		{8 * time.Second, Degraded, [3]time.Duration{6e9, 7e9, 7e9}},
		{9 * time.Second, Pending, [3]time.Duration{9e9, 9e9, 9e9}},
	}
	r, _ := chapter(true)
	cs := InitialConditions(0)
	for _, c := range cs {
		if c.Status != ConditionUnknown || c.LastTransitionTime != 0 {
			t.Fatalf("initial condition %+v", c)
		}
	}
	for _, s := range steps {
		r.Status.Phase = s.phase
		prev := append([]Condition(nil), cs...)
		next := UpdateConditions(cs, r, s.at)
		if !reflect.DeepEqual(cs, prev) {
			t.Fatal("UpdateConditions modified its input")
		}
		got := [3]time.Duration{next[0].LastTransitionTime, next[1].LastTransitionTime, next[2].LastTransitionTime}
		if got != s.want {
			t.Fatalf("at %v (%v): LastTransitionTime = %v, want %v", s.at, s.phase, got, s.want)
		}
		cs = next
	}
}

func TestConditionsReasonIsRefreshedWithoutTransition(t *testing.T) {
	r, _ := chapter(true)
	r.Status.Phase = Restoring
	cs := UpdateConditions(nil, r, time.Second)
	r.Status.Phase = Creating
	cs = UpdateConditions(cs, r, 2*time.Second)
	if cs[0].Reason != "MembersNotReady" || cs[0].LastTransitionTime != time.Second {
		t.Fatalf("Ready = %+v: reason must be refreshed, transition time kept", cs[0])
	}
}

func TestRestoreWorld(t *testing.T) {
	many := func(n int) []Member {
		out := make([]Member, n)
		for i := range out {
			out[i] = Member{Name: "db-" + strconv.Itoa(i+1)}
		}
		return out
	}
	tests := []struct {
		name    string
		members []Member
		seq     int
		wantErr bool
	}{
		{"empty", nil, 0, false},
		{"members", []Member{{"db-3", true}, {"db-1", false}}, 3, false},
		{"at the bound", many(4 * MaxMembers), 4 * MaxMembers, false},
		{"too many", many(4*MaxMembers + 1), 4*MaxMembers + 1, true},
		{"negative seq", nil, -1, true},
		{"huge seq", nil, MaxSeq + 1, true},
		{"beyond seq", []Member{{"db-4", true}}, 3, true},
		{"zero", []Member{{"db-0", true}}, 3, true},
		{"leading zero", []Member{{"db-01", true}}, 3, true},
		{"plus", []Member{{"db-+1", true}}, 3, true},
		{"negative", []Member{{"db--1", true}}, 3, true},
		{"wrong prefix", []Member{{"pod-1", true}}, 3, true},
		{"prefix only", []Member{{"db-", true}}, 3, true},
		{"empty name", []Member{{"", true}}, 3, true},
		{"duplicate", []Member{{"db-1", true}, {"db-1", false}}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := RestoreWorld("db", tt.members, tt.seq, []string{backup})
			if tt.wantErr {
				if err == nil || w != nil {
					t.Fatalf("RestoreWorld = %v, %v; want an error and no world", w, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Seq() != tt.seq || !w.HasBackup(backup) || len(w.Members()) != len(tt.members) {
				t.Fatalf("world: seq %d, backups %v, members %v", w.Seq(), w.Backups(), w.Members())
			}
			for _, m := range tt.members {
				found := false
				for _, g := range w.Members() {
					found = found || g == m
				}
				if !found {
					t.Fatalf("member %+v not restored: %v", m, w.Members())
				}
			}
			// The next member continues the sequence.
			r := &Resource{Spec: Spec{Name: "db", Members: len(tt.members) + 1}}
			if act := New().Reconcile(r, w); act != (Action{"create", "db-" + strconv.Itoa(tt.seq+1)}) {
				t.Fatalf("next action = %+v, want create db-%d", act, tt.seq+1)
			}
		})
	}
}

func ExampleOperator_Run() {
	r := &Resource{Spec: Spec{Name: "db", Members: 3, RestoreFrom: "backup-07-28"}}
	w := NewWorld("backup-07-28")
	o := New()
	o.Run(r, w, 10)
	for _, l := range o.Log {
		fmt.Println(l)
	}
	fmt.Println(r.Status.Phase, r.Status.Leader)
	// Output:
	// backup-07-28 から復元した
	// db-1 を作成
	// db-2 を作成
	// db-3 を作成
	// db-1 をリーダーに選出
	// Ready db-1
}
