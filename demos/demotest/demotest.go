// Package demotest checks, in a demo package's tests, what every demo owes
// the server and the page (DESIGN.md, "What every demo has"): fragments that
// own their ids and have a place in the section, the frame's test ids, a
// snapshot that restores, English without Japanese, and golden renders.
package demotest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/a-h/templ"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// SID is the session id of the renders this package checks.
const SID = "0123456789abcdef0123456789abcdef"

// State is a demo in a deterministic state: the engines are pure, so the
// same commands and time steps always render the same fragments.
type State struct {
	Name  string
	Build func() demo.Instance
	// Refusal is the refusal the state shows, if any.
	Refusal *demo.Rejection
}

// Check runs every check of this package on each state of kind k.
func Check(t *testing.T, k demo.Kind, states []State) {
	t.Helper()
	for _, st := range states {
		for _, l := range []templates.Lang{templates.Ja, templates.En} {
			t.Run(st.Name+"_"+string(l), func(t *testing.T) {
				live := demo.Wrap(&k, st.Build())
				v := demo.View{Lang: l, SID: SID, WSURL: "/ws?demo=" + k.Name + "&sid=" + SID}
				if st.Refusal != nil {
					v.Error = st.Refusal.Text(l)
				}
				frags := RenderAll(t, live, v)
				section := RenderOne(t, live.Section(v))
				checkFrame(t, k, section)
				checkFragments(t, k, live.Fragments(), frags, section)
				if l == templates.En {
					for id, h := range frags {
						if ja := JapaneseIn(h); len(ja) > 0 {
							t.Errorf("English fragment %s has Japanese: %q", id, ja)
						}
					}
					if ja := JapaneseIn(section); len(ja) > 0 {
						t.Errorf("English section has Japanese: %q", ja)
					}
				}
				checkSnapshot(t, k, frags[k.Prefix+"-snapshot"])
				golden(t, st.Name+"_"+string(l), live.Fragments(), frags)
			})
		}
	}
}

// RenderAll renders every fragment of a live demo for v, by id.
func RenderAll(t *testing.T, live *demo.Live, v demo.View) map[string]string {
	t.Helper()
	all, err := live.Renderer(v).All()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range all {
		out[f.ID] = string(f.HTML)
	}
	return out
}

// RenderOne renders a component.
func RenderOne(t *testing.T, c templ.Component) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatalf("render: %v", err)
	}
	return b.String()
}

// checkFrame checks the demo's root: its test id, kind, session and socket.
func checkFrame(t *testing.T, k demo.Kind, section string) {
	t.Helper()
	nodes := Parse(t, section)
	if len(nodes) != 1 || nodes[0].Data != "section" {
		t.Fatalf("the section renders %d top-level elements, want one <section>", len(nodes))
	}
	root := nodes[0]
	for key, want := range map[string]string{"id": k.Prefix, "data-testid": k.Name + "-demo", "data-demo": k.Name,
		"data-sid": SID, "data-role": "owner", "hx-ext": "ws", "ws-connect": "/ws?demo=" + k.Name + "&sid=" + SID} {
		if got := Attr(root, key); got != want {
			t.Errorf("the root's %s=%q, want %q", key, got, want)
		}
	}
	for _, id := range []string{"clock", "connection", "step", "pause", "speed", "error", "live"} {
		if len(ByTestID(root, id)) == 0 {
			t.Errorf("the section has no data-testid=%q", id)
		}
	}
}

// checkFragments checks that each fragment is one element carrying its id,
// that ids are unique and start with the demo's prefix, and that the
// section has exactly one element of each id for a swap to replace.
//
// The section is composed from the same list as the frames: each
// fragment's HTML stands in the section exactly as a frame sends it.
// inPage is a fragment's HTML as its page has it: the fragments it holds
// that its frames keep as the page has them (an empty element with
// hx-preserve), as their own frames send them.
func inPage(h string, htmls map[string]string) string {
	for {
		was := h
		h = preserved.ReplaceAllStringFunc(h, func(el string) string {
			if inner, ok := htmls[preserved.FindStringSubmatch(el)[2]]; ok {
				return inner
			}
			return el
		})
		if h == was { // a kept fragment may keep one of its own (the range its marks)
			return h
		}
	}
}

var preserved = regexp.MustCompile(`<(\w+) id="([^"]+)"[^>]* hx-preserve></(\w+)>`)

func checkFragments(t *testing.T, k demo.Kind, frags []demo.Part, htmls map[string]string, section string) {
	t.Helper()
	sec := Parse(t, section)
	seen := map[string]bool{}
	for _, f := range frags {
		if seen[f.ID] {
			t.Errorf("two fragments own %q", f.ID)
		}
		seen[f.ID] = true
		if !strings.HasPrefix(f.ID, k.Prefix+"-") {
			t.Errorf("fragment %q does not start with the demo's prefix %q", f.ID, k.Prefix)
		}
		nodes := Parse(t, htmls[f.ID])
		if len(nodes) != 1 || Attr(nodes[0], "id") != f.ID {
			t.Errorf("fragment %s renders %d top-level elements, want one with id %q", f.ID, len(nodes), f.ID)
		}
		if n := len(FindAll(sec[0], func(n *html.Node) bool { return Attr(n, "id") == f.ID })); n != 1 {
			t.Errorf("the section has %d elements with id %q, want 1", n, f.ID)
		}
		if !strings.Contains(section, inPage(htmls[f.ID], htmls)) {
			t.Errorf("fragment %s is not in the section as a frame sends it:\n%.300s", f.ID, htmls[f.ID])
		}
	}
	for _, want := range []string{"-clock", "-controls", "-error", "-live", "-snapshot", "-room"} {
		if !seen[k.Prefix+want] {
			t.Errorf("no fragment %s%s", k.Prefix, want)
		}
	}
	ids := map[string]bool{}
	for _, n := range FindAll(sec[0], func(n *html.Node) bool { return Attr(n, "id") != "" }) {
		if ids[Attr(n, "id")] {
			t.Errorf("id %q appears twice in the section", Attr(n, "id"))
		}
		ids[Attr(n, "id")] = true
	}
}

// checkSnapshot restores the snapshot the page keeps, and checks that the
// restored demo writes the same snapshot.
func checkSnapshot(t *testing.T, k demo.Kind, fragment string) {
	t.Helper()
	nodes := Parse(t, fragment)
	if len(nodes) != 1 {
		t.Fatalf("no snapshot fragment")
	}
	raw := Attr(nodes[0], "data-snapshot")
	if Attr(nodes[0], "data-sid") != SID {
		t.Errorf("the snapshot fragment does not name its session")
	}
	live, err := demo.Resume(&k, demo.Options{}, json.RawMessage(raw))
	if err != nil {
		t.Fatalf("the page's snapshot does not restore: %v\n%s", err, raw)
	}
	again := RenderAll(t, live, demo.View{Lang: templates.Ja, SID: SID})[k.Prefix+"-snapshot"]
	if got := Attr(Parse(t, again)[0], "data-snapshot"); got != raw {
		t.Errorf("snapshot round trip:\n got %s\nwant %s", got, raw)
	}
	var env struct {
		V    int    `json:"v"`
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal([]byte(raw), &env); err != nil || env.V != 1 || env.Kind != k.Name {
		t.Errorf("the snapshot's envelope is %+v, want v 1 and kind %q", env, k.Name)
	}
	if len(raw) > 6<<10 {
		t.Errorf("the snapshot is %d bytes: a page sends it back in one message (8 KB at most)", len(raw))
	}
}

// golden compares the fragments with testdata/<name>.golden; run the
// package's tests with -update to rewrite them after an intended change.
func golden(t *testing.T, name string, frags []demo.Part, htmls map[string]string) {
	t.Helper()
	var b strings.Builder
	for _, f := range frags {
		fmt.Fprintf(&b, "<!-- %s -->\n%s\n", f.ID, htmls[f.ID])
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
		t.Fatalf("%v (run the package's tests with -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("%s differs from the render (run the package's tests with -update to rewrite it):\n%s",
			path, firstDiff(string(want), got))
	}
}

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

// Parse parses an HTML fragment into its top-level elements.
func Parse(t *testing.T, s string) []*html.Node {
	t.Helper()
	ctx := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var out []*html.Node
	for _, n := range nodes {
		if n.Type == html.ElementNode {
			out = append(out, n)
		} else if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			t.Errorf("text %q outside any element", n.Data)
		}
	}
	return out
}

// Attr returns n's attribute key, or "".
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// FindAll returns n and its descendants that match.
func FindAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// ByTestID returns the elements under n with data-testid id.
func ByTestID(n *html.Node, id string) []*html.Node {
	return FindAll(n, func(n *html.Node) bool { return Attr(n, "data-testid") == id })
}

// Japanese reports whether r is a kana, a CJK ideograph, or Japanese
// punctuation or a full-width form.
func Japanese(r rune) bool {
	return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// JapaneseIn returns the Japanese text and attribute values of an HTML
// string.
func JapaneseIn(s string) []string {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	has := func(s string) bool { return strings.IndexFunc(s, Japanese) >= 0 }
	for _, n := range FindAll(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			if has(a.Val) {
				out = append(out, fmt.Sprintf("<%s %s=%q>", n.Data, a.Key, a.Val))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && has(c.Data) {
				out = append(out, strings.TrimSpace(c.Data))
			}
		}
	}
	return out
}

// CheckLoad drives a fresh demo through its load steps twice, as the load
// generator does: each step must be accepted, and its Expect must be absent
// before it and present after it.
func CheckLoad(t *testing.T, k demo.Kind) {
	t.Helper()
	if len(k.Load) < 2 {
		t.Fatalf("%s has %d load steps; the load generator cycles through at least two", k.Name, len(k.Load))
	}
	in := demo.Start(&k, demo.Options{})
	page := func() string {
		var b strings.Builder
		for _, h := range RenderAll(t, in, demo.View{Lang: templates.Ja, SID: SID}) {
			b.WriteString(h)
		}
		return b.String()
	}
	for round := 0; round < 2; round++ {
		for i, st := range k.Load {
			if strings.Contains(page(), st.Expect) {
				t.Fatalf("load step %d: %q is on the page before %s", i, st.Expect, st.Send)
			}
			c := demo.Decode(&k, []byte(st.Send))
			if c.Reject != nil {
				t.Fatalf("load step %d: %s refused: %v", i, st.Send, c.Reject)
			}
			if err := in.Apply(c); err != nil {
				t.Fatalf("load step %d: %s: %v", i, st.Send, err)
			}
			if !strings.Contains(page(), st.Expect) {
				t.Fatalf("load step %d: %q is not on the page after %s", i, st.Expect, st.Send)
			}
		}
	}
}

// Keys checks that a live demo's keys are honest: it renders every
// fragment after each step, and fails when a fragment's HTML changed while
// its key did not (a frame would then miss the change). Call Step after
// each command or time step of a test.
type Keys struct {
	r    *demo.Renderer
	keys []uint64
	html []string
}

// NewKeys starts checking live's keys for viewer v.
func NewKeys(t *testing.T, live *demo.Live, v demo.View) *Keys {
	t.Helper()
	k := &Keys{r: live.Renderer(v)}
	k.Step(t)
	return k
}

// pageDrawn matches the text of a countdown, which the page draws from its
// own clock between frames (static/app.js): a fragment need not be sent
// again because only its countdown's text moved on.
var pageDrawn = regexp.MustCompile(`(data-eta-format="[^"]*">)[^<]*(</span>)`)

// Step renders every fragment and compares it with the last step's.
func (k *Keys) Step(t *testing.T) {
	t.Helper()
	frags := len(k.keys)
	for i := range k.r.Len() {
		var b bytes.Buffer
		if err := k.r.Render(i, &b); err != nil {
			t.Fatal(err)
		}
		key, h := k.r.Key(i), pageDrawn.ReplaceAllString(b.String(), "$1$2")
		if i < frags && k.keys[i] == key && k.html[i] != h {
			at := 0
			for at < min(len(h), len(k.html[i])) && h[at] == k.html[i][at] {
				at++
			}
			from := max(0, at-200)
			t.Fatalf("fragment %d changed but its key did not, at byte %d:\nwas: …%.400s\nnow: …%.400s", i, at, k.html[i][from:], h[from:])
		}
		if i < frags {
			k.keys[i], k.html[i] = key, h
		} else {
			k.keys, k.html = append(k.keys, key), append(k.html, h)
		}
	}
}

// Notes checks a fresh demo's notes, the one-line notes where it
// simplifies real Kubernetes (demo.Note): in both languages, the section
// holds each of topics exactly once and no other note; each is a
// <p class="real"> with text of its own (not its key), outside every
// fragment, so that it is on the page from its first load whatever the
// state; and the demo's README.md (in the test's directory) names each
// topic in backquotes.
func Notes(t *testing.T, k demo.Kind, topics ...string) {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range topics {
		if !strings.Contains(string(readme), "`"+topic+"`") {
			t.Errorf("README.md does not list the note %q", topic)
		}
	}
	for _, l := range []templates.Lang{templates.Ja, templates.En} {
		live := demo.Wrap(&k, k.New(demo.Options{}))
		sec := Parse(t, RenderOne(t, live.Section(demo.View{Lang: l, SID: SID, WSURL: "/ws?demo=" + k.Name + "&sid=" + SID})))
		frags := map[string]bool{}
		for _, f := range live.Fragments() {
			frags[f.ID] = true
		}
		seen := map[string]int{}
		for _, n := range ByTestID(sec[0], "note") {
			topic := Attr(n, "data-topic")
			seen[topic]++
			text := strings.TrimSpace(textOf(n))
			switch {
			case n.Data != "p" || Attr(n, "class") != "real":
				t.Errorf("%s: note %q is <%s class=%q>, want <p class=\"real\">", l, topic, n.Data, Attr(n, "class"))
			case text == "" || !strings.ContainsAny(text, " 、。"):
				t.Errorf("%s: note %q says %q: no sentence (a missing key?)", l, topic, text)
			}
			for p := n.Parent; p != nil; p = p.Parent {
				if frags[Attr(p, "id")] {
					t.Errorf("%s: note %q is inside fragment %s, which frames replace", l, topic, Attr(p, "id"))
				}
			}
		}
		for _, topic := range topics {
			if seen[topic] != 1 {
				t.Errorf("%s: note %q appears %d times, want once", l, topic, seen[topic])
			}
			delete(seen, topic)
		}
		for topic := range seen {
			t.Errorf("%s: note %q is on the page but not in the test's list (nor, then, in the README)", l, topic)
		}
	}
}

// textOf returns the text under n.
func textOf(n *html.Node) string {
	var b strings.Builder
	for _, m := range FindAll(n, func(*html.Node) bool { return true }) {
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
	}
	return b.String()
}
