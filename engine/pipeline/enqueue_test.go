package pipeline

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

// TestEnqueueSaysTheWaitItEnded: an App waits out RequeueAfter for its
// Secret; the Secret's watch event adds it. On the priority queue the add
// consumes the wait, and its enqueue event says how much was left; the
// classic queue keeps the wait, and the event says none ended.
func TestEnqueueSaysTheWaitItEnded(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			w := withKind(t, k)
			mustNil(t, w.SetSecretWatch(true))
			settleWithin(t, w, 5*time.Second)
			mustNil(t, w.SetDependency(false))
			w.Advance(WatchDelay + ActDelay + ReportDelay + time.Second) // reconciled: RequeueAfter 5 s
			left := queueKey(w, "app-1").DueIn
			if left <= 0 {
				t.Fatalf("app-1 %+v, want waiting", queueKey(w, "app-1"))
			}
			mustNil(t, w.SetDependency(true))
			w.Advance(WatchDelay)
			var add Event
			for e := range w.NewestEvents() {
				if e.Kind == EventEnqueue && e.Key == "default/app-1" {
					add = e
					break
				}
			}
			if add.Verb != "watches" || add.Outcome != "added" {
				t.Fatalf("enqueue %+v, want added by the Secret's watch", add)
			}
			want := map[workqueue.Kind]time.Duration{workqueue.Priority: left - WatchDelay}[k]
			if add.Delay != want {
				t.Fatalf("enqueue ended a wait of %v, want %v", add.Delay, want)
			}
		})
	}
}
