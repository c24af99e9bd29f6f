package server

// Rendering: golden fragments, fragments that own their ids, the test ids
// DESIGN.md promises, and the language of every page and frame.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	tmpl "github.com/reconcile-demo/reconcile-demo/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenSID is the session id of golden renders.
const goldenSID = "0123456789abcdef0123456789abcdef"

// demoStates are deterministic demos: the engine is pure, so the same
// commands and time steps always render the same fragments.
var demoStates = []struct {
	name, kind string
	build      func() (demo, string) // the demo and the refusal it shows
}{
	{"reconcile_fresh", "reconcile", func() (demo, string) { return newDemo("reconcile", sim.Options{}), "" }},
	{"reconcile_acted", "reconcile", func() (demo, string) {
		d := newDemo("reconcile", sim.Options{})
		d.apply(command{Action: "step"}) // creates pod-1..3
		d.Advance(2 * time.Second)       // they run
		d.apply(command{Action: "kill", Name: "pod-2"})
		d.apply(command{Action: "set-replicas", N: 4})
		d.Advance(time.Second) // the controller replaces pod-2 and adds one
		return d, "range"
	}},
	{"operator_fresh", "operator", func() (demo, string) { return newDemo("operator", sim.Options{}), "" }},
	{"operator_acted", "operator", func() (demo, string) {
		d := newDemo("operator", sim.Options{})
		d.apply(command{Action: "step"}) // restore
		d.apply(command{Action: "step"}) // create db-1
		d.Advance(2 * time.Second)       // db-1 ready
		d.apply(command{Action: "step"}) // create db-2
		d.apply(command{Action: "backup", On: false})
		return d, "member"
	}},
}

// refusalText is the refusal a golden state shows.
func refusalText(l tmpl.Lang, which string) string {
	switch which {
	case "range":
		return errorText(l, &rejection{Key: "err.range", Args: []any{"replicas", 0, sim.MaxDesired}})
	case "member":
		return errorText(l, &rejection{Key: "err.member", Args: []any{"db-9"}})
	}
	return ""
}

// renderFragments renders a demo's fragments, each preceded by a comment
// naming its id.
func renderFragments(t *testing.T, d demo, l tmpl.Lang, errText string) ([]fragment, []string) {
	t.Helper()
	frags := d.fragments(l, goldenSID, errText, true)
	out := make([]string, len(frags))
	for i, f := range frags {
		var b bytes.Buffer
		if err := f.comp.Render(context.Background(), &b); err != nil {
			t.Fatalf("render %s: %v", f.id, err)
		}
		out[i] = b.String()
	}
	return frags, out
}

// TestFragmentsGolden compares each demo's fragments with testdata/; run
// with -update to rewrite them after an intended change.
func TestFragmentsGolden(t *testing.T) {
	for _, st := range demoStates {
		for _, l := range []tmpl.Lang{tmpl.Ja, tmpl.En} {
			name := st.name + "_" + string(l)
			t.Run(name, func(t *testing.T) {
				d, refusal := st.build()
				frags, htmls := renderFragments(t, d, l, refusalText(l, refusal))
				var b strings.Builder
				for i, f := range frags {
					fmt.Fprintf(&b, "<!-- %s -->\n%s\n", f.id, htmls[i])
				}
				path := filepath.Join("testdata", name+".golden")
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./server/ -run TestFragmentsGolden -update to create it)", err)
				}
				if got := b.String(); got != string(want) {
					t.Errorf("%s differs from the render (go test ./server/ -run TestFragmentsGolden -update rewrites it):\n%s",
						path, firstDiff(string(want), got))
				}
			})
		}
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d\nwant: %.400s\ngot:  %.400s", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// TestFragmentsOwnTheirIDs: each fragment is one top-level element carrying
// its id (htmx-ext-ws swaps by id), ids are unique, and each id is on the
// page, so that a swap has a target.
func TestFragmentsOwnTheirIDs(t *testing.T) {
	ts := startServer(t, Config{Sim: quiet})
	pages := map[string]*html.Node{}
	for _, path := range []string{"/reconcile", "/operator", "/", "/embed/reconcile", "/embed/operator"} {
		resp, body := ts.get(t, path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		pages[path] = parsePage(t, body)
		// Duplicate ids on a page make a swap land on the wrong element.
		seen := map[string]bool{}
		for _, n := range findAll(pages[path], func(n *html.Node) bool { return attr(n, "id") != "" }) {
			if id := attr(n, "id"); seen[id] {
				t.Errorf("%s: id %q appears twice", path, id)
			} else {
				seen[id] = true
			}
		}
	}
	for _, st := range demoStates {
		for _, l := range []tmpl.Lang{tmpl.Ja, tmpl.En} {
			t.Run(st.name+"_"+string(l), func(t *testing.T) {
				d, refusal := st.build()
				frags, htmls := renderFragments(t, d, l, refusalText(l, refusal))
				ids := map[string]bool{}
				for i, f := range frags {
					if ids[f.id] {
						t.Errorf("two fragments own %q", f.id)
					}
					ids[f.id] = true
					nodes, err := parseFragments(htmls[i])
					if err != nil {
						t.Errorf("%s: %v", f.id, err)
					}
					if len(nodes) != 1 || attr(nodes[0], "id") != f.id {
						var got []string
						for _, n := range nodes {
							got = append(got, "<"+n.Data+" id="+attr(n, "id")+">")
						}
						t.Errorf("fragment %s renders top-level %v, want one element with id %q", f.id, got, f.id)
					}
					for _, path := range []string{"/" + st.kind, "/", "/embed/" + st.kind} {
						if len(findAll(pages[path], func(n *html.Node) bool { return attr(n, "id") == f.id })) != 1 {
							t.Errorf("%s has no element with id %q for the fragment to replace", path, f.id)
						}
					}
				}
			})
		}
	}
}

// TestPageTestIDs: every data-testid DESIGN.md lists is on the page, or in
// the frames once there is something to show, with its state attributes.
func TestPageTestIDs(t *testing.T) {
	ts := startServer(t, Config{Sim: quiet})
	type want struct {
		id    string
		attrs []string // attributes it must carry
		value string   // data-value on a fresh page, when it has one to check
	}
	check := func(t *testing.T, where string, find func(string) []*html.Node, wants []want) {
		t.Helper()
		for _, w := range wants {
			ns := find(w.id)
			if len(ns) == 0 {
				t.Errorf("%s: no data-testid=%q", where, w.id)
				continue
			}
			for _, n := range ns {
				for _, a := range w.attrs {
					if !hasAttr(n, a) {
						t.Errorf("%s: data-testid=%q without %s: %.200s", where, w.id, a, render(n))
					}
				}
			}
			if w.value != "" && attr(ns[0], "data-value") != w.value {
				t.Errorf("%s: data-testid=%q data-value=%q, want %q", where, w.id, attr(ns[0], "data-value"), w.value)
			}
		}
	}
	shared := []want{
		{id: "controller-toggle", attrs: []string{"aria-pressed"}},
		{id: "step"}, {id: "reset"},
		{id: "connection", attrs: []string{"data-state"}},
		{id: "log", attrs: []string{"data-value"}},
	}

	t.Run("reconcile", func(t *testing.T) {
		_, body := ts.get(t, "/reconcile", nil)
		doc := parsePage(t, body)
		find := func(id string) []*html.Node { return byTestID(doc, id) }
		check(t, "/reconcile", find, append(slices.Clone(shared), []want{
			{id: "reconcile-demo", attrs: []string{"data-sid", "ws-connect"}},
			{id: "desired", attrs: []string{"data-value"}, value: "3"},
			{id: "replicas-inc"}, {id: "replicas-dec"},
			{id: "replicas-input", attrs: []string{"name", "min", "max", "value"}},
			{id: "observed", attrs: []string{"data-value"}, value: "0"},
			{id: "diff", attrs: []string{"data-converged"}},
			{id: "actions", attrs: []string{"data-value"}, value: "0"},
		}...))
		if n := byTestID(doc, "controller-toggle"); len(n) == 1 && attr(n[0], "aria-pressed") != "true" {
			t.Errorf("the reconcile controller starts off; DESIGN.md: it starts running")
		}
		if n := byTestID(doc, "connection"); len(n) == 1 && attr(n[0], "data-state") != "connecting" {
			t.Errorf("connection starts %q, want connecting", attr(n[0], "data-state"))
		}
		if n := byTestID(doc, "diff"); len(n) == 1 && attr(n[0], "data-converged") != "false" {
			t.Errorf("diff of a fresh demo: data-converged=%q, want false", attr(n[0], "data-converged"))
		}

		// Pods, their kill buttons and the reconcile's actions come with a step.
		sid := attr(byTestID(doc, "reconcile-demo")[0], "data-sid")
		c := dial(t, ts, "reconcile", sid, "")
		c.send(htmx("step"))
		c.waitFor("3 pods", func() bool { return len(c.pods()) == 3 })
		check(t, "frames after a step", c.testids, []want{
			{id: "pod", attrs: []string{"data-name", "data-phase"}},
			{id: "kill", attrs: []string{"data-pod"}},
			{id: "actions", attrs: []string{"data-value"}, value: "3"},
			{id: "action", attrs: []string{"data-kind", "data-pod"}},
		})
		for _, pod := range c.testids("pod") {
			if len(findAll(pod, func(n *html.Node) bool { return attr(n, "data-testid") == "kill" })) != 1 {
				t.Errorf("pod %s has no kill button inside", attr(pod, "data-name"))
			}
		}
	})

	t.Run("operator", func(t *testing.T) {
		_, body := ts.get(t, "/operator", nil)
		doc := parsePage(t, body)
		find := func(id string) []*html.Node { return byTestID(doc, id) }
		check(t, "/operator", find, append(slices.Clone(shared), []want{
			{id: "operator-demo", attrs: []string{"data-sid", "ws-connect"}},
			{id: "spec-members", attrs: []string{"data-value"}, value: "3"},
			{id: "members-inc"}, {id: "members-dec"},
			{id: "spec-restore-from", attrs: []string{"data-value"}, value: sim.OperatorBackup},
			{id: "backup-toggle", attrs: []string{"aria-pressed"}},
			{id: "backup", attrs: []string{"data-present"}},
			{id: "status-phase", attrs: []string{"data-value"}, value: "Pending"},
			{id: "status-members", attrs: []string{"data-value"}, value: "0"},
			{id: "status-leader", attrs: []string{"data-value"}},
			{id: "status-restored", attrs: []string{"data-value"}, value: "false"},
		}...))
		if n := byTestID(doc, "controller-toggle"); len(n) == 1 && attr(n[0], "aria-pressed") != "false" {
			t.Errorf("the operator controller starts on; DESIGN.md: it starts stopped")
		}
		if n := byTestID(doc, "backup"); len(n) == 1 && attr(n[0], "data-present") != "true" {
			t.Errorf("backup starts data-present=%q, want true", attr(n[0], "data-present"))
		}

		// A member appears with the second step (the first restores).
		sid := attr(byTestID(doc, "operator-demo")[0], "data-sid")
		c := dial(t, ts, "operator", sid, "")
		c.send(htmx("step"))
		c.send(htmx("step"))
		c.waitFor("a member", func() bool { return len(c.pods()) == 1 })
		check(t, "frames after two steps", c.testids, []want{
			{id: "member", attrs: []string{"data-name", "data-ready", "data-leader"}},
			{id: "kill-member", attrs: []string{"data-member"}},
			{id: "status-restored", value: "true"},
			{id: "status-phase", value: "Creating"},
		})
		for _, m := range c.testids("member") {
			if len(findAll(m, func(n *html.Node) bool { return attr(n, "data-testid") == "kill-member" })) != 1 {
				t.Errorf("member %s has no kill-member button inside", attr(m, "data-name"))
			}
		}
	})
}

// japanese reports whether r is a kana, a CJK ideograph, or Japanese
// punctuation or full-width form.
func japanese(r rune) bool {
	return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// japaneseIn returns the Japanese text of a document or fragment, skipping
// elements marked as another language (the switch to 日本語 is marked lang="ja").
func japaneseIn(n *html.Node) []string {
	var out []string
	has := func(s string) bool { return strings.IndexFunc(s, japanese) >= 0 }
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if l := attr(n, "lang"); l != "" && l != "en" {
				return
			}
			for _, a := range n.Attr {
				if has(a.Val) {
					out = append(out, fmt.Sprintf("<%s %s=%q>", n.Data, a.Key, a.Val))
				}
			}
		}
		if n.Type == html.TextNode && has(n.Data) {
			out = append(out, strings.TrimSpace(n.Data))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// TestEnglishHasNoJapanese: ?lang=en pages and the frames of an English
// session, after every kind of action and refusal, are all English.
func TestEnglishHasNoJapanese(t *testing.T) {
	ts := startServer(t, Config{Sim: sim.Options{StartDelay: 50 * time.Millisecond, Cadence: 20 * time.Millisecond}})
	busy := startServer(t, Config{MaxSessions: 1}) // "/" needs two sessions: always busy
	for _, page := range []struct {
		ts   *testServer
		path string
		want int
	}{
		{ts, "/?lang=en", 200}, {ts, "/reconcile?lang=en", 200}, {ts, "/operator?lang=en", 200},
		{ts, "/embed/reconcile?lang=en", 200}, {ts, "/embed/operator?lang=en", 200},
		{ts, "/reconcile?lang=en&mode=present", 200}, {ts, "/nope?lang=en", 404}, {busy, "/?lang=en", 503},
	} {
		resp, body := page.ts.get(t, page.path, nil)
		if resp.StatusCode != page.want {
			t.Errorf("GET %s: %s, want %d", page.path, resp.Status, page.want)
		}
		doc := parsePage(t, body)
		if h := findAll(doc, func(n *html.Node) bool { return n.Data == "html" }); len(h) != 1 || attr(h[0], "lang") != "en" {
			t.Errorf("GET %s: <html lang> is not en", page.path)
		}
		if ja := japaneseIn(doc); len(ja) > 0 {
			t.Errorf("GET %s has Japanese: %q", page.path, ja)
		}
	}

	for _, tc := range []struct {
		kind    string
		actions []string
		done    func(c *wsClient) bool
	}{
		{"reconcile", []string{
			htmx("step"), htmx("kill", "pod", "pod-1"), htmx("kill", "pod", "pod-1"), htmx("set-replicas", "replicas", 11),
			htmx("explode"), `{`, htmx("set-replicas", "replicas", "abc"), htmx("speed", "speed", "2"),
			htmx("replicas-inc"), htmx("replicas-dec"), htmx("set-replicas", "replicas", 0), htmx("set-replicas", "replicas", 2),
			htmx("controller", "on", false), htmx("kill", "pod", "pod-4"), htmx("step"), htmx("controller", "on", true),
			htmx("pause", "paused", true), htmx("pause", "paused", false), htmx("reset"), htmx("step"),
			htmx("set-replicas", "replicas", 4),
		}, func(c *wsClient) bool {
			diff := c.testids("diff")
			return c.value("desired") == "4" && c.value("observed") == "4" && len(diff) == 1 && attr(diff[0], "data-converged") == "true"
		}},
		{"operator", []string{
			restoreMsg(map[string]any{"v": 9}), htmx("step"), htmx("step"), htmx("kill-member", "member", "db-9"),
			htmx("controller", "on", true), htmx("members-inc"), htmx("set-members", "members", 99),
			htmx("backup", "present", false), htmx("kill-member", "member", "db-1"), htmx("backup", "present", true),
			htmx("reset"), htmx("pause", "paused", true), htmx("pause", "paused", false), htmx("set-members", "members", 2),
		}, func(c *wsClient) bool {
			return c.value("spec-members") == "2" && c.value("status-members") == "2" && c.value("status-phase") == "Ready"
		}},
	} {
		t.Run(tc.kind+" frames", func(t *testing.T) {
			c := dial(t, ts, tc.kind, newSID(), "en")
			for _, a := range tc.actions {
				c.send(a)
			}
			c.waitFor("the demo to settle", func() bool { return tc.done(c) })
			for _, f := range c.frames {
				nodes, _ := parseFragments(f)
				for _, n := range nodes {
					if ja := japaneseIn(n); len(ja) > 0 {
						t.Errorf("frame fragment %s has Japanese: %q", attr(n, "id"), ja)
					}
				}
			}
		})
	}
}

// TestJapaneseIsDefault: without lang, or with one we do not speak, pages
// and frames are Japanese.
func TestJapaneseIsDefault(t *testing.T) {
	ts := startServer(t, Config{Sim: quiet})
	for _, path := range []string{"/", "/reconcile", "/operator", "/embed/reconcile", "/reconcile?lang=fr", "/reconcile?lang=EN"} {
		_, body := ts.get(t, path, nil)
		doc := parsePage(t, body)
		if h := findAll(doc, func(n *html.Node) bool { return n.Data == "html" }); len(h) != 1 || attr(h[0], "lang") != "ja" {
			t.Errorf("GET %s: <html lang> is not ja", path)
		}
		if strings.IndexFunc(string(body), japanese) < 0 {
			t.Errorf("GET %s has no Japanese", path)
		}
		if demo := findAll(doc, func(n *html.Node) bool { return hasAttr(n, "ws-connect") }); len(demo) == 0 ||
			!strings.Contains(attr(demo[0], "ws-connect"), "lang=ja") {
			t.Errorf("GET %s: the socket is not opened in Japanese", path)
		}
	}
	c := dial(t, ts, "reconcile", newSID(), "")
	c.send(`{`)
	c.waitFor("the refusal", c.errorShown)
	if strings.IndexFunc(render(c.frags["rc-error"]), japanese) < 0 {
		t.Errorf("a socket without lang refuses in %q, want Japanese", render(c.frags["rc-error"]))
	}
}
