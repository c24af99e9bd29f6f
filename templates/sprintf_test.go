package templates

import (
	"fmt"
	"strings"
	"testing"
)

type phase string

// sprintf writes what fmt.Sprintf writes, for every shape of call: the
// verbs it writes itself and those it leaves to fmt.
func TestSprintfWritesWhatFmtWrites(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []any
	}{
		{"", nil},
		{"no verbs", nil},
		{"%s と %d", []any{"pod-1", 3}},
		{"desired %d / 生きている Pod %d", []any{3, -2}},
		{"100%%", nil},
		{"%d%%", []any{50}},
		{"%s", []any{""}},
		{"end %", []any{1}},
		{"%s %s", []any{"one"}},
		{"%s", []any{"one", "two"}},
		{"%d", []any{"text"}},
		{"%s", []any{7}},
		{"%v", []any{7}},
		{"%5d|%-4s|", []any{7, "a"}},
		{"%.1f 秒", []any{1.25}},
		{"%s", []any{phase("Running")}},
		{"%d", []any{int64(9)}},
		{"%q", []any{"x"}},
		{"%s", []any{nil}},
		{"多バイト%s文字%d", []any{"の", 12345678901}},
	} {
		if got, want := sprintf(c.format, c.args), fmt.Sprintf(c.format, c.args...); got != want {
			t.Errorf("sprintf(%q, %v) = %q, fmt says %q", c.format, c.args, got, want)
		}
	}
	// Every sentence of the shared catalog, with arguments of the kinds its
	// verbs take.
	for key, m := range shared {
		for _, text := range m {
			var args []any
			for i := 0; i < len(text)-1; i++ {
				if text[i] != '%' {
					continue
				}
				switch text[i+1] {
				case 's':
					args = append(args, "x-"+key)
				case 'd':
					args = append(args, len(key))
				case '%':
					i++
				}
			}
			if got, want := sprintf(text, args), fmt.Sprintf(text, args...); got != want {
				t.Errorf("%s: %q, fmt says %q", key, got, want)
			}
		}
	}
}

func FuzzSprintf(f *testing.F) {
	f.Add("%s は %d 個", "pod", 3)
	f.Add("%%%d%s%", "", -1)
	f.Fuzz(func(t *testing.T, format, s string, n int) {
		if strings.Count(format, "%") > 8 {
			return
		}
		for _, args := range [][]any{nil, {s}, {n}, {s, n}, {n, s}, {s, s, n}} {
			if got, want := sprintf(format, args), fmt.Sprintf(format, args...); got != want {
				t.Fatalf("sprintf(%q, %v) = %q, fmt says %q", format, args, got, want)
			}
		}
	})
}
