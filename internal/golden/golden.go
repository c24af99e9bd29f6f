// Package golden holds a test's output to a file under testdata: what a
// hand-written writer must keep writing as the component it replaced did.
package golden

import (
	"os"
	"testing"
)

// Check fails t unless got is the file at path, byte for byte, and says
// where the two part. With UPDATE_GOLDEN=1 in the environment it first
// writes got to path: how a golden is captured, from the component a
// hand-written writer replaces, before it is replaced.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := string(b); got != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("output differs from %s at byte %d:\n got …%s\nwant …%s", path, i,
			got[max(0, i-60):min(len(got), i+80)], want[max(0, i-60):min(len(want), i+80)])
	}
}
