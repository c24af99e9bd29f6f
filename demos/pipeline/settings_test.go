package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/reconcile-demo/reconcile-demo/internal/golden"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestSettingsPanelWritesItsGolden: the settings panel, written by hand, is
// what its templ component wrote (testdata/settings.golden), for an
// owner's page at the start and for a follower's (its buttons off) with
// every setting the other way; the demos' goldens hold it too.
func TestSettingsPanelWritesItsGolden(t *testing.T) {
	var got strings.Builder
	for _, p := range []Props{
		{Lang: ui.Ja, Settings: SettingsProps{Dependency: true, NotReady: "error", StatusWrite: "on-change", Predicate: true, Workers: 1, QueueKind: "priority"}},
		{Lang: ui.En, ReadOnly: true, Settings: SettingsProps{NotReady: notReadyValues[2], StatusWrite: "always", Workers: 2, QueueKind: "classic", SecretWatch: true}},
		{Lang: ui.Ja, Settings: SettingsProps{NotReady: "requeue", StatusWrite: "always", Workers: 2, QueueKind: "classic"}},
	} {
		if err := settingsPanel(&p).Render(context.Background(), &got); err != nil {
			t.Fatal(err)
		}
		got.WriteString("\n")
	}
	golden.Check(t, "testdata/settings.golden", got.String())
}
