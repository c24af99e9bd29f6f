package pipeline

import (
	"testing"

	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
	"github.com/reconcile-demo/reconcile-demo/templates/wordstest"
)

func TestWordsComplete(t *testing.T) { wordstest.Complete(t, words) }

func TestChapterWords(t *testing.T) { wordstest.ChapterWords(t, words) }

// TestEveryUsedKeyExists finds the literal keys the demo passes to T and F,
// beside the keys it builds from engine values (every one of them listed
// here from the engine's own constants, so a new value fails the test).
func TestEveryUsedKeyExists(t *testing.T) {
	var dynamic []string
	add := func(prefix string, vs ...string) {
		for _, v := range vs {
			dynamic = append(dynamic, prefix+v)
		}
	}
	add("pp.note.", noteTopics...)
	add("pp.trap.runaway", ".why")
	add("pp.v.queueKind.", queueKindValues...)
	add("pp.limiter.", workqueue.LimiterItemExponential, workqueue.LimiterMaxOf)
	for _, tr := range engine.Traps() {
		add("pp.trap."+string(tr), ".title", ".cause", ".fix", ".symptom", ".now")
	}
	add("pp.v.statusFrom.", statusFromValues...)
	add("pp.v.childWrite.", childWriteValues...)
	add("pp.v.afterCreate.", afterCreateValues...)
	add("pp.v.periodic.", periodicValues...)
	add("pp.v.statusWrite.", statusWriteValues...)
	add("pp.v.notReady.", notReadyValues...)
	add("pp.v.workers.", "1", "2")
	add("pp.v.dependency.", "present", "missing")
	add("pp.eta.beat.", "act", "external", "read-back", "report")
	add("pp.beat.", "observe", "compare", "act", "report")
	add("pp.child.", string(engine.ChildAbsent), string(engine.ChildDiffers), string(engine.ChildMatches))
	add("pp.action.", string(engine.ActionCreate), string(engine.ActionUpdate), string(engine.ActionNoop), string(engine.ActionCleanup))
	add("pp.verb.", string(engine.ActionCreate), string(engine.ActionUpdate), string(engine.ActionNoop), string(engine.ActionCleanup), "gone")
	add("pp.requeue.", string(engine.RequeueNone), string(engine.RequeueAfter), string(engine.RequeueBackoff))
	add("pp.status.", string(engine.StatusWritten), string(engine.StatusUnchanged), string(engine.StatusConflict), string(engine.StatusNone))
	add("pp.result.", "success", "error", "requeue", "requeue_after")
	add("pp.actor.", "user", "gc")
	add("pp.log.enqueue.", "added", "collapsed", "dirty", "filtered")
	add("pp.src.", "list", "for", "owns", "watches", "resync")
	add("pp.ext.", "ensure", "delete")
	add("pp.ext.out.", "created", "exists", "deleted", "absent", "calling", "timeout")
	add("pp.log.resync.", "periodic", "step")
	add("pp.log.controller.", "start", "stop", "restart")
	add("pp.setting.", "predicate", "statusWrite", "notReady", "workers", "statusFrom", "childWrite", "afterCreate",
		"slowObject", "periodic", "queueKind", "secretWatch")
	add("log.", "reset", "restored")
	wordstest.Used(t, words, []string{"*.go", "*.templ"}, dynamic, 60)
}
