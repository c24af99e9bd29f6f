package controlplane

import (
	"regexp"
	"strconv"
	"testing"

	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	"github.com/reconcile-demo/reconcile-demo/templates/wordstest"
)

func TestWordsComplete(t *testing.T) { wordstest.Complete(t, words) }

func TestChapterWords(t *testing.T) { wordstest.ChapterWords(t, words) }

// TestEveryUsedKeyExists finds the literal keys the demo passes to T and F,
// beside the keys it builds from engine values.
func TestEveryUsedKeyExists(t *testing.T) {
	var dynamic []string
	for n := 0; n <= cp.GuideSteps; n++ {
		dynamic = append(dynamic, "guide."+strconv.Itoa(n)+".head", "guide."+strconv.Itoa(n)+".text")
	}
	for n := 1; n <= 5; n++ {
		dynamic = append(dynamic, "chapter."+strconv.Itoa(n))
	}
	for _, r := range []string{cp.ReasonApply, cp.ReasonScale, cp.ReasonKill, cp.ReasonCreateRS, cp.ReasonScaleRS,
		cp.ReasonCreatePods, cp.ReasonDeletePods, cp.ReasonBind, cp.ReasonStartPod, cp.ReasonStartContainer,
		cp.ReasonPodRunning, cp.ReasonStopPod, cp.ReasonConfirmDelete, cp.ReasonNodeReady, cp.ReasonNodeUnknown,
		cp.ReasonTaint, cp.ReasonUntaint, cp.ReasonPodNotReady, cp.ReasonEvict, cp.ReasonRSStatus, cp.ReasonDeployStatus,
		cp.ReasonList} {
		dynamic = append(dynamic, "reason."+r)
	}
	for _, p := range []string{cp.ProcessScheduler, cp.ProcessControllerManager} {
		dynamic = append(dynamic, "cp.holds."+p)
	}
	for _, s := range []string{"True", "Unknown", "False"} {
		dynamic = append(dynamic, "cp.ready."+s)
	}
	for _, s := range []string{"True", "False"} {
		dynamic = append(dynamic, "cp.pod.ready."+s)
	}
	for _, e := range []string{cp.EffectNoSchedule, cp.EffectNoExecute} {
		dynamic = append(dynamic, "cp.taint."+e)
	}
	for _, n := range Notes {
		dynamic = append(dynamic, "note."+n)
	}
	for _, s := range []string{"Pending", "ContainerCreating", "Running", "Terminating"} {
		dynamic = append(dynamic, "cp.status."+s)
	}
	for _, k := range []string{cp.DueMessage, cp.DueNodeUnknown, cp.DueNodeLifecycle, cp.DueEviction, cp.DueRetry, cp.DueRestart} {
		dynamic = append(dynamic, "cp.next."+k)
	}
	for _, q := range []string{QuizScheduler, QuizNode} {
		dynamic = append(dynamic, "quiz."+q+".q", "quiz."+q+".button", "quiz."+q+".a")
	}
	for _, r := range []cp.Runtime{cp.RuntimeContainerd, cp.RuntimeDockershim} {
		dynamic = append(dynamic, "cp.runtime."+string(r))
	}
	for _, k := range []string{cp.EventDeploymentCreated, cp.EventDeploymentScaled, cp.EventRSCreated, cp.EventRSScaled,
		cp.EventPodCreated, cp.EventScheduled, cp.EventFailedScheduling, cp.EventPodRunning, cp.EventPodTerminating,
		cp.EventPodDeleted, cp.EventNodeReady, cp.EventTaint, cp.EventUntaint, cp.EventReplicas, cp.EventKill,
		cp.EventRuntime, cp.EventPreset, cp.EventRestored, "process.running", "process.stopped", "process.node.running",
		"process.node.stopped"} {
		dynamic = append(dynamic, "log."+k)
	}
	for _, w := range []string{cp.ReasonKill, cp.ReasonDeletePods, cp.ReasonEvict, cp.ReasonConfirmDelete} {
		dynamic = append(dynamic, "why."+w)
	}
	wordstest.Used(t, words, []string{"*.go", "*.templ"}, dynamic, 40)
}

// The page says things in chapter 004's words: 立ち退き (never 退避),
// コントローラー and ガベージコレクター with their long vowel, and the node
// lifecycle controller as the chapter names it, node controller, with its
// real name beside it where it is introduced.
func TestWordsAreTheChapters(t *testing.T) {
	variant := regexp.MustCompile(`退避|コントローラ(?:[^ー]|$)|ガベージコレクタ(?:[^ー]|$)`)
	for k, m := range words {
		if v := variant.FindString(m[0]); v != "" {
			t.Errorf("%s says %q: %q", k, v, m[0])
		}
	}
	for _, k := range []string{"cp.holds.controller-manager", "note.eviction"} {
		for i, want := range []string{"node controller(node lifecycle controller)", "node controller (node lifecycle controller)"} {
			if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(words[k][i]) {
				t.Errorf("%s does not name the node controller as the chapter does: %q", k, words[k][i])
			}
		}
	}
}
