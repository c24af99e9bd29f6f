package templates_test

import (
	"testing"

	"github.com/reconcile-demo/reconcile-demo/templates"
	"github.com/reconcile-demo/reconcile-demo/templates/wordstest"
)

func TestSharedCatalogComplete(t *testing.T) {
	wordstest.Complete(t, templates.Shared())
}

func TestSharedCatalogChapterWords(t *testing.T) { wordstest.ChapterWords(t, templates.Shared()) }

func TestSharedKeysUsedExist(t *testing.T) {
	wordstest.Used(t, nil, []string{"*.templ", "*.go", "../server/*.go", "../demos/demo/*.go"},
		[]string{"err.decode", "err.action", "err.field", "err.range", "err.rate", "err.snapshot",
			"log.watch-start", "log.watch-stop", "log.reset", "log.restored", "trigger.tick", "trigger.step", "eta.startsin"}, 20)
}

func TestParseLangDefaultsToJapanese(t *testing.T) {
	for in, want := range map[string]templates.Lang{"": templates.Ja, "ja": templates.Ja, "en": templates.En,
		"EN": templates.Ja, "fr": templates.Ja, "en-US": templates.Ja} {
		if got := templates.ParseLang(in); got != want {
			t.Errorf("ParseLang(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCatalogFallsBack(t *testing.T) {
	words := templates.Catalog{"x.own": {"自分", "own"}, "ctl.pause": {"上書き", "overridden"}}
	if got := words.T(templates.En, "x.own"); got != "own" {
		t.Errorf("own key: %q", got)
	}
	if got := words.T(templates.Ja, "ctl.resume"); got != templates.T(templates.Ja, "ctl.resume") {
		t.Errorf("shared key: %q", got)
	}
	if got := words.T(templates.En, "ctl.pause"); got != "overridden" {
		t.Errorf("a demo's key comes first: %q", got)
	}
	if got := words.T(templates.En, "no.such.key"); got != "no.such.key" {
		t.Errorf("missing key: %q", got)
	}
	if !words.Has("ctl.resume") || words.Has("no.such.key") {
		t.Error("Has")
	}
}
