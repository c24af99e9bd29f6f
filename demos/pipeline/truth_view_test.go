package pipeline

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The page's half of issue #19's truth pass: both queues and the rate
// limiter, Requeue: true, the Watches on the Secret, a child edited by
// hand, identical writes, the notes, and accessible names.

// truthDemos are demos that show the truth pass's behaviours: the classic
// queue with Requeue: true and a failing key; a RequeueAfter made moot by
// an event that came meanwhile, then the Secret's return ending a wait
// through Watches; a child edited by hand and put back.
func truthDemos(t *testing.T) []*Demo {
	t.Helper()
	classic := NewDemo()
	mustApply(t, classic, demo.Command{Action: "queue-kind", Name: "classic"})
	mustApply(t, classic, demo.Command{Action: "not-ready", Name: "requeue-true"})
	classic.Advance(time.Second)
	mustApply(t, classic, demo.Command{Action: "dependency", On: false})
	classic.Advance(engine.WatchDelay)                  // the cache knows
	mustApply(t, classic, demo.Command{Action: "step"}) // no handler watches the Secret: look now
	classic.Advance(3 * time.Second)

	watched := NewDemo()
	mustApply(t, watched, demo.Command{Action: "secret-watch", On: true})
	watched.Advance(2 * time.Second)
	mustApply(t, watched, demo.Command{Action: "dependency", On: false})
	watched.Advance(engine.WatchDelay)
	mustApply(t, watched, demo.Command{Action: "edit", Name: "app-1"}) // comes while app-1 is on the worker
	watched.Advance(2 * time.Second)
	mustApply(t, watched, demo.Command{Action: "dependency", On: true})
	watched.Advance(2 * time.Second)

	edited := NewDemo()
	mustApply(t, edited, demo.Command{Action: "child-edit", Name: "app-1"})
	edited.Advance(2 * time.Second)
	return []*Demo{classic, watched, edited}
}

// logText is the log as the page says it, one line each.
func logText(d *Demo, l ui.Lang) string {
	var b strings.Builder
	for _, e := range d.World().Events() {
		b.WriteString(eventText(l, e) + "\n")
	}
	return b.String()
}

// TestTruthStoriesAreSaid: the log says what each new behaviour did, in
// words a reader can follow, never a raw key or a zero wait.
func TestTruthStoriesAreSaid(t *testing.T) {
	ds := truthDemos(t)
	classic, watched, edited := logText(ds[0], ui.En), logText(ds[1], ui.En), logText(ds[2], ui.En)
	for _, c := range []struct{ log, want string }{
		{classic, "returned: no-op → Requeue: true (requeued with backoff)"},
		{classic, "requeued with backoff: in 0.02s (3 failures)"},
		{watched, "needs no requeue (RequeueAfter): it was added again while processing, and is ready already"},
		{watched, "added to the queue (watch event of Secret app-db (Watches → MapFunc)); its wait ("},
		{edited, "you (kubectl): update ConfigMap app-1-config → rv 6"},
		{edited, "default/app-1 added to the queue (change of the child ConfigMap app-1-config (Owns))"},
		{edited, "worker 1: update ConfigMap app-1-config → rv 7"},
		{edited, "the reconcile of default/app-1 returned: update → success"},
	} {
		if !strings.Contains(c.log, c.want) {
			t.Errorf("the log does not say %q:\n%s", c.want, c.log)
		}
	}
	for _, log := range []string{classic, watched, edited} {
		if strings.Contains(log, "after 0s") || strings.Contains(log, "in 0s") {
			t.Errorf("the log speaks of a zero wait:\n%s", log)
		}
	}
	// The report of the RequeueAfter made moot says there is no wait.
	rows := reportProps(ui.En, ds[1].World().Report())
	var moot bool
	for _, e := range ds[1].World().Events() {
		moot = moot || e.Kind == engine.EventRequeue && e.Outcome == "ready"
	}
	if !moot {
		t.Fatal("no requeue was made moot")
	}
	if len(rows) != 1 || rows[0].Result != "success" {
		t.Fatalf("rows %+v", rows)
	}
	moot0 := reportProps(ui.En, []engine.ReportRow{{Name: "app-1", Requeue: engine.RequeueAfter, Result: "requeue_after"}})
	if moot0[0].RequeueIn != T(ui.En, "pp.requeue.now") || moot0[0].RequeueMs != 0 {
		t.Fatalf("a requeue without a wait reads %q", moot0[0].RequeueIn)
	}
}

// TestRequeueTrueOnThePage: Requeue: true counts in the reconciles'
// data-requeue, not in errors; its row says requeue and backoff.
func TestRequeueTrueOnThePage(t *testing.T) {
	d := truthDemos(t)[0]
	h := demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: ui.En})
	n := demotest.Parse(t, h["pp-metrics"])[0]
	r := demotest.ByTestID(n, "reconciles")[0]
	if demotest.Attr(r, "data-requeue") == "0" || demotest.Attr(r, "data-error") != "0" {
		t.Fatalf("reconciles %v", r.Attr)
	}
	row := demotest.ByTestID(demotest.Parse(t, h["pp-report"])[0], "report-row")[0]
	if demotest.Attr(row, "data-result") != "requeue" || demotest.Attr(row, "data-requeue") != "backoff" {
		t.Fatalf("row %v", row.Attr)
	}
}

// TestRateLimiterPanel: the panel is always there, titled, of the queue's
// kind; empty when no key fails; a failing key with its failures and next
// delay, and on the classic queue the bucket.
func TestRateLimiterPanel(t *testing.T) {
	off := NewDemo()
	mustApply(t, off, demo.Command{Action: "controller", On: false})
	classic := truthDemos(t)[0]
	failing := NewDemo()
	mustApply(t, failing, demo.Command{Action: "not-ready", Name: "error"})
	failing.Advance(time.Second)
	mustApply(t, failing, demo.Command{Action: "dependency", On: false})
	failing.Advance(engine.WatchDelay)
	mustApply(t, failing, demo.Command{Action: "step"})
	failing.Advance(time.Second)
	for _, c := range []struct {
		name   string
		d      *Demo
		kind   string
		bucket bool
		keys   int
	}{
		{"fresh", NewDemo(), "item-exponential", false, 0},
		{"controller off", off, "item-exponential", false, 0},
		{"priority, failing", failing, "item-exponential", false, 1},
		{"classic, failing", classic, "max-of", true, 1},
	} {
		for _, l := range []ui.Lang{ui.Ja, ui.En} {
			h := demotest.RenderAll(t, demo.Wrap(&Kind, c.d), demo.View{Lang: l})["pp-limiter"]
			n := demotest.Parse(t, h)[0]
			p := demotest.ByTestID(n, "rate-limiter")
			if len(p) != 1 || demotest.Attr(p[0], "data-value") != c.kind || !strings.Contains(h, T(l, "pp.limiter")) {
				t.Fatalf("%s %s: panel %s", c.name, l, h)
			}
			if got := len(demotest.ByTestID(n, "limiter-bucket")) == 1; got != c.bucket {
				t.Fatalf("%s: bucket shown %v", c.name, got)
			}
			keys := demotest.ByTestID(n, "limiter-key")
			if len(keys) != c.keys {
				t.Fatalf("%s: %d keys", c.name, len(keys))
			}
			for _, k := range keys {
				if demotest.Attr(k, "data-key") != "default/app-1" || demotest.Attr(k, "data-failures") == "0" ||
					demotest.Attr(k, "data-next-delay") == "0" {
					t.Fatalf("%s: key %v", c.name, k.Attr)
				}
			}
		}
	}
	if !strings.Contains(T(ui.Ja, "pp.limiter"), "レートリミッター") {
		t.Fatal("the panel is not called レートリミッター")
	}
}

// TestNotReadyCycles: the not-ready-as button cycles error → requeue →
// requeue-true → error, and shows each value in words.
func TestNotReadyCycles(t *testing.T) {
	d := NewDemo()
	seen := []string{}
	for range 4 {
		h := demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: ui.En})["pp-settings"]
		b := demotest.ByTestID(demotest.Parse(t, h)[0], "not-ready-as")[0]
		seen = append(seen, demotest.Attr(b, "data-value"))
		if strings.Contains(h, "pp.v.") {
			t.Fatalf("a value shown raw: %s", h)
		}
		mustApply(t, d, demo.Decode(&Kind, []byte(demotest.Attr(b, "hx-vals"))))
	}
	if got := strings.Join(seen, " → "); got != "requeue → requeue-true → error → requeue" {
		t.Fatalf("not-ready-as went %s", got)
	}
}

// TestChildEditRefusalSaysWhy: a child-edit of an App with no child yet
// says so; of an App that is not there, that it is not there.
func TestChildEditRefusalSaysWhy(t *testing.T) {
	noChild := refusalOf(t, appWithoutChild, demo.Command{Action: "child-edit", Name: "app-2"})
	if got := noChild.Text(ui.En); got != F(ui.En, "err.nochild", "app-2") {
		t.Fatalf("no child: %q", got)
	}
	gone := refusalOf(t, NewDemo, demo.Command{Action: "child-edit", Name: "app-3"})
	if got := gone.Text(ui.En); got != F(ui.En, "err.notfound", "app-3") {
		t.Fatalf("no App: %q", got)
	}
}

// TestRunawayExplainsIdenticalWrites: where the runaway trap shows, it
// says that an identical write makes no event, and that lastReconcileTime
// drives the loop.
func TestRunawayExplainsIdenticalWrites(t *testing.T) {
	d := NewDemo()
	for _, on := range []bool{false, true} {
		mustApply(t, d, demo.Command{Action: "trap", Name: "runaway", On: on})
		live := demo.Wrap(&Kind, d)
		h := demotest.RenderAll(t, live, demo.View{Lang: ui.Ja})["pp-traps-runaway"]
		why := demotest.ByTestID(demotest.Parse(t, h)[0], "trap-why")
		if len(why) != map[bool]int{false: 0, true: 1}[on] {
			t.Fatalf("runaway on %v: %d explanations", on, len(why))
		}
		if on && !strings.Contains(h, "lastReconcileTime") {
			t.Fatal("the explanation does not name lastReconcileTime")
		}
		if page := demotest.RenderOne(t, live.Section(demo.View{Lang: ui.Ja})); !strings.Contains(page, `<h3 id="pp-traps-title">よくあるバグ`) {
			t.Fatal("the traps panel is not called よくあるバグ")
		}
	}
}

// TestNotesOnePerTopic: every note is in the demo's section from the first
// load, whatever the settings and traps, exactly once, as a real line with
// its topic; the pipeline's four of issue #19 among them.
func TestNotesOnePerTopic(t *testing.T) {
	ds := append([]*Demo{NewDemo()}, busyDemos(t)...)
	for _, d := range ds {
		for _, l := range []ui.Lang{ui.Ja, ui.En} {
			section := demotest.RenderOne(t, demo.Wrap(&Kind, d).Section(demo.View{Lang: l, SID: demotest.SID}))
			root := demotest.FindAll(demotest.Parse(t, section)[0], func(n *html.Node) bool {
				return demotest.Attr(n, "data-testid") == Name+"-demo"
			})
			if len(root) != 1 {
				t.Fatalf("%d demo roots", len(root))
			}
			count := map[string]int{}
			for _, n := range demotest.ByTestID(root[0], "note") {
				count[demotest.Attr(n, "data-topic")]++
				if !strings.Contains(" "+demotest.Attr(n, "class")+" ", " real ") {
					t.Fatalf("note %v is not a real line", n.Attr)
				}
			}
			for _, topic := range append(noteTopics, "queue", "identical-write", "predicate-scope", "observe-beat") {
				if count[topic] != 1 {
					t.Fatalf("%s: note %q appears %d times", l, topic, count[topic])
				}
			}
			if len(count) != len(noteTopics) {
				t.Fatalf("notes %v, want the topics %v", count, noteTopics)
			}
		}
	}
}

// TestLabelInName: every control's accessible name contains its visible
// label (WCAG 2.1, 2.5.3 Label in Name), in both languages, in every state
// the tests build.
func TestLabelInName(t *testing.T) {
	ds := append([]*Demo{NewDemo(), appWithoutChild()}, busyDemos(t)...)
	checked := 0
	for _, d := range ds {
		for _, l := range []ui.Lang{ui.Ja, ui.En} {
			for id, h := range demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: l, SID: "s"}) {
				for _, top := range demotest.Parse(t, h) {
					for _, b := range demotest.FindAll(top, func(n *html.Node) bool { return n.Data == "button" }) {
						name, ok := attr(b, "aria-label")
						if !ok {
							continue
						}
						label := strings.Join(strings.Fields(visibleText(b)), " ")
						if label == "" || !strings.Contains(strings.Join(strings.Fields(name), " "), label) {
							t.Fatalf("%s %s: the name %q does not contain the label %q", id, l, name, label)
						}
						checked++
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d labelled buttons checked", checked)
	}
}

// visibleText is n's text but what is aria-hidden.
func visibleText(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	if demotest.Attr(n, "aria-hidden") == "true" {
		return ""
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(visibleText(c))
	}
	return b.String()
}
