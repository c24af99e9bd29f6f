package templates

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func japanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) || r == '「' || r == '」' || r == '、' || r == '。' || r == '（' || r == '）' {
			return true
		}
	}
	return false
}

func TestCatalogComplete(t *testing.T) {
	for _, k := range Keys() {
		m := catalog[k]
		if strings.TrimSpace(m.ja) == "" || strings.TrimSpace(m.en) == "" {
			t.Errorf("key %q lacks a language: ja=%q en=%q", k, m.ja, m.en)
		}
		if japanese(m.en) {
			t.Errorf("English text of %q has Japanese in it: %q", k, m.en)
		}
		if strings.Count(m.ja, "%") != strings.Count(m.en, "%") {
			t.Errorf("key %q: the languages take different arguments: %q vs %q", k, m.ja, m.en)
		}
	}
}

// TestEveryUsedKeyExists finds the literal keys the templates and the
// server pass to T and F, and the keys they build from engine values.
func TestEveryUsedKeyExists(t *testing.T) {
	used := map[string]bool{}
	lit := regexp.MustCompile(`\b[TF]\((?:l|p\.Lang|lang|s\.lang|c\.Lang)?,?\s*"([a-z][a-z0-9.-]*)"`)
	files, _ := filepath.Glob("*.templ")
	server, _ := filepath.Glob("../server/*.go")
	for _, f := range append(files, server...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			if !strings.HasSuffix(m[1], ".") {
				used[m[1]] = true
			}
		}
	}
	if len(used) < 40 {
		t.Fatalf("found only %d keys in use; the pattern no longer matches the code", len(used))
	}
	for _, p := range []string{"Pending", "Running", "Failed"} {
		used["phase."+p] = true
	}
	for _, p := range []string{"Pending", "Creating", "Restoring", "Ready", "Degraded"} {
		used["opphase."+p] = true
	}
	for _, k := range []string{"restore", "create", "wait", "elect", "degraded", "noop"} {
		used["op.next."+k] = true
	}
	for _, k := range []string{"restore", "create", "elect"} {
		used["op.act."+k] = true
	}
	for _, k := range []string{"create", "delete"} {
		used["rc.act."+k] = true
	}
	for _, k := range []string{"tick", "step"} {
		used["rc.trigger."+k] = true
	}
	for _, k := range []string{"watch-start", "watch-stop", "reset", "restored", "desired", "kill", "create", "delete",
		"running", "converged", "noop", "spec-members", "kill-member", "member-ready", "op-restore", "op-create",
		"op-elect", "op-leader-lost", "op-no-backup", "op-wait", "op-noop", "op-ready"} {
		used["log."+k] = true
	}
	for k := range used {
		if _, ok := catalog[k]; !ok {
			t.Errorf("key %q is used but not in the catalog", k)
		}
	}
}

func TestParseLangDefaultsToJapanese(t *testing.T) {
	for in, want := range map[string]Lang{"": Ja, "ja": Ja, "en": En, "EN": Ja, "fr": Ja, "en-US": Ja} {
		if got := ParseLang(in); got != want {
			t.Errorf("ParseLang(%q) = %q, want %q", in, got, want)
		}
	}
}
