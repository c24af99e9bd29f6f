package triggers

import (
	"testing"

	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
	"github.com/reconcile-demo/reconcile-demo/templates/wordstest"
)

func TestWordsComplete(t *testing.T) { wordstest.Complete(t, words) }

func TestChapterWords(t *testing.T) { wordstest.ChapterWords(t, words) }

// TestEveryUsedKeyExists finds the literal keys the demo passes to T and F,
// beside the keys it builds from engine values: every event kind, fate,
// loss, action, lesson reason and row, diff state and side.
func TestEveryUsedKeyExists(t *testing.T) {
	wordstest.Used(t, words, []string{"*.go", "*.templ"}, dynamicKeys(), 40)
}

// dynamicKeys are the keys the view builds from engine values.
func dynamicKeys() []string {
	var dynamic []string
	for _, k := range []engine.EventKind{engine.PodCreated, engine.PodRunning, engine.PodDied, engine.PodDeleted, engine.DesiredChanged} {
		dynamic = append(dynamic, "tr.ev."+k.String())
	}
	for _, l := range []engine.Loss{engine.LossBlip, engine.LossDown, engine.LossRestart, engine.LossOverflow} {
		dynamic = append(dynamic, "tr.loss."+l.String())
	}
	for _, a := range []engine.ActionKind{engine.ActCreate, engine.ActDelete, engine.ActDeleteGone, engine.ActDeleteUnknown, engine.ActCreateRefused} {
		dynamic = append(dynamic, "tr.act."+a.String())
	}
	for _, r := range []engine.Reason{engine.ReasonDesired, engine.ReasonKill, engine.ReasonRestart, engine.ReasonBlip,
		engine.ReasonDown, engine.ReasonOverflow, engine.ReasonDuplicate, engine.ReasonSwap} {
		dynamic = append(dynamic, "tr.reason."+string(r))
	}
	for _, r := range rows {
		dynamic = append(dynamic, "tr.row."+string(r), "tr.row."+string(r)+".edge", "tr.row."+string(r)+".level")
	}
	for _, s := range []string{"converged", "starting", "catchup", "waiting", "held", "stuck", "down"} {
		dynamic = append(dynamic, "tr.diff."+s)
	}
	for _, s := range sides {
		dynamic = append(dynamic, "tr."+s.String()+".title", "tr."+s.String()+".sub", "tr.log."+s.String())
	}
	return append(dynamic, "log."+NoteReset, "log."+NoteRestored)
}

// TestEveryWordIsUsed: a key nobody says is a sentence that drifted away
// from the page.
func TestEveryWordIsUsed(t *testing.T) {
	wordstest.Said(t, words, []string{"*.go", "*.templ"}, dynamicKeys())
}
