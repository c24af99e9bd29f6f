package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
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

// TestTruthPassActions: the wire actions of issue #19 reach the engine, and
// bad values are refused on the wire.
func TestTruthPassActions(t *testing.T) {
	decode := func(msg string) demo.Command { return demo.Decode(&Kind, []byte(msg)) }
	d := NewDemo()
	if k := d.World().QueueKind(); k != workqueue.Priority {
		t.Fatalf("a new demo's queue is %s, want priority", k)
	}
	for _, msg := range []string{
		`{"action":"queue-kind","value":"classic"}`,
		`{"action":"secret-watch","on":true}`,
		`{"action":"not-ready","value":"requeue-true"}`,
		`{"action":"child-edit","name":"app-1"}`,
	} {
		c := decode(msg)
		if c.Reject != nil {
			t.Fatalf("%s refused: %v", msg, c.Reject)
		}
		mustApply(t, d, c)
	}
	s := d.World().Settings()
	if s.QueueKind != workqueue.Classic || !s.SecretWatch || s.NotReady != engine.NotReadyRequeueTrue {
		t.Fatalf("settings %+v", s)
	}
	if countEvents(d, func(e engine.Event) bool {
		return e.Kind == engine.EventWrite && e.Res == "ConfigMap" && e.Actor == "user"
	}) != 1 {
		t.Fatal("the child edit was not written")
	}
	for _, msg := range []string{
		`{"action":"queue-kind","value":"fifo"}`,
		`{"action":"not-ready","value":"requeue-after"}`,
		`{"action":"secret-watch","on":"yes"}`,
	} {
		if c := decode(msg); c.Reject == nil {
			t.Fatalf("%s accepted", msg)
		}
	}
	if err := d.Apply(decode(`{"action":"child-edit","name":"app-3"}`)); err == nil {
		t.Fatal("edited the child of an App that does not exist")
	}
	d.Advance(5 * time.Second)
	raw := demo.MustJSON(d.Snapshot())
	if _, err := Kind.Restore(demo.Options{}, json.RawMessage(raw)); err != nil {
		t.Fatalf("restore: %v", err)
	}
}
