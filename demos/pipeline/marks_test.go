package pipeline

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// frames lets dt pass in 100 ms frames, as a page at 1× sees it.
func frames(d *Demo, dt time.Duration) {
	for ; dt > 0; dt -= 100 * time.Millisecond {
		d.Advance(min(dt, 100*time.Millisecond))
	}
}

// backingOff is the starting state with the Secret deleted and a missing
// dependency returned as an error: the redeployed controller lists app-1,
// whose reconcile fails at 1.6 s and is retried with backoff.
func backingOff(t *testing.T) *Demo {
	d := NewDemo()
	mustApply(t, d, demo.Command{Action: "dependency", On: false})
	mustApply(t, d, demo.Command{Action: "not-ready", Name: "error"})
	return d
}

// retried reports whether the log holds a retry of a failing key.
func retried(d *Demo) bool {
	return countEvents(d, func(e engine.Event) bool { return e.Kind == engine.EventRequeue && e.N > 1 }) > 0
}

func dump(ms []ui.TimelineMark) string {
	s := ""
	for _, m := range ms {
		s += fmt.Sprintf("\n  %d %s %q", m.At, m.Kind, m.Label)
	}
	return s
}

// The marks are the few moments of the controller's own a reader wants
// back: a backoff beginning (a reconcile's error or Requeue: true, its
// first failure; not the retries) and the periodic resync. Not every
// reconcile, not a runaway loop's, nor anything the visitor did (a step's
// resync).
func TestMarks(t *testing.T) {
	type want struct {
		at     time.Duration
		ja, en string
	}
	missing := func(at time.Duration) want {
		return want{at, "default/app-1 の調整が失敗(DependencyMissing): バックオフで再試行が始まる",
			"default/app-1: the reconcile failed (DependencyMissing); backoff retries begin"}
	}
	for _, tc := range []struct {
		name  string
		build func(t *testing.T) *Demo
		want  []want
	}{
		{"the starting state", func(t *testing.T) *Demo { return NewDemo() }, nil},
		{"a runaway loop", func(t *testing.T) *Demo {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "trap", Name: string(engine.TrapRunaway), On: true})
			frames(d, 10*time.Second)
			return d
		}, nil},
		{"a step's resync", func(t *testing.T) *Demo {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "step"})
			if countEvents(d, func(e engine.Event) bool { return e.Kind == engine.EventResync }) != 1 {
				t.Fatal("the step did not resync")
			}
			return d
		}, nil},
		{"a missing dependency, retried", func(t *testing.T) *Demo {
			d := backingOff(t)
			frames(d, 30*time.Second)
			if !retried(d) {
				t.Fatal("no retry in the log")
			}
			return d
		}, []want{missing(1600 * time.Millisecond)}},
		{"Requeue: true", func(t *testing.T) *Demo {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "dependency", On: false})
			mustApply(t, d, demo.Command{Action: "not-ready", Name: string(engine.NotReadyRequeueTrue)})
			frames(d, 3*time.Second)
			if !retried(d) {
				t.Fatal("no retry in the log")
			}
			return d
		}, []want{{1600 * time.Millisecond, "default/app-1 の調整が Requeue: true を返した: バックオフで再試行が始まる",
			"default/app-1: the reconcile returned Requeue: true; backoff retries begin"}}},
		{"a second backoff after a success", func(t *testing.T) *Demo {
			d := backingOff(t)
			frames(d, 5*time.Second)
			mustApply(t, d, demo.Command{Action: "dependency", On: true}) // the retry at 7.755 s succeeds
			frames(d, 10*time.Second)
			mustApply(t, d, demo.Command{Action: "dependency", On: false})
			mustApply(t, d, demo.Command{Action: "edit", Name: "app-1"}) // at 16.2 s
			frames(d, 2*time.Second)
			return d
		}, []want{missing(1600 * time.Millisecond), missing(16900 * time.Millisecond)}},
		{"after a reset", func(t *testing.T) *Demo {
			d := backingOff(t)
			frames(d, 5*time.Second)
			mustApply(t, d, demo.Command{Action: "reset"}) // at 6.2 s: the log starts anew
			mustApply(t, d, demo.Command{Action: "dependency", On: false})
			mustApply(t, d, demo.Command{Action: "not-ready", Name: "error"})
			frames(d, 3*time.Second)
			return d
		}, []want{missing((6200 + 1600) * time.Millisecond)}},
		{"the periodic resync", func(t *testing.T) *Demo {
			d := NewDemo()
			for range 11 {
				d.Advance(engine.MaxAdvance)
			}
			return d
		}, []want{{engine.ResyncPeriod, "informer: 定期 resync(10 時間ごと)", "informer: the periodic resync (every 10 hours)"}}},
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

// The marks are read a few events at a time, as they are logged, and are
// what a reading of the whole log finds; MarksKey changes in the frames
// where they do, and in no other. A missing dependency marks once and
// keeps its mark through a minute of retries; the AlreadyExists trap marks
// the first failure of two Apps, and each mark goes when the busy log no
// longer holds its event; a runaway loop marks nothing.
func TestMarksKeyChangesWithTheMarks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		build   func(t *testing.T) *Demo
		changes int
	}{
		{"a missing dependency", backingOff, 1},
		{"AlreadyExists", func(t *testing.T) *Demo {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "trap", Name: string(engine.TrapAlreadyExists), On: true})
			mustApply(t, d, demo.Command{Action: "create", Name: "app-2"})
			mustApply(t, d, demo.Command{Action: "edit", Name: "app-1"})
			return d
		}, 4},
		{"a runaway loop", func(t *testing.T) *Demo {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "trap", Name: string(engine.TrapRunaway), On: true})
			return d
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.build(t)
			key, marks := d.MarksKey(), d.Marks(ui.Ja)
			changes := 0
			for range 600 {
				d.Advance(100 * time.Millisecond)
				k, ms := d.MarksKey(), d.Marks(ui.Ja)
				if (k != key) != !slices.Equal(ms, marks) {
					t.Fatalf("at %v the key changed %v, the marks %s → %s", d.Now(), k != key, dump(marks), dump(ms))
				}
				again := *d
				again.marks = markLog{}
				if whole := again.Marks(ui.Ja); !slices.Equal(ms, whole) {
					t.Fatalf("at %v the marks read as they came are %s, the whole log's %s", d.Now(), dump(ms), dump(whole))
				}
				if k != key {
					changes++
				}
				key, marks = k, ms
			}
			if changes != tc.changes {
				t.Errorf("the key changed in %d frames, want %d", changes, tc.changes)
			}
		})
	}
}

// The log is not in the snapshot: a restored demo marks only what happens
// after it, and that just as the demo it was restored from does.
func TestMarksAfterRestore(t *testing.T) {
	d := backingOff(t)
	frames(d, 5*time.Second)
	before := d.Marks(ui.Ja)
	if len(before) != 1 {
		t.Fatalf("marks before the snapshot: %s", dump(before))
	}
	in, err := Kind.Restore(demo.Options{}, json.RawMessage(d.SnapshotJSON()))
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
	for _, x := range []*Demo{d, r} {
		mustApply(t, x, demo.Command{Action: "dependency", On: true})
		frames(x, 10*time.Second)
		mustApply(t, x, demo.Command{Action: "dependency", On: false})
		mustApply(t, x, demo.Command{Action: "edit", Name: "app-1"})
		frames(x, 2*time.Second)
	}
	got, want := r.Marks(ui.En), d.Marks(ui.En)[len(before):]
	if len(got) != 1 || !slices.Equal(got, want) {
		t.Errorf("after the restore:\n got %s\nwant %s", dump(got), dump(want))
	}
}

// The timeline under the demo draws each mark at its time, as an event.
func TestTimelineDrawsTheMarks(t *testing.T) {
	d := backingOff(t)
	frames(d, 3*time.Second)
	l := demo.Wrap(&Kind, d)
	for _, lang := range []ui.Lang{ui.Ja, ui.En} {
		html := demotest.RenderAll(t, l, demo.View{Lang: lang, SID: demotest.SID})[Prefix+"-timeline-marks"]
		var got []string
		for _, n := range demotest.ByTestID(demotest.Parse(t, html)[0], "timeline-mark") {
			if demotest.Attr(n, "data-kind") == "event" {
				got = append(got, demotest.Attr(n, "data-at")+" "+demotest.Attr(n, "title"))
			}
		}
		label := map[ui.Lang]string{
			ui.Ja: "default/app-1 の調整が失敗(DependencyMissing): バックオフで再試行が始まる",
			ui.En: "default/app-1: the reconcile failed (DependencyMissing); backoff retries begin",
		}[lang]
		if want := []string{"1600 00:01.6 " + label}; !slices.Equal(got, want) {
			t.Errorf("%s: the timeline's event marks:\n got %q\nwant %q", lang, got, want)
		}
	}
}
