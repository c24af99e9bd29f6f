package server

import (
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestFirstFrameReplacesEveryControl holds what lets static/app.js send a
// control's message itself, once the socket's first frame is in: htmx took
// on every ws-send control of the page as it loaded, and its listener
// sends too, so each of those controls must be gone by then, replaced by
// a fragment of that first frame. A control outside every fragment would
// send each click twice.
func TestFirstFrameReplacesEveryControl(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	kinds := make([]string, 0, len(ts.srv.kinds))
	for name := range ts.srv.kinds {
		kinds = append(kinds, name)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		for _, path := range []string{"/" + kind, "/" + kind + "?lang=en", "/" + kind + "?mode=present", "/embed/" + kind + "?lang=en"} {
			_, body := ts.get(t, path, nil)
			page := parsePage(t, body)
			demos := findAll(page, func(n *html.Node) bool { return attr(n, "data-demo") == kind })
			if len(demos) != 1 {
				t.Fatalf("%s: %d demos", path, len(demos))
			}
			lang := "ja"
			if strings.Contains(path, "lang=en") {
				lang = "en"
			}
			c := dial(t, ts, kind, attr(demos[0], "data-sid"), lang)
			firstFrameReplaces(t, path, demos[0], c.frames[0])
		}
	}

	// The home page, with a demo of each of two kinds, each on its socket.
	_, body := ts.get(t, "/", nil)
	demos := findAll(parsePage(t, body), func(n *html.Node) bool { return hasAttr(n, "data-demo") })
	if len(demos) == 0 {
		t.Fatal("/: no demo")
	}
	for _, d := range demos {
		c := dial(t, ts, attr(d, "data-demo"), attr(d, "data-sid"), "ja")
		firstFrameReplaces(t, "/ ("+attr(d, "data-demo")+")", d, c.frames[0])
	}

	// A room's page, whose first frame is the room's.
	owner := dial(t, ts, "reconcile", newSID(), "en")
	code := openRoom(t, owner)
	_, body = ts.get(t, "/room/"+code+"?lang=en", nil)
	follower := follow(t, ts, code, "en", "rc")
	firstFrameReplaces(t, "/room/"+code, parsePage(t, body), follower.frames[0])
}

// firstFrameReplaces fails the test unless every ws-send control under
// root (a demo, or a page of one) lies within an element that a fragment
// of frame replaces.
func firstFrameReplaces(t *testing.T, what string, root *html.Node, frame string) {
	t.Helper()
	frags, err := parseFragments(frame)
	if err != nil {
		t.Fatalf("%s: first frame: %v", what, err)
	}
	replaced := map[string]bool{}
	for _, f := range frags {
		if attr(f, "hx-swap-oob") == "" { // a list the frame adds to keeps what it holds
			replaced[attr(f, "id")] = true
		}
	}
	controls := findAll(root, func(n *html.Node) bool { return hasAttr(n, "ws-send") })
	if len(controls) == 0 {
		t.Fatalf("%s: no ws-send control", what)
	}
	for _, n := range controls {
		in := ""
		for p := n; p != nil && in == ""; p = p.Parent {
			if replaced[attr(p, "id")] {
				in = attr(p, "id")
			}
		}
		if in == "" {
			t.Errorf("%s: control %s is in no fragment of the first frame: htmx's listener and the page would both send its clicks", what, strings.TrimSpace(render(n)[:min(len(render(n)), 160)]))
		}
	}
}
