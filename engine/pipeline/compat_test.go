package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
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

// TestOldSnapshotsRestore: every old snapshot restores, and its missing
// queue kind defaults to the priority queue, except where the snapshot's
// classic queue holds a key both queued and waiting, which the priority
// queue cannot: those stay classic, losing nothing.
func TestOldSnapshotsRestore(t *testing.T) {
	classic := map[string]bool{"ready-and-waiting": true, "processing-dirty-and-waiting": true}
	for name, s := range oldSnapshots(t) {
		t.Run(name, func(t *testing.T) {
			w, err := Restore(s)
			if err != nil {
				t.Fatalf("Restore: %v", err)
			}
			want := workqueue.Priority
			if classic[name] {
				want = workqueue.Classic
			}
			if w.Settings().QueueKind != want || w.ctrl != nil && w.ctrl.queue.Kind() != want {
				t.Fatalf("queue kind %s, want %s", w.Settings().QueueKind, want)
			}
			if w.Settings().SecretWatch {
				t.Fatal("the Secret watch is on")
			}
			// Everything but the queue kind is as it was.
			got := w.Snapshot()
			if got.Settings.QueueKind = ""; !reflect.DeepEqual(got.Settings, s.Settings) || got.Now != s.Now ||
				!reflect.DeepEqual(got.Store, s.Store) || !reflect.DeepEqual(got.Counters, s.Counters) ||
				!reflect.DeepEqual(got.Report, s.Report) {
				t.Fatal("the restored world differs from the old snapshot beyond its queue")
			}
			if s.Controller != nil {
				old, now := s.Controller.Queue, got.Controller.Queue
				if !reflect.DeepEqual(old.Ready, now.Ready) || !reflect.DeepEqual(old.Waiting, now.Waiting) ||
					!reflect.DeepEqual(old.Processing, now.Processing) || !reflect.DeepEqual(old.Failures, now.Failures) {
					t.Fatalf("queue %+v restored as %+v", old, now)
				}
			}
			r := roundTrip(t, w)
			for _, x := range []*World{w, r} {
				x.SetController(true)
				x.EditApp("app-1")
				x.Advance(10 * time.Second)
			}
			if !reflect.DeepEqual(w.Snapshot(), r.Snapshot()) {
				t.Fatal("the restored world and its round trip went on differently")
			}
		})
	}
}

// TestOldSnapshotWithAForgedQueueIsRefused: an old snapshot's missing kind
// is never taken from a queue it could not have held.
func TestOldSnapshotWithAForgedQueueIsRefused(t *testing.T) {
	s := oldSnapshots(t)["rhythm"]
	c := *s.Controller
	c.Queue.Priority = true
	c.Queue.BucketMs = 0
	for _, w := range c.Queue.Waiting {
		c.Queue.Items = append(c.Queue.Items, workqueue.ItemState{Key: w.Key})
	}
	s.Controller = &c
	if _, err := workqueue.Restore(c.Queue); err != nil {
		t.Fatalf("the forged queue alone is a valid priority queue: %v", err)
	}
	if _, err := Restore(s); err == nil {
		t.Fatal("an old snapshot (no queue kind) restored a priority queue")
	}
}
