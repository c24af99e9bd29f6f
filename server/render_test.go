package server

// Rendering: golden fragments, fragments that own their ids, the test ids
// DESIGN.md promises, and the language of every page and frame.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
)

// TestPageIDsUnique: no id appears twice on any page (a swap would land on
// the wrong element). Each demo checks that its fragments own their ids
// (package demotest).
func TestPageIDsUnique(t *testing.T) {
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
			{id: "spec-restore-from", attrs: []string{"data-value"}, value: "backup-07-28"},
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
	ts := startServer(t, Config{Sim: demo.Options{StartDelay: 50 * time.Millisecond, Cadence: 20 * time.Millisecond}})
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
		// The help dialog it loads when it is opened.
		if b := findAll(doc, func(n *html.Node) bool { return n.Data == "body" }); page.want == 200 {
			_, help := page.ts.get(t, attr(b[0], "data-help"), nil)
			if !strings.Contains(string(help), "Keyboard shortcuts") {
				t.Errorf("GET %s: its help %q is not the English one: %.100q", page.path, attr(b[0], "data-help"), help)
			} else if i := strings.IndexFunc(string(help), japanese); i >= 0 {
				t.Errorf("GET %s: its help has Japanese: %q", page.path, string(help)[i:min(len(help), i+60)])
			}
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
