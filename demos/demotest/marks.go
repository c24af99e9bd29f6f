package demotest

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// MarkWant is a demo's notable event as its timeline marks it: the virtual
// ms, and the label in Japanese and in English.
type MarkWant struct {
	At     int64
	Ja, En string
}

// CheckMarks asserts the event marks m gives, in both languages.
func CheckMarks(t *testing.T, m demo.Marker, want []MarkWant) {
	t.Helper()
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		var got, w []MarkWant
		for _, mk := range m.Marks(l) {
			g := MarkWant{At: mk.At}
			switch {
			case mk.Kind != "event":
				g.Ja = "kind " + mk.Kind // never an event's label: the test fails
			case l == ui.Ja:
				g.Ja = mk.Label
			default:
				g.En = mk.Label
			}
			got = append(got, g)
		}
		for _, x := range want {
			if l == ui.Ja {
				w = append(w, MarkWant{At: x.At, Ja: x.Ja})
			} else {
				w = append(w, MarkWant{At: x.At, En: x.En})
			}
		}
		if !slices.Equal(got, w) {
			t.Errorf("marks (%s):\n got %v\nwant %v", l, got, w)
		}
	}
}

// ShownMark is a mark as the page's timeline holds it: data-at, data-kind
// and its title.
type ShownMark struct{ At, Kind, Title string }

// Action is the mark of a visitor's action at virtual ms at, as the page
// shows it: label is the action and its fields ("kill pod-2").
func Action(at int64, label string) ShownMark {
	return ShownMark{strconv.FormatInt(at, 10), "action", ui.ClockText(time.Duration(at)*time.Millisecond) + " " + label}
}

// CheckShownMarks asserts the marks of live's timeline as a page in
// language l gets them: the actions and the events, in the timeline's
// order (by time; at the same time, the event first: the demo's time ran
// up to it before the action was taken).
func CheckShownMarks(t *testing.T, live *demo.Live, l ui.Lang, actions []ShownMark, events []MarkWant) {
	t.Helper()
	h := RenderAll(t, live, demo.View{Lang: l, SID: SID})[live.Kind().Prefix+"-timeline-marks"]
	var got []ShownMark
	for _, n := range ByTestID(Parse(t, h)[0], "timeline-mark") {
		got = append(got, ShownMark{Attr(n, "data-at"), Attr(n, "data-kind"), Attr(n, "title")})
	}
	want := slices.Clone(actions)
	for _, e := range events {
		label := e.Ja
		if l == ui.En {
			label = e.En
		}
		want = append(want, ShownMark{strconv.FormatInt(e.At, 10), "event", ui.ClockText(time.Duration(e.At)*time.Millisecond) + " " + label})
	}
	slices.SortStableFunc(want, func(a, b ShownMark) int {
		x, _ := strconv.ParseInt(a.At, 10, 64)
		y, _ := strconv.ParseInt(b.At, 10, 64)
		switch {
		case x != y:
			return int(x - y)
		case a.Kind == b.Kind:
			return 0
		case a.Kind == "event":
			return -1
		}
		return 1
	})
	if !slices.Equal(got, want) {
		t.Errorf("%s timeline marks:\n got %v\nwant %v", l, got, want)
	}
}
