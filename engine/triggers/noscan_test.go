package triggers

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/internal/noscan"
)

// TestTheStreamsAndLogsHoldNoPointer: the collector skips a session's
// streams, their views and its logs only while none of these holds a
// pointer (a string, a slice).
func TestTheStreamsAndLogsHoldNoPointer(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[Event](), reflect.TypeFor[StreamEvent](),
		reflect.TypeFor[LogEntry](), reflect.TypeFor[Action]()} {
		if noscan.HasPointer(typ) {
			t.Errorf("a %v holds a pointer: the collector scans every session's streams and logs", typ)
		}
	}
}

// TestTheActionsOfAnEntryAreBounded: a log entry has room for the most a
// controller does at once, and each side can do that much: the level side
// 2·MaxDesired (every pod of MaxDesired killed, then one recount), the edge
// side MaxDesired (desired from 0 to MaxDesired).
func TestTheActionsOfAnEntryAreBounded(t *testing.T) {
	w := New()
	mustDesired(t, w, MaxDesired)
	w.Advance(10 * time.Second)
	for _, p := range w.View(Level).Pods {
		mustKill(t, w, p.Name)
	}
	r := w.Step()
	if n := len(r.Level.Actions()); n != maxActions || maxActions != 2*MaxDesired {
		t.Fatalf("the level side did %d at once, want %d (room for %d)", n, 2*MaxDesired, maxActions)
	}

	w = New()
	mustDesired(t, w, 0)
	w.Advance(10 * time.Second)
	mustDesired(t, w, MaxDesired)
	w.Advance(DeliveryDelay)
	log := w.View(Edge).Log
	if e := log[len(log)-1]; e.Heard.Kind != DesiredChanged || len(e.Actions()) != MaxDesired {
		t.Fatalf("the edge side heard %+v and did %d, want %d", e.Heard, len(e.Actions()), MaxDesired)
	}
}

// TestSpellings: each value is spelled as the page and the snapshots spell
// it, and only the spellings parse back; the zero value is spelled "" and
// "" parses to nothing.
func TestSpellings(t *testing.T) {
	kinds := map[EventKind]string{PodCreated: "created", PodRunning: "running", PodDied: "died",
		PodDeleted: "deleted", DesiredChanged: "desired", 0: ""}
	for k, s := range kinds {
		if k.String() != s {
			t.Errorf("kind %d spelled %q, want %q", k, k.String(), s)
		}
		if got, ok := parseEventKind(s); ok != (k != 0) || got != k {
			t.Errorf("kind %q parses to %d, %v", s, got, ok)
		}
	}
	fates := map[Fate]string{Delivered: "delivered", Dropped: "dropped", Duplicated: "duplicated", Swapped: "swapped", 0: ""}
	for f, s := range fates {
		if f.String() != s {
			t.Errorf("fate %d spelled %q, want %q", f, f.String(), s)
		}
		if got, ok := parseFate(s); ok != (f != 0) || got != f {
			t.Errorf("fate %q parses to %d, %v", s, got, ok)
		}
	}
	losses := map[Loss]string{LossBlip: "blip", LossDown: "down", LossRestart: "restart", LossOverflow: "overflow", LossNone: ""}
	for l, s := range losses {
		if l.String() != s {
			t.Errorf("loss %d spelled %q, want %q", l, l.String(), s)
		}
		if got, ok := parseLoss(s); ok != (l != LossNone) || got != l {
			t.Errorf("loss %q parses to %d, %v", s, got, ok)
		}
	}
	for _, s := range []string{"Created", "dropped ", "none", "0", "1"} {
		if _, ok := parseEventKind(s); ok {
			t.Errorf("kind %q parses", s)
		}
		if _, ok := parseFate(s); ok {
			t.Errorf("fate %q parses", s)
		}
		if _, ok := parseLoss(s); ok {
			t.Errorf("loss %q parses", s)
		}
	}
	triggers := map[Trigger]string{TriggerEvent: "event", TriggerResync: "resync", TriggerStep: "step",
		TriggerRestart: "restart", TriggerStartup: "startup", 0: ""}
	for tr, s := range triggers {
		if tr.String() != s {
			t.Errorf("trigger %d spelled %q, want %q", tr, tr.String(), s)
		}
	}
	acts := map[ActionKind]string{ActCreate: "create", ActDelete: "delete", ActDeleteGone: "delete-gone",
		ActDeleteUnknown: "delete-unknown", ActCreateRefused: "create-refused", 0: ""}
	for a, s := range acts {
		if a.String() != s {
			t.Errorf("action %d spelled %q, want %q", a, a.String(), s)
		}
	}
}

// TestPodNames: a pod's id is the N of pod-N, for every N a cluster's int
// counter reaches; no other name parses.
func TestPodNames(t *testing.T) {
	if PodID(0).String() != "" {
		t.Errorf("no pod spelled %q", PodID(0).String())
	}
	for n := PodID(1); n <= namedPods; n++ {
		if want := "pod-" + strconv.Itoa(int(n)); n.String() != want {
			t.Fatalf("pod %d spelled %q, want %q", n, n.String(), want)
		}
	}
	for _, n := range []uint64{1, 9, 10, 25, namedPods - 1, namedPods, 1 << 32, 1 << 50, 1<<63 - 1, 1<<64 - 1} {
		name := "pod-" + strconv.FormatUint(n, 10)
		id, ok := ParsePod(name)
		if !ok || uint64(id) != n || id.String() != name {
			t.Errorf("%s parses to %d, %v, spelled %q", name, id, ok, id.String())
		}
	}
	for _, name := range []string{"", "pod-", "pod-0", "pod-01", "pod-+1", "pod--1", "pod-1x", "pod-1 ", "Pod-1", "pod1",
		"pod-18446744073709551616"} {
		if id, ok := ParsePod(name); ok {
			t.Errorf("%q parses to %d", name, id)
		}
	}
}
