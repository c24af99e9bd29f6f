package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oldSnapshots reads the snapshots in testdata/snapshots-v1, written by the
// build before the priority queue (commit a79ad72): sessions open when a new
// build is deployed send them back, and they must still restore.
func oldSnapshots(t *testing.T) map[string]Snapshot {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "snapshots-v1", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no old snapshots: %v", err)
	}
	out := map[string]Snapshot{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s Snapshot
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = s
	}
	return out
}

func TestOldSnapshotsRestore(t *testing.T) {
	for name, s := range oldSnapshots(t) {
		t.Run(name, func(t *testing.T) {
			w, err := Restore(s)
			if err != nil {
				t.Fatalf("Restore: %v", err)
			}
			roundTrip(t, w)
		})
	}
}
