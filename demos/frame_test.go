package demos

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestSpeedRendersOnlyWhatItChanges: an action that changes only the speed
// renders the clock, the controls and the snapshot (their keys read the
// speed), the timeline's marks (which mark the action) and its link (which
// holds the log), and nothing else, in every demo: a frame costs what
// changed. The timeline's panel is not rendered, nor its range, whose end
// the page runs on to its clock (TestLiveRangeIsThePages).
func TestSpeedRendersOnlyWhatItChanges(t *testing.T) {
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			live.Advance(1500 * time.Millisecond) // the action moves the log's end
			r := live.Renderer(demo.View{Lang: ui.Ja, SID: "0123456789abcdef0123456789abcdef"})
			if _, err := r.Frame(nil); err != nil {
				t.Fatal(err)
			}
			if want := len(live.Fragments()); r.Renders != want {
				t.Fatalf("the first frame rendered %d fragments, want all %d", r.Renders, want)
			}
			r.Renders = 0
			c := demo.Decode(&k, []byte(`{"action":"speed","speed":"2"}`))
			if err := live.Apply(c); err != nil {
				t.Fatal(err)
			}
			frame, err := r.Frame(nil)
			if err != nil {
				t.Fatal(err)
			}
			var sent []string
			for _, f := range frame {
				sent = append(sent, f.ID)
			}
			// The link is rendered (it holds the log), and not sent with
			// no origin to link from.
			want := []string{k.Prefix + "-clock", k.Prefix + "-controls", k.Prefix + "-snapshot", k.Prefix + "-timeline-marks"}
			if renders := len(want) + 1; r.Renders != renders || !slices.Equal(sent, want) {
				t.Fatalf("speed 2 rendered %d fragments and sent %v, want %d and %v", r.Renders, sent, renders, want)
			}
		})
	}
}

// TestLiveRangeIsThePages: while an owner's page shows the present, the
// page runs the timeline's range on to its clock (static/app.js), so the
// range goes only with its start and the moment shown: an action sends
// none, going to the past and back each send one, and the range of the
// present ends where it starts. A follower's range ends at the room's last
// action and goes with each.
func TestLiveRangeIsThePages(t *testing.T) {
	track := func(t *testing.T, r *demo.Renderer, prefix string) string {
		t.Helper()
		frame, err := r.Frame(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frame {
			if f.ID == prefix+"-timeline-track" {
				return string(f.HTML)
			}
		}
		return ""
	}
	act := func(t *testing.T, live *demo.Live, c demo.Command) {
		t.Helper()
		live.Advance(700 * time.Millisecond)
		if err := live.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	load := func(k *demo.Kind, i int) demo.Command { return demo.Decode(k, []byte(k.Load[i%len(k.Load)].Send)) }
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			owner := live.Renderer(demo.View{Lang: ui.En, SID: "0123456789abcdef0123456789abcdef"})
			follower := live.Renderer(demo.View{Lang: ui.En, SID: "0123456789abcdef0123456789abcdef", Role: demo.RoleFollower})
			track(t, owner, k.Prefix)
			track(t, follower, k.Prefix)
			var prev time.Duration
			for i := range 3 {
				act(t, live, load(&k, i))
				if got := track(t, owner, k.Prefix); got != "" {
					t.Fatalf("action %d sent the owner's range:\n%s", i, got)
				}
				// (The guided controlplane's clock stands still between
				// its steps: its actions are all at its start.)
				end := live.Timeline().Entries[len(live.Timeline().Entries)-1].At
				at := strconv.FormatInt(end.Milliseconds(), 10)
				if got := track(t, follower, k.Prefix); end != prev && !strings.Contains(got, ` max="`+at+`" step="1" value="`+at+`"`) {
					t.Fatalf("action %d at %s ms: the follower's range is\n%s", i, at, got)
				}
				prev = end
			}
			past := live.Timeline().Entries[0].At.Milliseconds()
			act(t, live, demo.Command{Action: demo.ActTimeline, At: past})
			at := strconv.FormatInt(past, 10)
			if got := track(t, owner, k.Prefix); !strings.Contains(got, `value="`+at+`" data-value="`+at+`" data-max="`) || !strings.Contains(got, `data-mode="past"`) {
				t.Fatalf("the past's range:\n%s", got)
			}
			act(t, live, demo.Command{Action: demo.ActTimelineLive})
			if got := track(t, owner, k.Prefix); !strings.Contains(got, `min="0" max="0" step="1" value="0"`) || !strings.Contains(got, `data-mode="live"`) {
				t.Fatalf("the present's range, back from the past:\n%s", got)
			}
		})
	}
}

// TestFreshPageKeepsNoSnapshot: the page of a demo as Start made it carries
// no snapshot (a session started from nothing is in the same state: every
// Start renders the same page, which the server renders once), while its
// first frame does, and so does the page once anything has happened.
func TestFreshPageKeepsNoSnapshot(t *testing.T) {
	const sid = "0123456789abcdef0123456789abcdef"
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			v := demo.View{Lang: ui.Ja, SID: sid}
			page := func() string {
				var b strings.Builder
				if err := live.Section(v).Render(context.Background(), &b); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			p := page()
			if strings.Contains(p, "data-snapshot") || !strings.Contains(p, `<div id="`+k.Prefix+`-snapshot" hidden></div>`) {
				t.Errorf("a fresh page: want the snapshot element without a snapshot")
			}
			var again strings.Builder
			if err := demo.Start(&k, demo.Options{}).Section(v).Render(context.Background(), &again); err != nil || again.String() != p {
				t.Errorf("two fresh demos render different pages (%v)", err)
			}
			frame, err := live.Renderer(v).Frame(nil)
			if err != nil {
				t.Fatal(err)
			}
			var snap string
			for _, f := range frame {
				if f.ID == k.Prefix+"-snapshot" {
					snap = string(f.HTML)
				}
			}
			if !strings.Contains(snap, "data-snapshot=") {
				t.Errorf("the first frame's snapshot fragment %q carries no snapshot", snap)
			}
			live.Advance(time.Millisecond)
			if !strings.Contains(page(), "data-snapshot=") {
				t.Errorf("once time has passed, the page carries no snapshot")
			}
		})
	}
}

// TestFramesAddMarks: a page whose frames add the timeline's new marks to
// its own (Renderer.Appends) shows, after every action, the marks a whole
// render shows: through many more actions than it keeps, and whatever the
// demo marks on its own. Each frame that adds carries only the new marks,
// and its Full is the whole list.
func TestFramesAddMarks(t *testing.T) {
	li := regexp.MustCompile(`<li [^>]*></li>`)
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			v := demo.View{Lang: ui.En, SID: "0123456789abcdef0123456789abcdef"}
			r := live.Renderer(v)
			r.Appends = true
			whole := live.Renderer(v)
			id := k.Prefix + "-timeline-marks"
			marks := slices.IndexFunc(live.Fragments(), func(p demo.Part) bool { return p.ID == id })
			if marks < 0 {
				t.Fatalf("no fragment %s", id)
			}
			var page []string
			adds, wholes := 0, 0
			for i := range 2 * ui.MaxMarks {
				frame, err := r.Frame(nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range frame {
					if f.ID != id {
						continue
					}
					h := string(f.HTML)
					if f.Full == nil {
						page = li.FindAllString(h, -1)
						if i > 0 {
							wholes++
						}
						continue
					}
					adds++
					if !strings.Contains(h, `hx-swap-oob="beforeend"`) {
						t.Fatalf("action %d: a frame that adds is %q", i, h)
					}
					drop, _ := strconv.Atoi(regexp.MustCompile(`data-drop="(\d+)"`).FindStringSubmatch(h + `data-drop="0"`)[1])
					page = append(page[drop:], li.FindAllString(h, -1)...)
					if full := li.FindAllString(string(f.Full()), -1); !slices.Equal(full, page) {
						t.Fatalf("action %d: Full has %d marks, the page %d", i, len(full), len(page))
					}
				}
				var want strings.Builder
				if err := whole.Render(marks, &want); err != nil {
					t.Fatal(err)
				}
				if got := li.FindAllString(want.String(), -1); !slices.Equal(got, page) {
					t.Fatalf("action %d: the page shows %d marks, a whole render %d:\n%q\n%q", i, len(page),
						len(got), page, want.String())
				}
				c := demo.Decode(&k, []byte(k.Load[i%len(k.Load)].Send))
				if err := live.Apply(c); err != nil {
					t.Fatal(err)
				}
				live.Advance(700 * time.Millisecond)
			}
			// Marks leave from the start only: a whole list goes again only
			// when the timeline itself is cut (a reset that forgets them all).
			t.Logf("%d marks on the page; %d frames added marks, %d sent them all again", len(page), adds, wholes)
			if len(page) < ui.MaxMarks/2 || adds < ui.MaxMarks || wholes > len(k.Load) {
				t.Errorf("%d marks on the page, %d frames that add, %d whole: want at least %d marks, most frames adding, at most %d whole",
					len(page), adds, wholes, ui.MaxMarks/2, len(k.Load))
			}
		})
	}
}

// TestFramesAddLogLines: a page whose frames add a log's new lines to its
// own (Renderer.Appends) shows, after every action, the lines a whole
// render shows, through many more actions than the panel keeps. A frame
// that adds carries only the new lines (and how many of the oldest
// leave), and its Full is the whole panel; a log comes whole again only
// when it empties, starts or is cut. Resets (which number a log afresh)
// and a moment of the past (a demo of its own) come in between.
func TestFramesAddLogLines(t *testing.T) {
	li := regexp.MustCompile(`<li class="log-line".*?</li>`)
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			v := demo.View{Lang: ui.Ja, SID: "0123456789abcdef0123456789abcdef"}
			r := live.Renderer(v)
			r.Appends = true
			whole := live.Renderer(v)
			logs := map[string]int{} // id → index in Fragments
			for i, p := range live.Fragments() {
				if strings.HasSuffix(p.ID, "-log") {
					logs[p.ID] = i
				}
			}
			if len(logs) == 0 {
				t.Fatal("no log fragment")
			}
			page := map[string][]string{}
			adds, wholes := 0, 0
			for i := range 3 * ui.LogShown {
				frame, err := r.Frame(nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range frame {
					if _, ok := logs[f.ID]; !ok {
						continue
					}
					h := string(f.HTML)
					if f.Full == nil {
						lines := li.FindAllString(h, -1)
						if len(page[f.ID]) > 0 && len(lines) > 0 {
							wholes++ // (a log that empties, or starts, comes whole)
						}
						page[f.ID] = lines
						continue
					}
					adds++
					drop, _ := strconv.Atoi(regexp.MustCompile(`data-drop="(\d+)"`).FindStringSubmatch(h + `data-drop="0"`)[1])
					old, add := page[f.ID], li.FindAllString(h, -1)
					switch {
					case strings.HasPrefix(h, `<ol id="`+f.ID+`" hx-swap-oob="beforeend"`):
						page[f.ID] = append(old[drop:len(old):len(old)], add...)
					case strings.HasPrefix(h, `<ol id="`+f.ID+`" hx-swap-oob="afterbegin"`): // a log listed newest first
						page[f.ID] = append(add, old[:len(old)-drop]...)
					default:
						t.Fatalf("action %d: a frame that adds is %q", i, h)
					}
					if full := li.FindAllString(string(f.Full()), -1); !slices.Equal(full, page[f.ID]) {
						t.Fatalf("action %d: %s: Full has %d lines, the page %d", i, f.ID, len(full), len(page[f.ID]))
					}
				}
				for id, j := range logs {
					var want strings.Builder
					if err := whole.Render(j, &want); err != nil {
						t.Fatal(err)
					}
					if got := li.FindAllString(want.String(), -1); !slices.Equal(got, page[id]) {
						t.Fatalf("action %d: %s: the page shows %d lines, a whole render %d:\n%q\n%q", i, id, len(page[id]),
							len(got), page[id], got)
					}
				}
				c := demo.Decode(&k, []byte(k.Load[i%len(k.Load)].Send))
				switch {
				case i == 2 || i%25 == 24:
					// A reset starts the log's numbers again.
					c = demo.Command{Action: "reset"}
				case i == 3*ui.LogShown-3:
					// A moment of the past is a demo of its own.
					c = demo.Command{Action: demo.ActTimeline, At: live.Now().Milliseconds() / 2}
				case i == 3*ui.LogShown-2:
					c = demo.Command{Action: demo.ActTimelineLive}
				}
				if err := live.Apply(c); err != nil {
					if i < 2 || c.Action == "reset" || c.Action == demo.ActTimeline || c.Action == demo.ActTimelineLive {
						t.Fatal(err)
					}
					// A load step a reset made out of place (the guide
					// back at its start) is refused and changes nothing.
				}
				if c.Action != demo.ActTimeline && c.Action != demo.ActTimelineLive {
					live.Advance(time.Second)
				}
			}
			// A log comes whole again only when it is cut (a reset that
			// starts it afresh, a moment of the past and back): at most
			// once a round of the load steps, once a reset (of three), and
			// twice.
			t.Logf("%d frames added lines, %d sent a log whole again", adds, wholes)
			if max := len(k.Load) + 3*len(logs) + 2*len(logs); wholes > max {
				t.Errorf("%d frames added lines, %d sent a log whole again: want at most %d", adds, wholes, max)
			}
		})
	}
}

// TestFrameIntoOneBuffer: frames written into one reused buffer
// (FrameInto, an owner's session's pooled chunk) carry the same fragments
// and HTML as frames whose every fragment is allocated (Frame), in every
// demo, through its load steps and a second of its time after each, then
// a moment of the past and back (every fragment rendered again, those
// unchanged not sent), with the buffer holding bytes before the frame's and
// reset between frames. Each fragment sent whole is what it renders on its
// own.
func TestFrameIntoOneBuffer(t *testing.T) {
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			v := demo.View{Lang: ui.Ja, SID: "0123456789abcdef0123456789abcdef", Origin: "https://demo.example"}
			alone, into := live.Renderer(v), live.Renderer(v)
			alone.Appends, into.Appends = true, true
			var buf bytes.Buffer
			steps := 3 * len(k.Load)
			for i := range steps + 3 {
				var c demo.Command
				switch {
				case i == 0:
				case i <= steps:
					c = demo.Decode(&k, []byte(k.Load[(i-1)%len(k.Load)].Send))
					if c.Reject != nil {
						t.Fatalf("load step refused: %v", c.Reject)
					}
				case i == steps+1:
					// Back to a moment of the past: every fragment is
					// rendered again, and only those that differ are sent.
					c = demo.Command{Action: demo.ActTimeline, At: live.Now().Milliseconds() / 2}
				default:
					c = demo.Command{Action: demo.ActTimelineLive}
				}
				if i > 0 {
					if err := live.Apply(c); err != nil {
						t.Fatal(err)
					}
					if i <= steps {
						live.Advance(time.Second)
					}
				}
				want, err := alone.Frame(nil)
				if err != nil {
					t.Fatal(err)
				}
				buf.Reset()
				buf.WriteString(strings.Repeat("x", i%7)) // what the buffer held before
				got, err := into.FrameInto(nil, &buf)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("step %d: %d fragments into the buffer, %d alone", i, len(got), len(want))
				}
				for j := range want {
					if got[j].ID != want[j].ID || !bytes.Equal(got[j].HTML, want[j].HTML) || (got[j].Full == nil) != (want[j].Full == nil) {
						t.Fatalf("step %d, fragment %d: into the buffer %s %q, alone %s %q", i, j, got[j].ID, got[j].HTML, want[j].ID, want[j].HTML)
					}
					// Both ways share the renderer's code: hold each to the
					// fragment rendered on its own (a whole one), or to its
					// element (one that adds).
					f := got[j]
					if open := `id="` + f.ID + `"`; !bytes.HasPrefix(f.HTML, []byte("<")) || !bytes.Contains(f.HTML[:bytes.IndexByte(f.HTML, '>')+1], []byte(open)) {
						t.Fatalf("step %d: fragment %s does not start with its element: %.120q", i, f.ID, f.HTML)
					}
					if f.Full != nil {
						continue
					}
					var alone bytes.Buffer
					if err := into.Render(slices.IndexFunc(live.Fragments(), func(p demo.Part) bool { return p.ID == f.ID }), &alone); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(f.HTML, alone.Bytes()) {
						t.Fatalf("step %d: fragment %s is not what it renders on its own:\n%q\n%q", i, f.ID, f.HTML, alone.Bytes())
					}
				}
			}
		})
	}
}

// TestSnapshotWritten: a demo that writes its snapshot as it encodes it
// (demo.SnapshotWriter) writes SnapshotJSON's text, through its load steps
// and a reset; the kinds that matter most for a frame's weight do.
func TestSnapshotWritten(t *testing.T) {
	writers := 0
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			sw, ok := live.Instance().(demo.SnapshotWriter)
			if !ok {
				t.Skipf("%s writes its snapshot as a string", k.Name)
			}
			writers++
			for i := range 3*len(k.Load) + 1 {
				var b bytes.Buffer
				if err := sw.WriteSnapshotJSON(&b); err != nil {
					t.Fatal(err)
				}
				if want := live.Instance().SnapshotJSON(); b.String() != want {
					t.Fatalf("step %d: written\n%s\nSnapshotJSON\n%s", i, b.String(), want)
				}
				if i == 3*len(k.Load) {
					break
				}
				c := demo.Decode(&k, []byte(k.Load[i%len(k.Load)].Send))
				if i == 3*len(k.Load)-1 {
					c = demo.Command{Action: "reset"}
				}
				if err := live.Apply(c); err != nil {
					t.Fatal(err)
				}
				live.Advance(time.Second)
				sw = live.Instance().(demo.SnapshotWriter)
			}
		})
	}
	if writers < 4 {
		t.Errorf("%d kinds write their snapshots as they encode them, want 4 (all but pipeline, whose snapshot packs a large world)", writers)
	}
}

// TestFramesKeepThePage: a page that takes every frame as the page does
// (static/app.js: a fragment replaces the element of its id, keeping what
// it holds with hx-preserve; a list adds its new items at one end and
// drops its oldest at the other) is, after every action, the page a
// visitor loading it then would get: for every demo, through random
// clicks, time passing, resets and a look at the past. Frames that add to
// the page's lists (Renderer.Appends), replace single items of them (a
// List's) and carry whole fragments all meet.
func TestFramesKeepThePage(t *testing.T) {
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) { keepsThePage(t, k, demo.RoleOwner) })
		// A room's follower's frames, which travel the bus and may be
		// lost, carry whole lists: the panels that hold them still keep
		// the page's.
		t.Run(k.Name+"/follower", func(t *testing.T) { keepsThePage(t, k, demo.RoleFollower) })
	}
}

func keepsThePage(t *testing.T, k demo.Kind, role string) {
	live := demo.Start(&k, demo.Options{})
	live.Advance(time.Millisecond) // a fresh demo's page carries no snapshot (TestFreshPageKeepsNoSnapshot)
	v := demo.View{Lang: ui.En, SID: "0123456789abcdef0123456789abcdef", Role: role}
	section := func() string {
		var b strings.Builder
		if err := live.Section(v).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	page := parsePage(t, section())
	r := live.Renderer(v)
	r.Appends = role == demo.RoleOwner
	rng := rand.New(rand.NewPCG(7, uint64(len(k.Name))))
	items := 0                             // fragments whose frame replaced single items
	fromEnd := 0                           // fragments whose frame dropped items from a list's end
	for step := range racetest.Runs(160) { // a fifth under the race detector, which finds nothing here
		frame, err := r.Frame(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frame {
			if applyFrame(t, page, string(f.HTML)) != f.ID {
				items++
			}
			if strings.Contains(string(f.HTML), `hx-swap-oob="afterbegin" data-drop`) {
				fromEnd++
			}
		}
		if got, want := renderPage(t, page), renderPage(t, parsePage(t, section())); got != want {
			t.Fatalf("step %d: the page frames made differs from a fresh one:\n%s", step, diffAround(want, got))
		}
		var c demo.Command
		switch {
		case step%40 == 19:
			c = demo.Command{Action: "reset"}
		case step%100 == 25:
			c = demo.Command{Action: demo.ActTimeline, At: live.Now().Milliseconds() / 2}
		case step%100 == 28:
			c = demo.Command{Action: demo.ActTimelineLive}
		default:
			clicks := demotest.Clicks(t, live, rng)
			if len(clicks) == 0 || rng.IntN(4) == 0 {
				c = demo.Decode(&k, []byte(k.Load[step%len(k.Load)].Send))
			} else {
				c = demo.Decode(&k, []byte(clicks[rng.IntN(len(clicks))]))
			}
		}
		_ = live.Apply(c) // a refusal changes nothing, and shows in the page's error
		live.Advance(time.Duration(rng.IntN(1500)) * time.Millisecond)
	}
	t.Logf("%d fragments replaced single items of a list, %d dropped items from its end", items, fromEnd)
	switch {
	case role == demo.RoleFollower && items+fromEnd > 0:
		t.Error("a follower's frame replaced single items of a list: it may miss frames")
	case role == demo.RoleFollower:
	case k.Name == "triggers" && items == 0:
		t.Error("no frame replaced single rows of a stream's lane")
	case k.Name == "reconcile" && (items == 0 || fromEnd == 0):
		t.Error("no frame replaced a single pod's card, or dropped the last pods alone")
	}
}

// parsePage parses a page's section into a tree under a <body>.
func parsePage(t *testing.T, s string) *html.Node {
	t.Helper()
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(s), body)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		body.AppendChild(n)
	}
	return body
}

// applyFrame takes one fragment's HTML into page as static/app.js does,
// and returns the id of the last element it replaced or added to.
func applyFrame(t *testing.T, page *html.Node, frag string) (last string) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(frag), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Type != html.ElementNode {
			continue
		}
		id := demotest.Attr(n, "id")
		old := byID(page, id)
		if old == nil {
			continue
		}
		last = id
		if oob := demotest.Attr(n, "hx-swap-oob"); oob != "" {
			list := old
			if lists := demotest.FindAll(old, func(m *html.Node) bool { return m.Data == "ol" && m != old }); len(lists) > 0 {
				list = lists[0]
			}
			top := oob == "afterbegin"
			drop, _ := strconv.Atoi(demotest.Attr(n, "data-drop"))
			for ; drop > 0; drop-- {
				c := lastElement(list)
				if !top {
					c = firstElement(list)
				}
				list.RemoveChild(c)
			}
			first := firstElement(list)
			for c := n.FirstChild; c != nil; c = n.FirstChild {
				n.RemoveChild(c)
				if top {
					list.InsertBefore(c, first)
				} else {
					list.AppendChild(c)
				}
			}
			continue
		}
		for _, p := range demotest.FindAll(n, func(m *html.Node) bool { return hasAttr(m, "hx-preserve") }) {
			if o := byID(page, demotest.Attr(p, "id")); o != nil {
				o.Parent.RemoveChild(o)
				p.Parent.InsertBefore(o, p)
				p.Parent.RemoveChild(p)
			}
		}
		old.Parent.InsertBefore(n, old)
		old.Parent.RemoveChild(old)
	}
	return last
}

func byID(n *html.Node, id string) *html.Node {
	if found := demotest.FindAll(n, func(m *html.Node) bool { return m.Type == html.ElementNode && demotest.Attr(m, "id") == id }); len(found) > 0 {
		return found[0]
	}
	return nil
}

func hasAttr(n *html.Node, key string) bool {
	return n.Type == html.ElementNode && slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == key })
}

func firstElement(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

func lastElement(n *html.Node) *html.Node {
	for c := n.LastChild; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// renderPage renders a page's tree as text, one element a line, without
// what the page's script keeps up to date itself: a list's length
// (data-value, which it sets on a list it adds to) and a countdown's text
// (from its data-eta); nor hx-preserve, on a preserved element which the
// page kept.
func renderPage(t *testing.T, page *html.Node) string {
	t.Helper()
	var b strings.Builder
	for c := page.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			t.Fatal(err)
		}
	}
	s := strings.ReplaceAll(b.String(), "><", ">\n<")
	s = strings.ReplaceAll(s, ` hx-preserve=""`, "")
	s = olValue.ReplaceAllString(s, "$1")
	return countdown.ReplaceAllString(s, "$1")
}

var (
	olValue   = regexp.MustCompile(`(<ol [^>]*?) data-value="\d+"`)
	countdown = regexp.MustCompile(`( data-eta-format="[^"]*">)[^<]*`)
)

// diffAround shows where two renders first differ.
func diffAround(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d\nwant: %.600s\ngot:  %.600s", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
