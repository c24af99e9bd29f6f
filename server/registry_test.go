package server

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"

	"github.com/reconcile-demo/reconcile-demo/demos"
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// tally is a demo that exists only in this test: a count a visitor adds to.
// Registering it must be all it takes for the server to serve it.
var tally = demo.Kind{
	Name: "tally", Prefix: "tl", Chapter: "999",
	Title:   func(ui.Lang) string { return "Tally" },
	Short:   func(ui.Lang) string { return "Tally" },
	Summary: func(ui.Lang) string { return "A count that only grows." },
	Actions: map[string]demo.Action{"add": demo.Int("n", 1, 5)},
	Parts: demo.Declare(
		demo.Fragment("tl-count", (*tallyDemo).countKey, (*tallyDemo).count),
		demo.Error(),
		demo.Controls(),
		demo.LiveText(func(*tallyDemo) uint64 { return 0 }, func(*tallyDemo, ui.Lang) string { return "" }),
		demo.Snapshot(),
	),
	New: func(demo.Options) demo.Instance { return &tallyDemo{} },
	Restore: func(_ demo.Options, raw json.RawMessage) (demo.Instance, error) {
		var snap struct {
			V, N int
			Kind string
		}
		if err := demo.Strict(raw, &snap); err != nil {
			return nil, err
		}
		if snap.V != 1 || snap.Kind != "tally" || snap.N < 0 || snap.N > 1000 {
			return nil, fmt.Errorf("bad tally snapshot %+v", snap)
		}
		return &tallyDemo{n: snap.N}, nil
	},
}

type tallyDemo struct {
	n      int
	paused bool
}

func (d *tallyDemo) Now() time.Duration             { return 0 }
func (d *tallyDemo) Paused() bool                   { return d.paused }
func (d *tallyDemo) SetPaused(p bool)               { d.paused = p }
func (d *tallyDemo) Speed() sim.Speed               { return sim.Normal }
func (d *tallyDemo) SetSpeed(sim.Speed)             {}
func (d *tallyDemo) Advance(time.Duration)          {}
func (d *tallyDemo) NextDue() (time.Duration, bool) { return 0, false }
func (d *tallyDemo) Reconciles() int                { return d.n }
func (d *tallyDemo) SnapshotJSON() string {
	return `{"v":1,"kind":"tally","n":` + strconv.Itoa(d.n) + `}`
}
func (d *tallyDemo) countKey() uint64 { return uint64(d.n) }
func (d *tallyDemo) count(v demo.View) templ.Component {
	return rawHTML(`<output id="tl-count" data-testid="count" data-value="` + strconv.Itoa(d.n) + `"></output>`)
}
func (d *tallyDemo) Apply(c demo.Command) error {
	switch c.Action {
	case "add":
		if d.n+c.N > 10 {
			return demo.OutOfRange("n", 1, 10-d.n)
		}
		d.n += c.N
	}
	return nil
}

func rawHTML(s string) templ.Component { return templ.Raw(s) }

// TestDemoRegisteredByATestIsServed: a kind the server has never heard of,
// registered by this test, gets its page, its embed page, a place on the
// index, and a socket that accepts its actions and refuses the rest; a
// server without it serves none of that.
func TestDemoRegisteredByATestIsServed(t *testing.T) {
	ts := startServer(t, Config{Sim: quiet, Demos: append(demos.All(), tally)})
	for _, path := range []string{"/tally", "/embed/tally", "/tally?lang=en"} {
		resp, body := ts.get(t, path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		doc := parsePage(t, body)
		root := byTestID(doc, "tally-demo")
		if len(root) != 1 || !strings.Contains(attr(root[0], "ws-connect"), "demo=tally") || !validSID(attr(root[0], "data-sid")) {
			t.Fatalf("GET %s: no tally demo with a session and a socket", path)
		}
	}
	_, body := ts.get(t, "/", nil)
	if entries := byTestID(parsePage(t, body), "index-entry"); len(entries) != len(demos.All())+1 ||
		attr(entries[len(entries)-1], "data-kind") != "tally" {
		t.Fatalf("the index lists %d demos, the last %q; want the registry and tally last", len(entries),
			attr(entries[len(entries)-1], "data-kind"))
	}

	c := dial(t, ts, "tally", newSID(), "en")
	if c.value("count") != "0" {
		t.Fatalf("count starts at %q", c.value("count"))
	}
	c.send(htmx("add", "n", 2))
	c.send(htmx("add", "n", "3"))
	c.waitFor("count 5", func() bool { return c.value("count") == "5" })
	c.send(htmx("kill", "pod", "pod-1")) // the reconcile demo's action, not tally's
	c.waitFor("a refusal", c.errorShown)
	c.send(htmx("add", "n", 5))
	c.send(htmx("add", "n", 5)) // 15 > 10: refused by the demo
	c.waitFor("count 10", func() bool { return c.value("count") == "10" })
	c.waitFor("a refusal", c.errorShown)
	if got := ts.metric(t, `reconcile_demo_actions_total{action="add",demo="tally"}`); got != 4 {
		t.Errorf("actions_total{demo=tally,action=add} = %v, want 4 (one the demo refused)", got)
	}

	plain := startServer(t, Config{Sim: quiet})
	for _, path := range []string{"/tally", "/embed/tally"} {
		if resp, _ := plain.get(t, path, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("a server without tally answers GET %s with %s", path, resp.Status)
		}
	}
	_, resp, err := websocket.DefaultDialer.Dial(plain.wsURL("tally", newSID(), ""), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a server without tally accepted its socket: %v", err)
	}
}

// TestKindsAreChecked: New refuses a registry it could not serve.
func TestKindsAreChecked(t *testing.T) {
	bad := func(mod func(*demo.Kind)) []demo.Kind {
		k := tally
		mod(&k)
		return []demo.Kind{k}
	}
	for name, kinds := range map[string][]demo.Kind{
		"twice":          {tally, tally},
		"no name":        bad(func(k *demo.Kind) { k.Name = "" }),
		"upper case":     bad(func(k *demo.Kind) { k.Name = "Tally" }),
		"a server route": bad(func(k *demo.Kind) { k.Name = "metrics" }),
		"a path":         bad(func(k *demo.Kind) { k.Name = "a/b" }),
		"no prefix":      bad(func(k *demo.Kind) { k.Prefix = "" }),
		"no New":         bad(func(k *demo.Kind) { k.New = nil }),
		"no Restore":     bad(func(k *demo.Kind) { k.Restore = nil }),
		"no title":       bad(func(k *demo.Kind) { k.Title = nil }),
	} {
		if _, err := New(Config{Demos: kinds}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestServerNamesNoDemo: the server knows demos only through the registry.
// No file of server/ imports an engine or a demo package, or spells a demo
// kind.
func TestServerNamesNoDemo(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, k := range demos.All() {
		kinds[k.Name] = true
		kinds[k.Prefix] = true
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		n++
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(path, "/engine/") || (strings.Contains(path, "/demos/") && !strings.HasSuffix(path, "/demos/demo")) {
				t.Errorf("%s imports %s", f, path)
			}
		}
		for _, lit := range stringLiterals(file) {
			for k := range kinds {
				if lit == k || strings.Contains(lit, "/"+k) || strings.Contains(lit, k+"-") {
					t.Errorf("%s names the demo %q in %q", f, k, lit)
				}
			}
		}
	}
	if n < 5 {
		t.Fatalf("read only %d files", n)
	}
}

// stringLiterals returns the values of the string literals of a file,
// import paths aside.
func stringLiterals(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.ImportSpec); ok {
			return false
		}
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}
