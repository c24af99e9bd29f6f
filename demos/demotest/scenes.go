package demotest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/templates"
)

// Scene is a moment of a demo that a chapter talks about, reached by real
// actions: its link opens the demo at exactly that moment, paused.
type Scene struct {
	Name  string // a slug: "edge-stuck"
	Title string // what the reader sees there, in the chapter's words
	// Play drives the demo to the moment with actions and time, as a
	// visitor would.
	Play func(p *Player)
}

// Player drives a live demo for a scene.
type Player struct {
	t    *testing.T
	k    *demo.Kind
	Live *demo.Live
}

// Do sends one action message (htmx-ext-ws JSON, as the page sends it); a
// refused one fails the test.
func (p *Player) Do(msg string) {
	p.t.Helper()
	c := demo.Decode(p.k, []byte(msg))
	if c.Reject != nil {
		p.t.Fatalf("scene action %s refused at decode: %v", msg, c.Reject)
	}
	if err := p.Live.Apply(c); err != nil {
		p.t.Fatalf("scene action %s refused: %v", msg, err)
	}
}

// Wait lets d of virtual time pass (at the demo's pace: 1× unless a scene
// changed it), in steps as a session's timer would.
func (p *Player) Wait(d time.Duration) {
	for d > 0 {
		step := min(d, 250*time.Millisecond)
		p.Live.Advance(step)
		d -= step
	}
}

// Until lets virtual time pass until cond holds, up to limit; a scene that
// never gets there fails the test.
func (p *Player) Until(limit time.Duration, what string, cond func(html map[string]string) bool) {
	p.t.Helper()
	for waited := time.Duration(0); ; waited += 100 * time.Millisecond {
		if cond(RenderAll(p.t, p.Live, demo.View{Lang: templates.Ja, SID: SID})) {
			return
		}
		if waited > limit {
			p.t.Fatalf("scene: %s did not happen within %v", what, limit)
		}
		p.Live.Advance(100 * time.Millisecond)
	}
}

// SceneLink is a scene's link: the demo's page at the moment.
func SceneLink(live *demo.Live, path string, at time.Duration) string {
	return live.MomentURL("", path, templates.Ja, at)
}

// CheckScenes plays each scene of kind k, writes its link, and checks that
// the link, opened afresh, shows the moment exactly as it was played: every
// fragment of the demo, as testdata/scenes.golden recorded it. The links are
// listed in the demo's README.md between <!-- scenes --> and
// <!-- /scenes -->; -update rewrites both.
func CheckScenes(t *testing.T, k demo.Kind, scenes []Scene) {
	t.Helper()
	var golden, readme strings.Builder
	view := demo.View{Lang: templates.Ja, SID: SID}
	for _, sc := range scenes {
		p := &Player{t: t, k: &k, Live: demo.Start(&k, demo.Options{})}
		sc.Play(p)
		at := p.Live.Now().Truncate(time.Millisecond)
		if at != p.Live.Now() {
			p.Live.Advance(time.Millisecond - p.Live.Now()%time.Millisecond)
			at = p.Live.Now()
		}
		played := demoFrags(t, p.Live, view)
		link := SceneLink(p.Live, "/"+k.Name, at)
		q := strings.SplitN(link, "?", 2)[1]
		opened, err := demo.OpenMoment(&k, demo.Options{}, queryValue(q, "moment"), at)
		if err != nil {
			t.Fatalf("scene %s: its link does not open: %v", sc.Name, err)
		}
		got := demoFrags(t, opened, view)
		ids := slices.Sorted(func(yield func(string) bool) {
			for id := range played {
				if !yield(id) {
					return
				}
			}
		})
		fmt.Fprintf(&golden, "## %s\n%s\n", sc.Name, link)
		for _, id := range ids {
			if id == k.Prefix+"-clock" || id == k.Prefix+"-controls" || id == k.Prefix+"-snapshot" {
				continue // a link opens paused
			}
			if got[id] != played[id] {
				t.Errorf("scene %s: its link opens %s otherwise:\n%s", sc.Name, id, diffAt(played[id], got[id]))
			}
			fmt.Fprintf(&golden, "<!-- %s -->\n%s\n", id, got[id])
		}
		fmt.Fprintf(&readme, "- **%s** (`%s`): [page](%s) · [embed](%s)\n", sc.Title, sc.Name, link,
			SceneLink(p.Live, "/embed/"+k.Name, at))
		if len(link) > 2000 {
			t.Errorf("scene %s: its link is %d characters, over 2,000", sc.Name, len(link))
		}
	}
	compareFile(t, filepath.Join("testdata", "scenes.golden"), golden.String())
	compareReadme(t, readme.String())
}

func queryValue(q, key string) string {
	for _, kv := range strings.Split(q, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

func compareFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the package's tests with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what the scenes play (run with -update after an intended change):\n%s", path, firstDiff(string(want), got))
	}
}

// compareReadme checks the demo's README lists the scenes' links between
// its markers.
func compareReadme(t *testing.T, list string) {
	t.Helper()
	const open, close = "<!-- scenes -->\n", "<!-- /scenes -->"
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(b, []byte(open)), bytes.Index(b, []byte(close))
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q block for the scenes", strings.TrimSpace(open), close)
	}
	if got := string(b[i+len(open) : j]); got != list {
		if *update {
			out := append(append(append([]byte{}, b[:i+len(open)]...), list...), b[j:]...)
			if err := os.WriteFile("README.md", out, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's scenes are not the links the scenes play (run with -update):\n%s", firstDiff(got, list))
	}
}
