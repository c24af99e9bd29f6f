package controlplane

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// frames lets dt pass in 100 ms frames, as a page at 1× sees it.
func frames(d *Demo, dt time.Duration) {
	for ; dt > 0; dt -= 100 * time.Millisecond {
		d.Advance(min(dt, 100*time.Millisecond))
	}
}

// skipToEvent skips to the next event until the log holds one that ok
// accepts.
func skipToEvent(t *testing.T, d *Demo, ok func(cp.Event) bool) {
	t.Helper()
	for range 50 {
		if slices.ContainsFunc(d.Cluster().Events(), ok) {
			return
		}
		must(t, d.Apply(demo.Command{Action: "skip"}))
	}
	t.Fatal("the event never came")
}

func evicted(e cp.Event) bool {
	return e.Kind == cp.EventPodTerminating && e.Status == cp.ReasonEvict
}

// outage is ten pods on three nodes, the quiz's node outage set up (node-1,
// the node with the most pods, stops) and skipped through to the eviction:
// the other two nodes have room for only two of node-1's four pods.
func outage(t *testing.T) *Demo {
	d := live(t)
	must(t, d.Apply(demo.Command{Action: "set-replicas", N: 10}))
	settle(t, d)
	must(t, d.Apply(demo.Command{Action: "preset", Name: QuizNode}))
	skipToEvent(t, d, evicted)
	settle(t, d)
	return d
}

// The marks are what the cluster did on its own, as the log holds it, in
// the demo's time: a node gone Unknown and back Ready, its taint, its pods
// evicted (one mark per node and instant), a pod the scheduler could not
// place (its first attempt, not the retries). Nothing the visitor did is
// one, nor anything routine: the guide, a scheduler outage and its pods
// waiting Pending.
func TestMarks(t *testing.T) {
	type want struct {
		at     time.Duration
		ja, en string
	}
	unplaced := func(pod string) want {
		return want{ja: "FailedScheduling: " + pod + " を置けるノードがない", en: "FailedScheduling: no node for " + pod}
	}
	lost := []want{
		{50200 * time.Millisecond, "node-1 が Unknown に(ハートビートが途絶えた)", "node-1 went Unknown (no heartbeat)"},
		{50400 * time.Millisecond, "node controller: node-1 に taint unreachable", "node controller: node-1 tainted unreachable"},
		{350600 * time.Millisecond, "node-1 の Pod 4 個を立ち退き", "node-1: pods evicted (4)"},
		unplaced("web-5846cdcf6d-7t59n"),
		unplaced("web-5846cdcf6d-pq4vp"),
	}
	lost[3].at, lost[4].at = 351400*time.Millisecond, 351600*time.Millisecond
	for _, tc := range []struct {
		name  string
		build func(t *testing.T) *Demo
		want  []want
	}{
		{"the guide's apply", func(t *testing.T) *Demo { return live(t) }, nil},
		{"a scheduler outage", func(t *testing.T) *Demo {
			d := live(t)
			must(t, d.Apply(demo.Command{Action: "preset", Name: QuizScheduler}))
			frames(d, 2*time.Minute)
			return d
		}, nil},
		{"a stopped kubelet", func(t *testing.T) *Demo {
			d := live(t)
			must(t, d.Apply(demo.Command{Action: "node", Name: "node-2", On: false}))
			frames(d, time.Minute)
			return d
		}, []want{
			{50200 * time.Millisecond, "node-2 が Unknown に(ハートビートが途絶えた)", "node-2 went Unknown (no heartbeat)"},
			{50400 * time.Millisecond, "node controller: node-2 に taint unreachable", "node controller: node-2 tainted unreachable"},
		}},
		{"a node lost, its pods evicted", outage, lost},
		{"the node back", func(t *testing.T) *Demo {
			d := outage(t)
			if d.Now() != 353400*time.Millisecond {
				t.Fatalf("node-1 starts at %v", d.Now())
			}
			must(t, d.Apply(demo.Command{Action: "node", Name: "node-1", On: true})) // its Ready lands 200 ms later
			settle(t, d)
			// The scheduler tried the two pods again when node-1 came
			// back: retries are no marks.
			if !slices.ContainsFunc(d.Cluster().Events(), func(e cp.Event) bool { return e.Kind == cp.EventFailedScheduling && e.N > 1 }) {
				t.Fatal("no retry in the log")
			}
			return d
		}, append(slices.Clone(lost), want{353600 * time.Millisecond, "node-1 が Ready に戻った", "node-1 is Ready again"})},
		{"after a reset, in the demo's time", func(t *testing.T) *Demo {
			d := live(t)
			frames(d, 10*time.Second)
			must(t, d.Apply(demo.Command{Action: "reset"}))
			must(t, d.Apply(demo.Command{Action: "guided-finish"}))
			settle(t, d)
			must(t, d.Apply(demo.Command{Action: "node", Name: "node-3", On: false}))
			frames(d, time.Minute)
			if d.Base() != 15350*time.Millisecond {
				t.Fatalf("base %v", d.Base())
			}
			return d
		}, []want{
			{(15350 + 50200) * time.Millisecond, "node-3 が Unknown に(ハートビートが途絶えた)", "node-3 went Unknown (no heartbeat)"},
			{(15350 + 50400) * time.Millisecond, "node controller: node-3 に taint unreachable", "node controller: node-3 tainted unreachable"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.build(t)
			for _, l := range []ui.Lang{ui.Ja, ui.En} {
				var want []ui.TimelineMark
				for _, w := range tc.want {
					label := w.ja
					if l == ui.En {
						label = w.en
					}
					want = append(want, ui.TimelineMark{At: w.at.Milliseconds(), Kind: "event", Label: label})
				}
				if got := d.Marks(l); !slices.Equal(got, want) {
					t.Errorf("%s marks:\n got %s\nwant %s", l, dump(got), dump(want))
				}
			}
		})
	}
}

func dump(ms []ui.TimelineMark) string {
	s := ""
	for _, m := range ms {
		s += fmt.Sprintf("\n  %d %s %q", m.At, m.Kind, m.Label)
	}
	return s
}

// MarksKey changes in the frame a mark appears, and in no other: a node
// stopped, then a minute of 100 ms frames, of which two bring a mark (the
// node Unknown, its taint).
func TestMarksKeyChangesWithTheMarks(t *testing.T) {
	d := live(t)
	key, marks := d.MarksKey(), d.Marks(ui.Ja)
	must(t, d.Apply(demo.Command{Action: "node", Name: "node-2", On: false}))
	changes := 0
	for range 600 {
		d.Advance(100 * time.Millisecond)
		k, ms := d.MarksKey(), d.Marks(ui.Ja)
		if (k != key) != !slices.Equal(ms, marks) {
			t.Fatalf("at %v the key changed %v, the marks %v → %v", d.Now(), k != key, dump(marks), dump(ms))
		}
		if k != key {
			changes++
		}
		key, marks = k, ms
	}
	if changes != 2 {
		t.Errorf("the key changed in %d frames, want 2 (Unknown, taint)", changes)
	}
}

// The log is not in the snapshot: a restored demo marks only what happens
// after it, and that just as the demo it was restored from does.
func TestMarksAfterRestore(t *testing.T) {
	d := live(t)
	must(t, d.Apply(demo.Command{Action: "set-replicas", N: 10}))
	settle(t, d)
	must(t, d.Apply(demo.Command{Action: "preset", Name: QuizNode}))
	frames(d, 55*time.Second) // Unknown and the taint, not yet the eviction
	before := d.Marks(ui.Ja)
	if len(before) != 2 {
		t.Fatalf("marks before the snapshot: %s", dump(before))
	}
	in, err := Kind.Restore(demo.Options{}, json.RawMessage(demo.MustJSON(d.Snapshot())))
	if err != nil {
		t.Fatal(err)
	}
	r := in.(*Demo)
	if got := r.Marks(ui.Ja); len(got) != 0 {
		t.Errorf("a restored demo marks %s, want none (its log starts afresh)", dump(got))
	}
	if r.MarksKey() == d.MarksKey() {
		t.Error("the restored demo's marks key is the original's")
	}
	skipToEvent(t, d, evicted)
	skipToEvent(t, r, evicted)
	settle(t, d)
	settle(t, r)
	got, want := r.Marks(ui.En), d.Marks(ui.En)[len(before):]
	if len(got) != 3 || !slices.Equal(got, want) {
		t.Errorf("after the restore:\n got %s\nwant %s", dump(got), dump(want))
	}
}

// The timeline under the demo draws each mark at its time, as an event.
func TestTimelineDrawsTheMarks(t *testing.T) {
	l := demo.Wrap(&Kind, outage(t))
	for _, lang := range []ui.Lang{ui.Ja, ui.En} {
		html := demotest.RenderAll(t, l, demo.View{Lang: lang, SID: demotest.SID})[Prefix+"-timeline-marks"]
		var got []string
		for _, n := range demotest.ByTestID(demotest.Parse(t, html)[0], "timeline-mark") {
			if demotest.Attr(n, "data-kind") == "event" {
				got = append(got, demotest.Attr(n, "data-at")+" "+demotest.Attr(n, "title"))
			}
		}
		var want []string
		for _, m := range l.Instance().(*Demo).Marks(lang) {
			want = append(want, fmt.Sprint(m.At)+" "+ui.ClockText(time.Duration(m.At)*time.Millisecond)+" "+m.Label)
		}
		if len(want) != 5 || !slices.Equal(got, want) {
			t.Errorf("%s: the timeline's event marks:\n got %q\nwant %q", lang, got, want)
		}
	}
}
