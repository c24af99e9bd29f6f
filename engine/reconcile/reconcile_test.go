package reconcile

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"testing"
)

// names returns the pod names of actions of the given kind, in order.
func names(actions []Action, kind string) []string {
	var out []string
	for _, a := range actions {
		if a.Kind == kind {
			out = append(out, a.Pod)
		}
	}
	return out
}

// podNames returns the names of the cluster's pods, as Pods orders them.
func podNames(cl *Cluster) []string {
	var out []string
	for _, p := range cl.Pods() {
		out = append(out, p.Name)
	}
	return out
}

// seqNames returns pod-from … pod-to.
func seqNames(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, "pod-"+strconv.Itoa(i))
	}
	return out
}

// converge reconciles and starts every pod, so the cluster holds desired
// Running pods.
func converge(t *testing.T, c *Controller, cl *Cluster) {
	t.Helper()
	c.Reconcile(cl)
	cl.StartPending()
	if !c.Converged(cl) {
		t.Fatalf("cluster did not converge to %d: %v", c.Desired(), cl.Pods())
	}
}

func TestNamesFollowCreationOrderAndAreNeverReused(t *testing.T) {
	c, cl := New(3), NewCluster()
	seen := map[string]bool{}
	var created []string
	record := func(actions []Action) {
		for _, n := range names(actions, "create") {
			if seen[n] {
				t.Fatalf("name %s reused", n)
			}
			seen[n] = true
			created = append(created, n)
		}
	}

	record(c.Reconcile(cl))
	if got := podNames(cl); !reflect.DeepEqual(got, seqNames(1, 3)) {
		t.Fatalf("first pods = %v, want pod-1..pod-3", got)
	}
	cl.StartPending()
	cl.Fail("pod-2")
	record(c.Reconcile(cl)) // pod-4 replaces pod-2
	c.SetDesired(0)
	record(c.Reconcile(cl)) // everything deleted
	if len(cl.Pods()) != 0 {
		t.Fatalf("desired 0 left pods %v", cl.Pods())
	}
	c.SetDesired(2)
	record(c.Reconcile(cl)) // pod-5, pod-6: the numbers of deleted pods are not reused

	if want := seqNames(1, 6); !reflect.DeepEqual(created, want) {
		t.Fatalf("created %v, want %v", created, want)
	}
	if got := cl.Seq(); got != 6 {
		t.Fatalf("Seq() = %d, want 6", got)
	}
	if got := podNames(cl); !reflect.DeepEqual(got, []string{"pod-5", "pod-6"}) {
		t.Fatalf("pods = %v, want [pod-5 pod-6]", got)
	}
}

func TestNegativeDesiredIsZero(t *testing.T) {
	for _, n := range []int{-1, -3, -1 << 40} {
		t.Run(fmt.Sprintf("New(%d)", n), func(t *testing.T) {
			c := New(n)
			if c.Desired() != 0 {
				t.Fatalf("New(%d).Desired() = %d, want 0", n, c.Desired())
			}
			cl := NewCluster()
			if acts := c.Reconcile(cl); acts != nil {
				t.Fatalf("Reconcile on an empty cluster with desired 0 = %v, want nil", acts)
			}
			if !c.Converged(cl) {
				t.Fatal("an empty cluster is not converged at desired 0")
			}
		})
		t.Run(fmt.Sprintf("SetDesired(%d)", n), func(t *testing.T) {
			c, cl := New(3), NewCluster()
			converge(t, c, cl)
			c.SetDesired(n)
			if c.Desired() != 0 {
				t.Fatalf("SetDesired(%d) → Desired() = %d, want 0", n, c.Desired())
			}
			acts := c.Reconcile(cl)
			if got := names(acts, "delete"); !reflect.DeepEqual(got, seqNames(1, 3)) {
				t.Fatalf("deleted %v, want every pod", got)
			}
			if len(cl.Pods()) != 0 {
				t.Fatalf("pods left: %v", cl.Pods())
			}
		})
	}
}

func TestFailedPodsAreDeletedFirst(t *testing.T) {
	tests := []struct {
		name    string
		pods    int
		fail    []string
		desired int
		want    []Action
	}{
		{"then create the shortfall", 5, []string{"pod-4", "pod-2"}, 5, []Action{
			{"delete", "pod-2"}, {"delete", "pod-4"}, {"create", "pod-6"}, {"create", "pod-7"}}},
		{"then delete the excess", 5, []string{"pod-2", "pod-4"}, 2, []Action{
			{"delete", "pod-2"}, {"delete", "pod-4"}, {"delete", "pod-5"}}},
		{"and nothing else when the rest match", 4, []string{"pod-1"}, 3, []Action{
			{"delete", "pod-1"}}},
		{"all failed, desired 0", 3, []string{"pod-3", "pod-1", "pod-2"}, 0, []Action{
			{"delete", "pod-1"}, {"delete", "pod-2"}, {"delete", "pod-3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, cl := New(tt.pods), NewCluster()
			converge(t, c, cl)
			for _, n := range tt.fail {
				cl.Fail(n)
			}
			c.SetDesired(tt.desired)
			if got := c.Reconcile(cl); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("actions = %v, want %v", got, tt.want)
			}
			cl.StartPending()
			if !c.Converged(cl) {
				t.Fatalf("not converged after one reconcile: %v", cl.Pods())
			}
		})
	}
}

func TestExcessIsDeletedFromTheEndOfNameOrder(t *testing.T) {
	// With more than 9 pods, name order is string order (sort.Strings):
	// pod-1 < pod-10 < pod-11 < pod-12 < pod-2 < … < pod-9. The pods kept
	// are the first desired of that order, not the oldest.
	all := seqNames(1, 12)
	sorted := append([]string(nil), all...)
	sort.Strings(sorted)
	if want := []string{"pod-1", "pod-10", "pod-11", "pod-12", "pod-2", "pod-3", "pod-4", "pod-5",
		"pod-6", "pod-7", "pod-8", "pod-9"}; !reflect.DeepEqual(sorted, want) {
		t.Fatalf("sort.Strings order = %v", sorted)
	}
	tests := []struct {
		desired int
		keep    []string
		deleted []string
	}{
		{11, []string{"pod-1", "pod-10", "pod-11", "pod-12", "pod-2", "pod-3", "pod-4", "pod-5", "pod-6", "pod-7", "pod-8"}, []string{"pod-9"}},
		{4, []string{"pod-1", "pod-10", "pod-11", "pod-12"}, []string{"pod-2", "pod-3", "pod-4", "pod-5", "pod-6", "pod-7", "pod-8", "pod-9"}},
		{3, []string{"pod-1", "pod-10", "pod-11"}, []string{"pod-12", "pod-2", "pod-3", "pod-4", "pod-5", "pod-6", "pod-7", "pod-8", "pod-9"}},
		{1, []string{"pod-1"}, sorted[1:]},
		{0, nil, sorted},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("12→%d", tt.desired), func(t *testing.T) {
			c, cl := New(12), NewCluster()
			converge(t, c, cl)
			if got := podNames(cl); !reflect.DeepEqual(got, sorted) {
				t.Fatalf("Pods() order = %v, want %v", got, sorted)
			}
			c.SetDesired(tt.desired)
			acts := c.Reconcile(cl)
			if len(names(acts, "create")) != 0 {
				t.Fatalf("scale down created pods: %v", acts)
			}
			if got := names(acts, "delete"); !reflect.DeepEqual(got, tt.deleted) {
				t.Fatalf("deleted %v, want %v", got, tt.deleted)
			}
			if got := podNames(cl); !reflect.DeepEqual(got, tt.keep) {
				t.Fatalf("kept %v, want %v", got, tt.keep)
			}
		})
	}
}

func TestIdempotentAfterConvergence(t *testing.T) {
	for _, desired := range []int{0, 1, 3, 10, 12} {
		t.Run(strconv.Itoa(desired), func(t *testing.T) {
			c, cl := New(desired), NewCluster()
			first := c.Reconcile(cl)
			if len(first) != desired {
				t.Fatalf("first reconcile made %d actions, want %d", len(first), desired)
			}
			// Pending pods are alive: reconciling before they start does nothing.
			pods, seq := cl.Pods(), cl.Seq()
			for i := 0; i < 3; i++ {
				if acts := c.Reconcile(cl); acts != nil {
					t.Fatalf("reconcile %d with pods Pending = %v, want nil", i, acts)
				}
			}
			cl.StartPending()
			for i := range pods {
				pods[i].Phase = Running
			}
			for i := 0; i < 5; i++ {
				if acts := c.Reconcile(cl); acts != nil {
					t.Fatalf("reconcile %d after convergence = %v, want nil", i, acts)
				}
				if got := cl.Pods(); !reflect.DeepEqual(got, pods) {
					t.Fatalf("pods changed to %v, were %v", got, pods)
				}
				if cl.Seq() != seq {
					t.Fatalf("Seq() changed from %d to %d", seq, cl.Seq())
				}
				if !c.Converged(cl) {
					t.Fatal("no longer converged")
				}
			}
		})
	}
}

func TestKilledPodIsRecreated(t *testing.T) {
	for _, kill := range []string{"pod-1", "pod-2", "pod-3"} {
		t.Run(kill, func(t *testing.T) {
			c, cl := New(3), NewCluster()
			converge(t, c, cl)
			cl.Fail(kill)
			if c.Converged(cl) {
				t.Fatal("converged with a Failed pod")
			}
			want := []Action{{"delete", kill}, {"create", "pod-4"}}
			if got := c.Reconcile(cl); !reflect.DeepEqual(got, want) {
				t.Fatalf("actions = %v, want %v", got, want)
			}
			for _, p := range cl.Pods() {
				if p.Name == kill {
					t.Fatalf("killed pod %s still present", kill)
				}
			}
			if got := cl.Pods(); len(got) != 3 || got[len(got)-1] != (Pod{"pod-4", Pending}) {
				t.Fatalf("pods = %v, want 3 with pod-4 Pending", got)
			}
			cl.StartPending()
			if !c.Converged(cl) {
				t.Fatalf("not converged after recreation: %v", cl.Pods())
			}
		})
	}
}

func TestChangingDesiredFillsOrTrims(t *testing.T) {
	tests := []struct {
		from, to int
		want     []Action
	}{
		{3, 5, []Action{{"create", "pod-4"}, {"create", "pod-5"}}},
		{2, 5, []Action{{"create", "pod-3"}, {"create", "pod-4"}, {"create", "pod-5"}}},
		{5, 2, []Action{{"delete", "pod-3"}, {"delete", "pod-4"}, {"delete", "pod-5"}}},
		{3, 0, []Action{{"delete", "pod-1"}, {"delete", "pod-2"}, {"delete", "pod-3"}}},
		{0, 4, []Action{{"create", "pod-1"}, {"create", "pod-2"}, {"create", "pod-3"}, {"create", "pod-4"}}},
		{3, 3, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d→%d", tt.from, tt.to), func(t *testing.T) {
			c, cl := New(tt.from), NewCluster()
			converge(t, c, cl)
			c.SetDesired(tt.to)
			if c.Desired() != tt.to {
				t.Fatalf("Desired() = %d, want %d", c.Desired(), tt.to)
			}
			if got := c.Reconcile(cl); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("actions = %v, want %v", got, tt.want)
			}
			cl.StartPending()
			if !c.Converged(cl) || len(cl.Pods()) != tt.to {
				t.Fatalf("pods = %v, want %d Running", cl.Pods(), tt.to)
			}
		})
	}
}

func TestLevelTriggeredOneReconcileRestoresEveryFailure(t *testing.T) {
	tests := []struct {
		name string
		n    int
		fail []string
	}{
		{"three of three", 3, []string{"pod-1", "pod-2", "pod-3"}},
		{"three of five", 5, []string{"pod-5", "pod-1", "pod-3"}},
		{"three of twelve", 12, []string{"pod-12", "pod-2", "pod-10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.n
			c, cl := New(n), NewCluster()
			converge(t, c, cl)
			for _, p := range tt.fail { // three missed events, no reconcile between them
				cl.Fail(p)
			}
			acts := c.Reconcile(cl)
			del := append([]string(nil), tt.fail...)
			sort.Strings(del)
			if got := names(acts, "delete"); !reflect.DeepEqual(got, del) {
				t.Fatalf("deleted %v, want %v", got, del)
			}
			if got := names(acts, "create"); !reflect.DeepEqual(got, seqNames(n+1, n+3)) {
				t.Fatalf("created %v, want %v", got, seqNames(n+1, n+3))
			}
			cl.StartPending()
			if !c.Converged(cl) {
				t.Fatalf("one reconcile did not restore: %v", cl.Pods())
			}
			if acts := c.Reconcile(cl); acts != nil {
				t.Fatalf("second reconcile = %v, want nil", acts)
			}
		})
	}
}

func TestConverged(t *testing.T) {
	tests := []struct {
		name    string
		desired int
		pods    []Phase
		want    bool
	}{
		{"empty at 0", 0, nil, true},
		{"empty at 3", 3, nil, false},
		{"all Running", 3, []Phase{Running, Running, Running}, true},
		{"one Pending", 3, []Phase{Running, Pending, Running}, false},
		{"all Pending", 3, []Phase{Pending, Pending, Pending}, false},
		{"one Failed", 3, []Phase{Running, Running, Running, Failed}, false},
		{"Failed only at 0", 0, []Phase{Failed}, false},
		{"too few", 3, []Phase{Running, Running}, false},
		{"too many", 2, []Phase{Running, Running, Running}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pods []Pod
			for i, ph := range tt.pods {
				pods = append(pods, Pod{Name: "pod-" + strconv.Itoa(i+1), Phase: ph})
			}
			cl, err := Restore(pods, len(pods))
			if err != nil {
				t.Fatal(err)
			}
			if got := New(tt.desired).Converged(cl); got != tt.want {
				t.Fatalf("Converged = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPodsAreSortedCopies(t *testing.T) {
	c, cl := New(11), NewCluster()
	c.Reconcile(cl)
	pods := cl.Pods()
	if !sort.SliceIsSorted(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name }) {
		t.Fatalf("Pods() not sorted: %v", pods)
	}
	pods[0].Phase = Failed // a copy: the cluster must not change
	if cl.Pods()[0].Phase != Pending {
		t.Fatal("Pods() returned the cluster's own pods")
	}
}

func TestPhaseString(t *testing.T) {
	for ph, want := range map[Phase]string{Pending: "Pending", Running: "Running", Failed: "Failed", Phase(7): "Unknown", Phase(-1): "Unknown"} {
		if got := ph.String(); got != want {
			t.Errorf("Phase(%d).String() = %q, want %q", int(ph), got, want)
		}
	}
}

func TestStartRunsOnlyThatPendingPod(t *testing.T) {
	c, cl := New(3), NewCluster()
	c.Reconcile(cl)
	cl.Fail("pod-3")
	tests := []struct {
		name string
		want bool
	}{
		{"pod-1", true},  // Pending → Running
		{"pod-1", false}, // already Running
		{"pod-3", false}, // Failed stays Failed
		{"pod-9", false}, // unknown
		{"", false},
	}
	for _, tt := range tests {
		if got := cl.Start(tt.name); got != tt.want {
			t.Fatalf("Start(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	want := []Pod{{"pod-1", Running}, {"pod-2", Pending}, {"pod-3", Failed}}
	if got := cl.Pods(); !reflect.DeepEqual(got, want) {
		t.Fatalf("pods = %v, want %v", got, want)
	}
}

func TestSeqCountsEveryCreation(t *testing.T) {
	c, cl := New(2), NewCluster()
	if cl.Seq() != 0 {
		t.Fatalf("new cluster Seq() = %d", cl.Seq())
	}
	steps := []struct {
		do   func()
		want int
	}{
		{func() { c.Reconcile(cl) }, 2},
		{func() { cl.StartPending(); c.Reconcile(cl) }, 2},
		{func() { cl.Fail("pod-1"); c.Reconcile(cl) }, 3},
		{func() { c.SetDesired(0); c.Reconcile(cl) }, 3},
		{func() { c.SetDesired(4); c.Reconcile(cl) }, 7},
	}
	for i, s := range steps {
		s.do()
		if cl.Seq() != s.want {
			t.Fatalf("step %d: Seq() = %d, want %d", i, cl.Seq(), s.want)
		}
		for _, p := range cl.Pods() {
			n, _ := strconv.Atoi(p.Name[len("pod-"):])
			if n > cl.Seq() {
				t.Fatalf("step %d: pod %s beyond Seq() %d", i, p.Name, cl.Seq())
			}
		}
	}
}

// TestWouldAgreesWithReconcile builds many reachable states and checks that
// Would, which changes nothing, predicts what the next Reconcile does.
func TestWouldAgreesWithReconcile(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	c, cl := New(3), NewCluster()
	checked := map[[3]int]bool{}
	for i := 0; i < 5000; i++ {
		switch rng.Intn(6) {
		case 0:
			c.SetDesired(rng.Intn(15) - 2)
		case 1:
			cl.StartPending()
		case 2, 3:
			if pods := cl.Pods(); len(pods) > 0 {
				p := pods[rng.Intn(len(pods))]
				if rng.Intn(2) == 0 {
					cl.Fail(p.Name)
				} else {
					cl.Start(p.Name)
				}
			}
		default:
			before, seq := cl.Pods(), cl.Seq()
			df, cr, de := c.Would(cl)
			if got := cl.Pods(); !reflect.DeepEqual(got, before) || cl.Seq() != seq {
				t.Fatalf("Would changed the cluster: %v → %v", before, got)
			}
			failed := map[string]bool{}
			for _, p := range before {
				if p.Phase == Failed {
					failed[p.Name] = true
				}
			}
			acts := c.Reconcile(cl)
			var gf, gc, ge int
			for j, a := range acts {
				switch {
				case a.Kind == "delete" && failed[a.Pod]:
					gf++
					if j != gf-1 {
						t.Fatalf("Failed pod %s deleted after another action: %v", a.Pod, acts)
					}
				case a.Kind == "delete":
					ge++
				case a.Kind == "create":
					gc++
				default:
					t.Fatalf("unknown action %v", a)
				}
			}
			if [3]int{df, cr, de} != [3]int{gf, gc, ge} {
				t.Fatalf("state %v desired %d: Would = %d,%d,%d; Reconcile did %d,%d,%d (%v)",
					before, c.Desired(), df, cr, de, gf, gc, ge, acts)
			}
			if (df+cr+de == 0) != (acts == nil) {
				t.Fatalf("Would all zero = %v but actions = %v", df+cr+de == 0, acts)
			}
			checked[[3]int{min(df, 1), min(cr, 1), min(de, 1)}] = true
		}
	}
	// The walk must have seen every kind of difference, or it proved little.
	for _, k := range [][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, 0, 1}} {
		if !checked[k] {
			t.Errorf("no state with Would pattern %v was checked", k)
		}
	}
}

func TestRestore(t *testing.T) {
	tests := []struct {
		name    string
		pods    []Pod
		seq     int
		wantErr bool
	}{
		{"empty", nil, 0, false},
		{"empty with seq", nil, 9, false},
		{"every phase", []Pod{{"pod-3", Failed}, {"pod-1", Running}, {"pod-2", Pending}}, 3, false},
		{"name at seq", []Pod{{"pod-5", Running}}, 5, false},
		{"max pods", maxPods(MaxPods), MaxPods, false},
		{"negative seq", nil, -1, true},
		{"huge seq", nil, MaxSeq + 1, true},
		{"too many pods", maxPods(MaxPods + 1), MaxPods + 1, true},
		{"name beyond seq", []Pod{{"pod-4", Running}}, 3, true},
		{"pod-0", []Pod{{"pod-0", Running}}, 3, true},
		{"negative number", []Pod{{"pod--1", Running}}, 3, true},
		{"plus sign", []Pod{{"pod-+1", Running}}, 3, true},
		{"leading zero", []Pod{{"pod-01", Running}}, 3, true},
		{"no number", []Pod{{"pod-", Running}}, 3, true},
		{"wrong prefix", []Pod{{"db-1", Running}}, 3, true},
		{"no prefix", []Pod{{"1", Running}}, 3, true},
		{"empty name", []Pod{{"", Running}}, 3, true},
		{"trailing space", []Pod{{"pod-1 ", Running}}, 3, true},
		{"duplicate", []Pod{{"pod-1", Running}, {"pod-1", Failed}}, 3, true},
		{"phase -1", []Pod{{"pod-1", Phase(-1)}}, 3, true},
		{"phase 3", []Pod{{"pod-1", Phase(3)}}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, err := Restore(tt.pods, tt.seq)
			if tt.wantErr {
				if err == nil || cl != nil {
					t.Fatalf("Restore = %v, %v; want an error and no cluster", cl, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := append([]Pod(nil), tt.pods...)
			sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
			if got := cl.Pods(); len(want) > 0 && !reflect.DeepEqual(got, want) || len(want) == 0 && len(got) != 0 {
				t.Fatalf("Pods() = %v, want %v", got, want)
			}
			if cl.Seq() != tt.seq {
				t.Fatalf("Seq() = %d, want %d", cl.Seq(), tt.seq)
			}
			// The next pod continues the sequence.
			alive := 0
			for _, p := range cl.Pods() {
				if p.Phase != Failed {
					alive++
				}
			}
			acts := New(alive + 1).Reconcile(cl)
			if got := names(acts, "create"); !reflect.DeepEqual(got, []string{"pod-" + strconv.Itoa(tt.seq+1)}) {
				t.Fatalf("next created %v, want [pod-%d]", got, tt.seq+1)
			}
		})
	}
}

func maxPods(n int) []Pod {
	out := make([]Pod, n)
	for i := range out {
		out[i] = Pod{Name: "pod-" + strconv.Itoa(i+1), Phase: Running}
	}
	return out
}

func TestRestoreDoesNotAliasInput(t *testing.T) {
	pods := []Pod{{"pod-1", Running}}
	cl, err := Restore(pods, 1)
	if err != nil {
		t.Fatal(err)
	}
	pods[0].Phase = Failed
	if cl.Pods()[0].Phase != Running {
		t.Fatal("Restore kept a reference to the caller's slice")
	}
}
