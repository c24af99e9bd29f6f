package demotest

import (
	"encoding/json"
	"html"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/templates"
)

// Clicks returns every action a visitor could send from the page as live
// shows it now: the hx-vals of each ws-send control (with a value within
// range for the inputs that carry one), but the timeline's and the rooms'.
func Clicks(t *testing.T, live *demo.Live, rng *rand.Rand) []string {
	t.Helper()
	var out []string
	all := RenderAll(t, live, demo.View{Lang: templates.Ja, SID: SID})
	ids := make([]string, 0, len(all))
	for id := range all {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the same seed, the same clicks
	for _, id := range ids {
		h := all[id]
		for _, m := range wsSend.FindAllString(h, -1) {
			if strings.Contains(m, "data-timeline") || strings.Contains(m, "room-") {
				continue
			}
			vals := hxVals.FindStringSubmatch(m)
			if vals == nil {
				continue
			}
			var msg map[string]any
			if err := json.Unmarshal([]byte(html.UnescapeString(vals[1])), &msg); err != nil {
				t.Fatalf("hx-vals %q: %v", vals[1], err)
			}
			if name := attrIn(m, "name"); name != "" {
				lo, _ := strconv.Atoi(attrIn(m, "min"))
				hi, _ := strconv.Atoi(attrIn(m, "max"))
				msg[name] = strconv.Itoa(lo + rng.IntN(max(1, hi-lo+1)))
			}
			b, _ := json.Marshal(msg)
			out = append(out, string(b))
		}
	}
	return out
}

var (
	wsSend = regexp.MustCompile(`<(?:button|input|select)[^>]*\sws-send[^>]*>`)
	hxVals = regexp.MustCompile(`hx-vals="([^"]*)"`)
)

func attrIn(tag, key string) string {
	m := regexp.MustCompile(`\s` + key + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// moment is the present as it was just after an action: what a replay of
// the timeline up to its time must show.
type moment struct {
	at     time.Duration
	paused bool
	frags  map[string]string
}

// CheckReplay plays a demo of kind k as a visitor might (clicks picked at
// random from the page, the pace changed, time passing in uneven steps),
// then checks that the timeline gives back every moment exactly: replayed
// from the log, each moment just after an action renders as it did then,
// and so does a link to it, opened afresh.
func CheckReplay(t *testing.T, k demo.Kind, seed uint64, steps int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	live := demo.Start(&k, demo.Options{})
	view := demo.View{Lang: templates.Ja, SID: SID}
	var moments []moment
	// An action's moment is where it began: the state just after it, even
	// when it moved time on (a step to the next beat).
	record := func() {
		es := live.Timeline().Entries
		at := es[len(es)-1].At
		m := moment{at: at, paused: live.Instance().Paused(), frags: demoFrags(t, live, view)}
		if n := len(moments); n > 0 && moments[n-1].at == at {
			moments[n-1] = m // the state after the last action of that millisecond
			return
		}
		moments = append(moments, m)
	}
	for range steps {
		switch r := rng.IntN(10); {
		case r < 6:
			clicks := Clicks(t, live, rng)
			if len(clicks) == 0 {
				continue
			}
			c := demo.Decode(&k, []byte(clicks[rng.IntN(len(clicks))]))
			if c.Reject != nil {
				t.Fatalf("a click the page offers is refused: %v", c.Reject)
			}
			if live.Apply(c) == nil {
				record()
			}
		case r < 7:
			sp := []string{"0.5", "1", "2"}[rng.IntN(3)]
			if live.Apply(demo.Decode(&k, []byte(`{"action":"speed","speed":"`+sp+`"}`))) == nil {
				record()
			}
		default:
			live.Advance(time.Duration(rng.IntN(3000)+1) * time.Millisecond / time.Duration(rng.IntN(7)+1))
		}
	}
	for _, m := range moments {
		if err := live.Apply(demo.Command{Action: demo.ActTimeline, At: m.at.Milliseconds()}); err != nil {
			t.Fatalf("show %v: %v", m.at, err)
		}
		got := demoFrags(t, live, view)
		for id, want := range m.frags {
			if id == k.Prefix+"-clock" || id == k.Prefix+"-controls" || id == k.Prefix+"-snapshot" {
				continue // the moment shown is paused; the page keeps the present
			}
			if got[id] != want {
				t.Fatalf("the moment %v replays %s otherwise:\n%s", m.at, id, diffAt(want, got[id]))
			}
		}
	}
	if err := live.Apply(demo.Command{Action: demo.ActTimelineLive}); err != nil {
		t.Fatal(err)
	}
	// A link to the last moment, opened afresh, shows it too.
	if len(moments) > 0 {
		m := moments[len(moments)-1]
		opened, err := demo.OpenMoment(&k, demo.Options{}, live.Moment(), m.at)
		if err != nil {
			t.Fatalf("open the link to %v: %v", m.at, err)
		}
		got := demoFrags(t, opened, view)
		for id, want := range m.frags {
			if id == k.Prefix+"-clock" || id == k.Prefix+"-controls" || id == k.Prefix+"-snapshot" {
				continue // a link opens paused
			}
			if got[id] != want {
				t.Fatalf("the link to %v opens %s otherwise:\n%s", m.at, id, diffAt(want, got[id]))
			}
		}
	}
}

// demoFrags renders the demo's own fragments and the shared ones that say
// its state (log, live region, snapshot): not the timeline (its range,
// marks and link are the present's), the room, or the error.
func demoFrags(t *testing.T, live *demo.Live, v demo.View) map[string]string {
	t.Helper()
	out := RenderAll(t, live, v)
	for id := range out {
		if strings.Contains(id, "-timeline") || strings.HasSuffix(id, "-room") || strings.HasSuffix(id, "-error") {
			delete(out, id)
		}
	}
	for id, h := range out {
		out[id] = pageDrawn.ReplaceAllString(h, "$1$2")
		if strings.HasSuffix(id, "-snapshot") {
			out[id] = timelineAttr.ReplaceAllString(out[id], "")
		}
	}
	return out
}

var timelineAttr = regexp.MustCompile(` data-timeline="[^"]*"`)

func diffAt(want, got string) string {
	at := 0
	for at < min(len(want), len(got)) && want[at] == got[at] {
		at++
	}
	from := max(0, at-200)
	return "want: …" + clip(want[from:], 500) + "\n got: …" + clip(got[from:], 500)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
