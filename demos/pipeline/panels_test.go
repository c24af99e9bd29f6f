package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/internal/golden"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestSettingsPanelWritesItsGolden: the settings panel, written by hand, is
// what its templ component wrote (testdata/settings.golden), for an
// owner's page at the start and for a follower's (its buttons off) with
// every setting the other way; the demos' goldens hold it too.
func TestSettingsPanelWritesItsGolden(t *testing.T) {
	checkPanelGolden(t, "testdata/settings.golden", settingsPanel, []Props{
		{Lang: ui.Ja, Settings: SettingsProps{Dependency: true, NotReady: "error", StatusWrite: "on-change", Predicate: true, Workers: 1, QueueKind: "priority"}},
		{Lang: ui.En, ReadOnly: true, Settings: SettingsProps{NotReady: notReadyValues[2], StatusWrite: "always", Workers: 2, QueueKind: "classic", SecretWatch: true}},
		{Lang: ui.Ja, Settings: SettingsProps{NotReady: "requeue", StatusWrite: "always", Workers: 2, QueueKind: "classic"}},
	})
}

// TestWorkersLaneWritesItsGolden: the workers lane, written by hand, is
// what its templ component wrote (testdata/workers.golden): the controller
// off; and on, with an idle worker and busy ones at each beat, with and
// without an action, names escaped.
func TestWorkersLaneWritesItsGolden(t *testing.T) {
	eta := &ui.ETA{At: 4315, Format: "report in %.1fs", Text: "report in 0.1s"}
	beats := func(now int) []BeatProps {
		var out []BeatProps
		for i, n := range []string{"observe", "compare", "act", "report"} {
			state := "next"
			switch {
			case i < now:
				state = "done"
			case i == now:
				state = "now"
			}
			out = append(out, BeatProps{Name: n, State: state})
		}
		return out
	}
	checkPanelGolden(t, "testdata/workers.golden", workersLane, []Props{
		{Lang: ui.Ja, Settings: SettingsProps{Workers: 1}},
		{Lang: ui.En, On: true, Settings: SettingsProps{Workers: 2}, Workers: []WorkerProps{
			{N: 1},
			{N: 2, Busy: true, Key: "default/app-<2>", Phase: "act", Beats: beats(2), Started: "00:03.9", ETA: eta, Seen: `saw "rv" 7 & more`, Action: "create <ConfigMap>"},
		}},
		{Lang: ui.Ja, On: true, Settings: SettingsProps{Workers: 2}, Workers: []WorkerProps{
			{N: 1, Busy: true, Key: "default/app-1", Phase: "observe", Beats: beats(0), Started: "00:00.4", ETA: eta, Seen: "見たもの"},
			{N: 2, Busy: true, Key: "default/app-3", Phase: "report", Beats: beats(3), Started: "00:01.0", ETA: eta, Seen: "x", Action: "y"},
		}},
	})
}

// TestMetricsStripWritesItsGolden: the metrics strip, written by hand, is
// what its templ component wrote (testdata/metrics.golden): all zero, and
// with every count set and the errors hot.
func TestMetricsStripWritesItsGolden(t *testing.T) {
	checkPanelGolden(t, "testdata/metrics.golden", metricsStrip, []Props{
		{Lang: ui.Ja},
		{Lang: ui.En, Metrics: MetricsProps{Total: 39, Success: 10, Error: 23, RequeueAfter: 1, Requeue: 5, Depth: 2, Retries: 29,
			Adds: 70, External: 10, Conflicts: 2, AlreadyExists: 3, NotFound: 4, TooManyRequests: 6, Writes: 9, NoopWrites: 8}},
		{Lang: ui.Ja, Metrics: MetricsProps{Total: 1, Success: 1, TooManyRequests: 1}},
	})
}

// TestReportPanelWritesItsGolden: the lab's report, written by hand, is
// what its templ component wrote (testdata/report.golden): empty, and rows
// of every shape (a requeue with and without its wait, a reason, names
// escaped).
func TestReportPanelWritesItsGolden(t *testing.T) {
	checkPanelGolden(t, "testdata/report.golden", reportPanel, []Props{
		{Lang: ui.Ja},
		{Lang: ui.En, Report: []RowProps{
			{Key: "default/app-1", Name: "app-1", At: "00:01.2", Worker: 1, Took: "0.4", Seen: "rv 7 <gen 1>", Action: "create", Requeue: "after",
				RequeueIn: "5s", RequeueMs: 5000, Status: "written", Result: "requeue_after", Reconciles: 3},
			{Key: "default/app-2", Name: "app-2", At: "00:02.0", Worker: 2, Took: "1.2", Seen: "s", Action: "noop", Requeue: "none",
				Status: "unchanged", Result: "error", Reason: `Conflict "x" & y`, Reconciles: 12},
		}},
		{Lang: ui.Ja, Report: []RowProps{
			{Key: "default/app-3", At: "00:09.9", Worker: 1, Took: "0.4", Seen: "見た", Action: "update", Requeue: "backoff", RequeueIn: "0.1s",
				RequeueMs: 100, Status: "conflict", Result: "success", Reconciles: 1},
		}},
	})
}

// checkPanelGolden renders panel for each of props, a line each, and holds
// the lines to the golden at path (internal/golden).
func checkPanelGolden(t *testing.T, path string, panel func(*Props) templ.Component, props []Props) {
	t.Helper()
	var got strings.Builder
	for _, p := range props {
		if err := panel(&p).Render(context.Background(), &got); err != nil {
			t.Fatal(err)
		}
		got.WriteString("\n")
	}
	golden.Check(t, path, got.String())
}

// TestCacheLaneWritesItsGolden: the cache lane, written by hand, is what
// its templ component wrote (testdata/cache.golden): off; entries in each
// state; no event in flight, and more in flight than it lists.
func TestCacheLaneWritesItsGolden(t *testing.T) {
	eta := &ui.ETA{At: 1500, Format: "arrives in %.1fs", Text: "arrives in 0.3s"}
	checkPanelGolden(t, "testdata/cache.golden", cacheLane, []Props{
		{Lang: ui.Ja},
		{Lang: ui.En, On: true, Cache: CacheProps{Entries: []CacheEntry{
			{Kind: "App", Name: "app-1", RV: 15, StoreRV: 18, State: "stale"},
			{Kind: "App", Name: "app-<2>", RV: 16, StoreRV: 16, State: "fresh"},
			{Kind: "ConfigMap", Name: "app-1-config", StoreRV: 4, State: "missing"},
			{Kind: "Secret", Name: "app-db", RV: 3, State: "gone"},
		}}},
		{Lang: ui.Ja, On: true, Cache: CacheProps{Entries: []CacheEntry{{Kind: "App", Name: "app-1", RV: 1, StoreRV: 1, State: "fresh"}},
			InFlight: []FlightProps{{Type: "MODIFIED", Kind: "App", Name: "app-1", RV: 18, ETA: eta}, {Type: "ADDED", Kind: "ConfigMap", Name: "a&b", RV: 19, ETA: eta}},
			Flights:  5}},
		{Lang: ui.En, On: true, Cache: CacheProps{InFlight: []FlightProps{{Type: "DELETED", Kind: "App", Name: "app-3", RV: 20, ETA: eta}}, Flights: 1}},
	})
}

// TestTrapItemWritesItsGolden: a trap, written by hand, is what its templ
// component wrote (testdata/trap.golden): off as it starts, off with its
// settings changed, and on with its words, its trigger and its fixes (one
// wrong, one done), for an owner and a follower.
func TestTrapItemWritesItsGolden(t *testing.T) {
	on := TrapProps{Name: "slow-object", On: true, Title: "A slow <object>", Cause: `cause "c" & d`, Symptom: "symptom", Fix: "fix it",
		Why: "why", Now: "workers 2", Custom: true,
		Trigger: &ButtonProps{ID: "pp-trap-slow-object-try", Label: "try <it>", Vals: `{"action":"edit","name":"app-1"}`},
		Fixes: []ButtonProps{
			{ID: "pp-fix-1", Label: "workers 1", Fix: "workers=1", Vals: `{"action":"workers","n":1}`, Wrong: true},
			{ID: "pp-fix-2", Label: "requeue", Fix: "requeue", Vals: `{"action":"not-ready","value":"requeue"}`, Done: true},
		}}
	noTrigger := on
	noTrigger.Trigger, noTrigger.Why, noTrigger.Name = nil, "", "runaway"
	checkPanelGolden(t, "testdata/trap.golden", trapItem, []Props{
		{Lang: ui.Ja, Trap: TrapProps{Name: "lost-event", Title: "イベントの取りこぼし", Now: "x"}},
		{Lang: ui.En, Trap: TrapProps{Name: "lost-event", Title: "Lost events", Now: "drop on", Custom: true}},
		{Lang: ui.En, Trap: on},
		{Lang: ui.Ja, ReadOnly: true, Trap: on},
		{Lang: ui.En, Trap: noTrigger},
	})
}
