package controlplane

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// What the page shows of the engine's truth pass (issue #19): both
// unreachable taints, podIPs and Ready, readyReplicas, each pod's
// toleration, and the notes where the demo simplifies.

// page renders every fragment of d for lang, parsed, by id.
func page(t *testing.T, d *Demo, lang ui.Lang) map[string]*html.Node {
	t.Helper()
	out := map[string]*html.Node{}
	for id, h := range demotest.RenderAll(t, demo.Wrap(&Kind, d), demo.View{Lang: lang, SID: demotest.SID}) {
		if nodes := demotest.Parse(t, h); len(nodes) == 1 {
			out[id] = nodes[0]
		}
	}
	return out
}

// nodeOutage returns a live demo with six pods whose node-1 has just gone
// Unknown and been tainted.
func nodeOutage(t *testing.T) *Demo {
	t.Helper()
	d := live(t)
	must(t, d.SetReplicas(6))
	settle(t, d)
	must(t, d.SetNode("node-1", false))
	must(t, d.Skip()) // Ready → Unknown
	settle(t, d)      // the taints and the pods' Ready=False land
	return d
}

// An Unknown node's card shows both unreachable taints, one element each
// (NoSchedule keeps new pods off, NoExecute evicts after the toleration),
// and they go when the node is Ready again.
func TestNodeCardShowsBothTaints(t *testing.T) {
	d := nodeOutage(t)
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		card := page(t, d, l)["cp-n-node-1"]
		if demotest.Attr(card, "data-ready") != "Unknown" || demotest.Attr(card, "data-tainted") != "true" {
			t.Fatalf("node-1 is %s, tainted %s", demotest.Attr(card, "data-ready"), demotest.Attr(card, "data-tainted"))
		}
		var effects []string
		for _, tn := range demotest.ByTestID(card, "taint") {
			if k := demotest.Attr(tn, "data-key"); k != cp.TaintUnreachable {
				t.Errorf("a taint %q", k)
			}
			effects = append(effects, demotest.Attr(tn, "data-effect"))
		}
		if strings.Join(effects, ",") != "NoSchedule,NoExecute" {
			t.Fatalf("%s: node-1's taints %q", l, effects)
		}
		if other := demotest.ByTestID(page(t, d, l)["cp-n-node-2"], "taint"); len(other) != 0 {
			t.Fatal("node-2 shows a taint")
		}
	}
	must(t, d.SetNode("node-1", true))
	settle(t, d)
	if tn := demotest.ByTestID(page(t, d, ui.Ja)["cp-n-node-1"], "taint"); len(tn) != 0 {
		t.Fatalf("node-1, Ready again, still shows %d taints", len(tn))
	}
}

// Every pod the kubelet runs shows its podIP, from its node's podCIDR,
// unique, and its Ready condition: True once Running, False once the node
// controller marks the pods of an Unknown node.
func TestPodsShowTheirIPAndReady(t *testing.T) {
	d := nodeOutage(t)
	seen := map[string]string{}
	for id, n := range page(t, d, ui.En) {
		if !strings.HasPrefix(id, "cp-n-") {
			continue
		}
		cidr := demotest.Attr(n, "data-pod-cidr")
		want := regexp.MustCompile(`^` + regexp.QuoteMeta(strings.TrimSuffix(cidr, "0/24")) + `\d+$`)
		for _, p := range demotest.ByTestID(n, "pod") {
			name, ip, ready := demotest.Attr(p, "data-name"), demotest.Attr(p, "data-ip"), demotest.Attr(p, "data-ready")
			if !want.MatchString(ip) {
				t.Errorf("%s on %s (%s) has the IP %q", name, id, cidr, ip)
			}
			if other, dup := seen[ip]; dup {
				t.Errorf("%s and %s share %s", name, other, ip)
			}
			seen[ip] = name
			if !strings.Contains(text(p), ip) {
				t.Errorf("%s does not show its IP: %q", name, text(p))
			}
			wantReady := "True"
			if id == "cp-n-node-1" {
				wantReady = "False"
			}
			if ready != wantReady || !strings.Contains(text(p), map[string]string{"True": "Ready", "False": "Ready=False"}[wantReady]) {
				t.Errorf("%s on %s: Ready %q, shows %q", name, id, ready, text(p))
			}
		}
	}
	if len(seen) != 6 {
		t.Fatalf("%d pods with an IP, want 6", len(seen))
	}
	// A pod the kubelet has not started has neither.
	must(t, d.SetComponent(cp.ProcessScheduler, false))
	must(t, d.SetReplicas(7))
	settle(t, d)
	tray := page(t, d, ui.Ja)["cp-tray"]
	pods := demotest.ByTestID(tray, "pod")
	if len(pods) != 1 || demotest.Attr(pods[0], "data-ip") != "" || demotest.Attr(pods[0], "data-ready") != "False" {
		t.Fatalf("the unscheduled pod: %d pods, %v", len(pods), pods)
	}
}

// The Deployment and the ReplicaSet show the readyReplicas their
// controllers wrote: none before they exist, 3 after the guide's roll-up,
// fewer while a node's pods are not Ready.
func TestObjectsShowReadyReplicas(t *testing.T) {
	ready := func(d *Demo) (dep, rs string) {
		objs := page(t, d, ui.Ja)["cp-objects"]
		for _, who := range []struct {
			id  string
			out *string
		}{{"deployment", &dep}, {"replicaset", &rs}} {
			*who.out = "-"
			if n := demotest.ByTestID(objs, who.id); len(n) == 1 {
				if r := demotest.ByTestID(n[0], "ready-replicas"); len(r) == 1 {
					*who.out = demotest.Attr(r[0], "data-value")
				}
			}
		}
		return dep, rs
	}
	d := NewDemo()
	if dep, rs := ready(d); dep != "-" || rs != "-" {
		t.Fatalf("before the apply: %s %s", dep, rs)
	}
	must(t, d.FinishGuide())
	if dep, rs := ready(d); dep != "0" || rs != "0" {
		t.Fatalf("at the guide's end, before the roll-up: %s %s", dep, rs)
	}
	settle(t, d)
	if dep, rs := ready(d); dep != "3" || rs != "3" {
		t.Fatalf("after the roll-up: %s %s", dep, rs)
	}
	d = nodeOutage(t)
	if dep, rs := ready(d); dep != "4" || rs != "4" {
		t.Fatalf("with node-1's two pods not Ready: %s %s", dep, rs)
	}
}

// The eviction countdown is the pods' toleration: each pod on the tainted
// node carries its deadline, DefaultTolerationSeconds after the node
// controller saw it there, and the card counts down to the first, in the
// demo's time (base included).
func TestEvictionCountdownIsTheToleration(t *testing.T) {
	d := live(t)
	d.Reset() // a base, so that the demo's time and the engine's differ
	must(t, d.FinishGuide())
	settle(t, d)
	must(t, d.SetNode("node-1", false))
	must(t, d.Skip())
	settle(t, d)
	if d.Base() == 0 {
		t.Fatal("no base")
	}
	card := page(t, d, ui.En)["cp-n-node-1"]
	var first int64
	for _, p := range demotest.ByTestID(card, "pod") {
		at, err := strconv.ParseInt(demotest.Attr(p, "data-evict-at"), 10, 64)
		if err != nil {
			t.Fatalf("%s: data-evict-at %q", demotest.Attr(p, "data-name"), demotest.Attr(p, "data-evict-at"))
		}
		for _, v := range d.Cluster().Pods() {
			if v.Name == demotest.Attr(p, "data-name") && (d.Base()+v.EvictAt).Milliseconds() != at {
				t.Fatalf("%s evicted at %d, the engine's %v after %v", v.Name, at, v.EvictAt, d.Base())
			}
		}
		if first == 0 || at < first {
			first = at
		}
	}
	etas := demotest.FindAll(card, func(n *html.Node) bool { return demotest.Attr(n, "data-eta") != "" })
	if len(etas) != 1 || demotest.Attr(etas[0], "data-eta") != strconv.FormatInt(first, 10) {
		t.Fatalf("the card counts down to %v, want %d", etas, first)
	}
	if !strings.Contains(text(etas[0]), "toleration (300 s)") {
		t.Fatalf("the countdown says %q", text(etas[0]))
	}
	// The tainted node's heard-of-it time is a second after the Unknown at
	// most: the toleration is what makes the wait five minutes.
	if wait := time.Duration(first)*time.Millisecond - d.Now(); wait < cp.DefaultTolerationSeconds-2*time.Second || wait > cp.DefaultTolerationSeconds {
		t.Fatalf("eviction in %v", wait)
	}
	for _, p := range demotest.ByTestID(page(t, d, ui.En)["cp-n-node-2"], "pod") {
		if demotest.Attr(p, "data-evict-at") != "" {
			t.Fatalf("a pod on node-2 is being evicted")
		}
	}
}

// The guide's bar ends on the chapter's eleventh message, not on the status
// roll-up that follows it; a visitor's action live moves it on.
func TestGuideEndsOnItsEleventhMessage(t *testing.T) {
	d := live(t)
	if n := len(d.Cluster().Messages()); d.Cluster().Messages()[n-1].Step != 0 {
		t.Fatal("no roll-up after the guide")
	}
	eleventh, _ := cp.GuideStepInfo(cp.GuideSteps)
	g := d.guide(ui.Ja)
	if g.Label != "PATCH Pod status ×3" || g.After != eleventh.Caption.After || g.Head != T(ui.Ja, "guide.11.head") {
		t.Fatalf("the guide's bar says %q (%s → %s)", g.Label, g.Before, g.After)
	}
	must(t, d.SetReplicas(4))
	settle(t, d)
	if g := d.guide(ui.Ja); g.Label == "PATCH Pod status ×3" || g.After != "" {
		t.Fatalf("live, the bar still says %q", g.Label)
	}
}

// Every note is on the page from its first load, once, inside the demo,
// with its topic, in both languages; during the guide and live alike.
func TestNotesByTopic(t *testing.T) {
	for _, d := range []*Demo{NewDemo(), nodeOutage(t)} {
		for _, l := range []ui.Lang{ui.Ja, ui.En} {
			var b bytes.Buffer
			v := demo.View{Lang: l, SID: demotest.SID, WSURL: "/ws"}
			if err := demo.Wrap(&Kind, d).Section(v).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			doc := demotest.Parse(t, b.String())[0]
			if demotest.Attr(doc, "data-testid") != "controlplane-demo" {
				t.Fatalf("the section is %q", demotest.Attr(doc, "data-testid"))
			}
			count := map[string]int{}
			var order []string
			for _, n := range demotest.ByTestID(doc, "note") {
				topic := demotest.Attr(n, "data-topic")
				count[topic]++
				order = append(order, topic)
				if demotest.Attr(n, "class") != "real" || strings.TrimSpace(text(n)) != words.T(l, "note."+topic) {
					t.Errorf("note %s: class %q, text %q", topic, demotest.Attr(n, "class"), text(n))
				}
			}
			if strings.Join(order, " ") != strings.Join(Notes, " ") {
				t.Fatalf("%s: the notes %q, want %q", l, order, Notes)
			}
		}
	}
	for _, must := range []string{NoteInformer, NoteHeartbeat, NoteBinding, NotePodLifecycle, NoteDeadline, NoteVersion} {
		found := false
		for _, n := range Notes {
			found = found || n == must
		}
		if !found {
			t.Errorf("no note on %s", must)
		}
	}
}

// text returns n's text content.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
