// Package wordstest checks a catalog in tests: both languages present and
// alike, the chapters' own words, and every key the code uses defined.
package wordstest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/reconcile-demo/reconcile-demo/templates"
)

// Japanese reports whether s holds kana, kanji or Japanese punctuation.
func Japanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) || strings.ContainsRune("「」、。（）", r) {
			return true
		}
	}
	return false
}

// Complete checks that every sentence of words has both languages, that
// the English has no Japanese in it, and that both take the same arguments.
func Complete(t *testing.T, words templates.Catalog) {
	t.Helper()
	for k, m := range words {
		if strings.TrimSpace(m[0]) == "" || strings.TrimSpace(m[1]) == "" {
			t.Errorf("key %q lacks a language: ja=%q en=%q", k, m[0], m[1])
		}
		if Japanese(m[1]) {
			t.Errorf("English text of %q has Japanese in it: %q", k, m[1])
		}
		if verbs(m[0]) != verbs(m[1]) {
			t.Errorf("key %q: the languages take different arguments: %q vs %q", k, m[0], m[1])
		}
	}
}

// variants are the spellings the site does not use, each with the word it
// writes instead: the long vowel of a loanword ending in -er, as chapters
// 001, 003 and 004 write コントローラー, ガベージコレクター, ファイナライザー,
// レートリミッター and サーバー (000 and 002 write コントローラ and サーバ;
// issue #19 settles on the long vowel for every page), and 立ち退き for
// eviction, as chapter 004 writes it.
var variants = []struct{ bad, want string }{
	{"コントローラ", "コントローラー"},
	{"ガベージコレクタ", "ガベージコレクター"},
	{"ファイナライザ", "ファイナライザー"},
	{"レートリミッタ", "レートリミッター"},
	{"サーバ", "サーバー"},
	{"退避", "立ち退き"},
}

// variant matches a variant, but not the word it is the start of.
var variant = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, v := range variants {
		if strings.HasPrefix(v.want, v.bad) {
			out = append(out, regexp.MustCompile(v.bad+`(?:[^`+strings.TrimPrefix(v.want, v.bad)+`]|$)`))
		} else {
			out = append(out, regexp.MustCompile(v.bad))
		}
	}
	return out
}()

// ChapterWords checks that the Japanese of every sentence of words uses
// the chapters' spelling of the words they share: コントローラー, not
// コントローラ; 立ち退き, not 退避; and so on (variants).
func ChapterWords(t *testing.T, words templates.Catalog) {
	t.Helper()
	for _, p := range variantsIn(words) {
		t.Error(p)
	}
}

// variantsIn says each variant the Japanese of words writes, by key.
func variantsIn(words templates.Catalog) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(words)) {
		for i, v := range variants {
			// RE2 has no lookahead: "コントローラ not followed by ー" is
			// followed by another character, or by nothing.
			if variant[i].MatchString(words[k][0]) {
				out = append(out, fmt.Sprintf("key %q writes %s where the chapters write %s: %q", k, v.bad, v.want, words[k][0]))
			}
		}
	}
	return out
}

var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

func verbs(s string) string { return strings.Join(verb.FindAllString(s, -1), " ") }

// lit finds the literal keys passed to T and F (a demo's own, the shared
// ones, and a catalog's methods): T(l, "key"), F(p.Lang, "key", …).
var lit = regexp.MustCompile(`\b[TF]\([\w.]+,\s*"([a-z][a-z0-9.-]*)"`)

// Used checks that every literal key the files matching patterns pass to T
// or F, and every key in dynamic (keys the code builds from values), is in
// words or the shared catalog. It fails when fewer than min literal keys
// are found: the pattern no longer matches the code.
func Used(t *testing.T, words templates.Catalog, patterns []string, dynamic []string, min int) {
	t.Helper()
	used := map[string]bool{}
	for _, m := range lit.FindAllStringSubmatch(source(t, patterns), -1) {
		if !strings.HasSuffix(m[1], ".") {
			used[m[1]] = true
		}
	}
	if len(used) < min {
		t.Fatalf("found only %d keys in use; the pattern no longer matches the code", len(used))
	}
	for _, k := range dynamic {
		used[k] = true
	}
	for k := range used {
		if !words.Has(k) {
			t.Errorf("key %q is used but in no catalog", k)
		}
	}
}

// Said checks the other way round: every key of words is said somewhere
// in the files matching patterns (as a quoted literal) or is one of the
// dynamic keys. A key nobody says is a sentence that drifted away from the
// page.
func Said(t *testing.T, words templates.Catalog, patterns []string, dynamic []string) {
	t.Helper()
	src := source(t, patterns)
	for k := range words {
		if !slices.Contains(dynamic, k) && !strings.Contains(src, `"`+k+`"`) {
			t.Errorf("key %q is in the catalog but nothing says it", k)
		}
	}
}

// source returns the text of the files matching patterns, tests and
// generated files aside.
func source(t *testing.T, patterns []string) string {
	t.Helper()
	var src strings.Builder
	for _, pat := range patterns {
		files, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_templ.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
	}
	return src.String()
}
