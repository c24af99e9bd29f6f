package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
)

// TestOldSnapshotsRestore: the page's snapshots written by the build before
// the priority queue (commit a79ad72, testdata/snapshots-v1) still restore,
// and the restored demo goes on.
func TestOldSnapshotsRestore(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "snapshots-v1", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no old snapshots: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in, err := Kind.Restore(demo.Options{}, json.RawMessage(raw))
			if err != nil {
				t.Fatalf("restore: %v", err)
			}
			d := in.(*Demo)
			mustApply(t, d, demo.Command{Action: "controller", On: true})
			mustApply(t, d, demo.Command{Action: "workers", N: 2})
			d.Advance(time.Second)
		})
	}
}
