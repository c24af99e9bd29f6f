package controlplane

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// roundTrip restores d's snapshot as the server does (the page's JSON) and
// checks the restored demo writes the same snapshot and renders the same
// cluster.
func roundTrip(t *testing.T, d *Demo) *Demo {
	t.Helper()
	raw := demo.MustJSON(d.Snapshot())
	in, err := Kind.Restore(demo.Options{}, json.RawMessage(raw))
	if err != nil {
		t.Fatalf("restore: %v\n%s", err, raw)
	}
	r := in.(*Demo)
	if again := demo.MustJSON(r.Snapshot()); again != raw {
		t.Fatalf("round trip:\n got %s\nwant %s", again, raw)
	}
	checkClock(t, r)
	if len(raw) > 6<<10 {
		t.Fatalf("snapshot of %d bytes", len(raw))
	}
	return r
}

// A snapshot restores the demo at every stage: the guide (replayed, so the
// diagram comes back), the live cluster with messages in flight, a stopped
// scheduler waiting to restart, a dead node with its eviction pending, the
// pace and the quiz.
func TestSnapshotRoundTrip(t *testing.T) {
	d := NewDemo()
	roundTrip(t, d)
	for range 6 {
		_, _ = d.Next()
	}
	r := roundTrip(t, d)
	if len(r.c.Messages()) != 6 || r.Now() != d.Now() {
		t.Fatal("the guide's diagram did not come back")
	}
	must(t, d.SetRuntime(cp.RuntimeDockershim))
	roundTrip(t, d)
	d.FinishGuide()
	d.SetSpeed(sim.Half)
	roundTrip(t, d)
	must(t, d.SetReplicas(7))
	d.Advance(300 * time.Millisecond)
	if len(d.Cluster().InFlight()) == 0 {
		t.Fatal("nothing in flight to snapshot")
	}
	r = roundTrip(t, d)
	// The restored demo carries on as the original does.
	d.Advance(20 * time.Second)
	r.Advance(20 * time.Second)
	if demo.MustJSON(d.Snapshot()) != demo.MustJSON(r.Snapshot()) {
		t.Fatal("the restored demo diverged")
	}
	must(t, d.Preset(QuizScheduler))
	d.SetPaused(true)
	r = roundTrip(t, d)
	if r.Quiz() != QuizScheduler || !r.Paused() || r.Speed() != sim.Half {
		t.Fatal("quiz or pace lost")
	}
	d.SetPaused(false)
	must(t, d.Preset(QuizNode))
	must(t, d.Skip())
	settle(t, d)
	r = roundTrip(t, d)
	if r.next(ui.Ja).Kind != d.next(ui.Ja).Kind {
		t.Fatal("the restored demo waits for something else")
	}
}

// The largest snapshot the demo can write stays under 6 KB: ten replicas
// placed on one node while two dead nodes hold their pods Terminating, with
// messages in flight.
func TestSnapshotStaysSmall(t *testing.T) {
	d := live(t)
	must(t, d.SetReplicas(cp.MaxReplicas))
	settle(t, d)
	d.Advance(30 * time.Second)
	must(t, d.SetNode("node-1", false))
	must(t, d.SetNode("node-2", false))
	biggest := 0
	for range 40 {
		if err := d.Skip(); err != nil {
			break
		}
		biggest = max(biggest, len(demo.MustJSON(d.Snapshot())))
	}
	d.SetRuntime(cp.RuntimeDockershim)
	must(t, d.SetNode("node-1", true))
	for range 200 {
		if d.Step() != nil {
			break
		}
		biggest = max(biggest, len(demo.MustJSON(d.Snapshot())))
	}
	t.Logf("the biggest snapshot: %d bytes", biggest)
	if biggest > 6<<10 || biggest < 2<<10 {
		t.Fatalf("the biggest snapshot is %d bytes", biggest)
	}
}

// Pages keep snapshots the server wrote before the engine's snapshot
// version 2 (taints, podIPs, Ready, readyReplicas, per-pod tolerations):
// they still restore, write version 2 from then on and render. The
// v1-*.json files are the snapshots of this package's goldens as they were
// then.
func TestOldSnapshotsRestore(t *testing.T) {
	for _, name := range []string{"v1-guide-5", "v1-live", "v1-scheduler-outage", "v1-node-outage"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile("testdata/" + name + ".json")
			must(t, err)
			var old Snapshot
			must(t, json.Unmarshal(raw, &old))
			if old.Cluster.V != 1 {
				t.Fatalf("%s holds cluster version %d", name, old.Cluster.V)
			}
			in, err := Kind.Restore(demo.Options{}, json.RawMessage(raw))
			if err != nil {
				t.Fatal(err)
			}
			d := in.(*Demo)
			if d.Now() != time.Duration(old.Now)*time.Millisecond || d.Quiz() != old.Quiz {
				t.Fatalf("restored at %v, quiz %q", d.Now(), d.Quiz())
			}
			if v := d.Snapshot().Cluster.V; v != cp.SnapshotVersion {
				t.Fatalf("writes cluster version %d", v)
			}
			roundTrip(t, d)
			d.Advance(10 * time.Minute)
			live := demo.Wrap(&Kind, d)
			for _, l := range []ui.Lang{ui.Ja, ui.En} {
				demotest.RenderAll(t, live, demo.View{Lang: l, SID: "s"})
			}
		})
	}
}

// Forged or stale snapshots are refused, never half-restored.
func TestSnapshotForged(t *testing.T) {
	d := live(t)
	must(t, d.SetReplicas(4))
	d.Advance(300 * time.Millisecond)
	good := demo.MustJSON(d.Snapshot())
	guide := demo.MustJSON(NewDemo().Snapshot())
	for _, tc := range []struct {
		name, raw string
	}{
		{"another kind", strings.Replace(good, `"kind":"controlplane"`, `"kind":"reconcile"`, 1)},
		{"another version", strings.Replace(good, `"v":1,"kind"`, `"v":2,"kind"`, 1)},
		{"another seed", strings.Replace(good, `"seed":"4"`, `"seed":"5"`, 1)},
		{"a seed that is not a number", strings.Replace(guide, `"seed":"4"`, `"seed":"four"`, 1)},
		{"an unknown quiz", strings.TrimSuffix(good, "}") + `,"quiz":"etcd-outage"}`},
		{"a quiz during the guide", strings.TrimSuffix(guide, "}") + `,"quiz":"node-outage"}`},
		{"the clock ahead of the cluster", strings.Replace(good, `"now":`+nowOf(good), `"now":`+nowOf(good)+`1`, 1)},
		{"a guide step out of range", strings.Replace(guide, `"guide":0`, `"guide":12`, 1)},
		{"a live cluster during the guide", strings.Replace(good, `"guide":11`, `"guide":10`, 1)},
		{"an unknown field", strings.TrimSuffix(good, "}") + `,"admin":true}`},
		{"data after the object", good + `{}`},
		{"an unknown speed", strings.Replace(good, `"speed":"1"`, `"speed":"3"`, 1)},
		{"eleven replicas", strings.Replace(good, `"replicas":4`, `"replicas":11`, 1)},
		{"a runtime that is not one", strings.Replace(good, `"runtime":"containerd"`, `"runtime":"docker"`, 1)},
		{"a negative base", strings.TrimSuffix(good, "}") + `,"base":-1}`},
		{"a base that does not add up", strings.TrimSuffix(good, "}") + `,"base":1000}`},
		{"a base out of range", strings.TrimSuffix(good, "}") + `,"base":1000000000001}`},
		{"a base that is not whole", strings.TrimSuffix(good, "}") + `,"base":1.5}`},
		{"a base of the wrong type", strings.TrimSuffix(good, "}") + `,"base":"0"}`},
	} {
		if tc.raw == good {
			t.Fatalf("%s: the forgery did not change the snapshot", tc.name)
		}
		if _, err := Kind.Restore(demo.Options{}, json.RawMessage(tc.raw)); err == nil {
			t.Errorf("%s was restored:\n%s", tc.name, tc.raw)
		}
	}
	if _, err := Kind.Restore(demo.Options{}, json.RawMessage(good)); err != nil {
		t.Fatalf("the good snapshot: %v", err)
	}
}

// nowOf returns the envelope's "now" of a snapshot's JSON.
func nowOf(raw string) string {
	i := strings.Index(raw, `"now":`) + len(`"now":`)
	j := i
	for j < len(raw) && raw[j] >= '0' && raw[j] <= '9' {
		j++
	}
	return raw[i:j]
}

// A session advances by the real time it measured, scaled by the speed:
// never whole milliseconds. Every snapshot taken along the node story
// restores (the engine keeps the rest under a millisecond), at any speed.
func TestSnapshotsOfRealTimeRestore(t *testing.T) {
	for _, sp := range []sim.Speed{sim.Half, sim.Normal, sim.Double} {
		d := live(t)
		d.SetSpeed(sp)
		step := 16*time.Millisecond + 666*time.Microsecond + 7 // a 60 Hz frame, give or take
		for i := range 6000 {
			switch i {
			case 10:
				must(t, d.Preset(QuizNode))
			case 200:
				_ = d.Skip()
			case 400:
				must(t, d.SetReplicas(8))
			}
			d.Advance(step)
			if i%50 == 0 {
				roundTrip(t, d)
			}
		}
	}
}

// A demo reset or stepped back keeps its time in the snapshot's base: it
// restores at the same time, with the same base, and the clock still never
// goes back; a snapshot without a base (written before it) is base 0.
func TestSnapshotKeepsTheBase(t *testing.T) {
	d := live(t)
	d.Advance(97*time.Millisecond + 13*time.Microsecond)
	d.Reset()
	if d.Base() == 0 || d.Base()%time.Millisecond != 0 {
		t.Fatalf("base %v after a reset live", d.Base())
	}
	r := roundTrip(t, d)
	if r.Base() != d.Base() || r.Now() != d.Now() {
		t.Fatalf("restored at %v after %v, want %v after %v", r.Now(), r.Base(), d.Now(), d.Base())
	}
	for range 3 {
		_, _ = r.Next()
	}
	before := r.Now()
	must(t, r.Back())
	if r.Now() != before {
		t.Fatalf("Back moved the restored clock from %v to %v", before, r.Now())
	}
	roundTrip(t, r)
	if raw := demo.MustJSON(NewDemo().Snapshot()); strings.Contains(raw, `"base"`) {
		t.Fatalf("a base of 0 is written: %s", raw)
	}
}
