package templates

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/internal/golden"
)

// timelineCases are the timeline as each kind of page sees it: a fresh
// page's (its link to come), an owner's at the present with its marks kept
// by the page, an owner's in the past, a follower's in the past, one drawn
// with its marks, and one without an origin to link from; names escaped.
func timelineCases() []struct {
	l Lang
	p TimelineProps
} {
	link := MomentLink{Base: "/reconcile", At: 5000, Moment: "QUJD"}
	marks := []TimelineMark{{At: 1200, Kind: "action", Label: "+1 <desired>"}, {At: 64500, Kind: "event", Label: `"x" & y`}}
	return []struct {
		l Lang
		p TimelineProps
	}{
		{Ja, TimelineProps{Prefix: "rc", Max: 0, ShareSoon: true}},
		{Ja, TimelineProps{Prefix: "rc", Min: 0, Max: 5000, Value: 5000, Share: link}},
		{En, TimelineProps{Prefix: "tr", Min: 1000, Max: 90000, Value: 61250, Past: true, Share: link}},
		{Ja, TimelineProps{Prefix: "pp", Min: 0, Max: 9000, Value: 300, Past: true, Follower: true, Moment: "TU9N&<", Kind: "pipeline", Share: link}},
		{En, TimelineProps{Prefix: "op", Max: 70000, Value: 70000, InPage: true, Marks: marks, Share: link}},
		{En, TimelineProps{Prefix: "cp", Max: 10, Value: 10, Marks: marks}},
	}
}

// TestTimelineWritesItsGolden: the timeline, written by hand, is what its
// templ component wrote for each kind of page (testdata/timeline.golden);
// the demos' goldens hold it too.
func TestTimelineWritesItsGolden(t *testing.T) {
	var got strings.Builder
	for _, c := range timelineCases() {
		// The panel, then its range and link as frames send them.
		for _, comp := range []func(Lang, TimelineProps) templ.Component{Timeline, TimelineTrack, TimelineShare} {
			if err := comp(c.l, c.p).Render(context.Background(), &got); err != nil {
				t.Fatal(err)
			}
			got.WriteString("\n")
		}
	}
	golden.Check(t, "testdata/timeline.golden", got.String())
}
