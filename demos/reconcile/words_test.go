package reconcile

import (
	"testing"

	"github.com/reconcile-demo/reconcile-demo/templates/wordstest"
)

func TestWordsComplete(t *testing.T) { wordstest.Complete(t, words) }

func TestChapterWords(t *testing.T) { wordstest.ChapterWords(t, words) }

// TestEveryUsedKeyExists finds the literal keys the demo passes to T and F,
// beside the keys it builds from engine values.
func TestEveryUsedKeyExists(t *testing.T) {
	dynamic := []string{"phase.Pending", "phase.Running", "phase.Failed", "rc.act.create", "rc.act.delete",
		"trigger.tick", "trigger.step", "rc.diff.converged", "rc.diff.need", "rc.diff.starting"}
	for _, k := range []string{"watch-start", "watch-stop", "reset", "restored", EventDesired, EventKill, EventCreate,
		EventDelete, EventRunning, EventConverged, EventNoop} {
		dynamic = append(dynamic, "log."+k)
	}
	wordstest.Used(t, words, []string{"*.go", "*.templ"}, dynamic, 25)
	wordstest.Said(t, words, []string{"*.go", "*.templ"}, dynamic)
}
