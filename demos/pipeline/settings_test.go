package pipeline

import (
	"context"
	"os"
	"strings"
	"testing"

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
	if os.Getenv("UPDATE_SETTINGS_GOLDEN") != "" {
		if err := os.WriteFile("testdata/settings.golden", []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/settings.golden")
	if err != nil {
		t.Fatal(err)
	}
	if g, w := got.String(), string(want); g != w {
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		t.Fatalf("settings differ from testdata/settings.golden at byte %d:\n got …%s\nwant …%s", i, g[max(0, i-60):min(len(g), i+80)], w[max(0, i-60):min(len(w), i+80)])
	}
}
