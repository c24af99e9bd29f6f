package operator

import (
	"testing"

	"github.com/reconcile-demo/reconcile-demo/templates/wordstest"
)

func TestWordsComplete(t *testing.T) { wordstest.Complete(t, words) }

func TestChapterWords(t *testing.T) { wordstest.ChapterWords(t, words) }

// TestEveryUsedKeyExists finds the literal keys the demo passes to T and F,
// beside the keys it builds from engine values.
func TestEveryUsedKeyExists(t *testing.T) {
	var dynamic []string
	for _, p := range []string{"Pending", "Creating", "Restoring", "Ready", "Degraded"} {
		dynamic = append(dynamic, "opphase."+p)
	}
	for _, k := range []string{"restore", "create", "wait", "elect", "degraded", "noop"} {
		dynamic = append(dynamic, "op.next."+k)
	}
	for _, k := range []string{"restore", "create", "elect"} {
		dynamic = append(dynamic, "op.act."+k)
	}
	for _, k := range []string{"watch-start", "watch-stop", "reset", "restored", EventSpecMembers, EventKillMember,
		EventMemberReady, EventOpRestore, EventOpCreate, EventOpElect, EventOpLeaderLost, EventOpNoBackup, EventOpWait,
		EventOpNoop, EventOpReady, "backup.on", "backup.off"} {
		dynamic = append(dynamic, "log."+k)
	}
	dynamic = append(dynamic, "trigger.tick", "trigger.step")
	wordstest.Used(t, words, []string{"*.go", "*.templ"}, dynamic, 25)
	wordstest.Said(t, words, []string{"*.go", "*.templ"}, dynamic)
}
