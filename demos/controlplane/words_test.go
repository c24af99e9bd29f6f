package controlplane

import (
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
		cp.ReasonTaint, cp.ReasonUntaint, cp.ReasonEvict, cp.ReasonList} {
		dynamic = append(dynamic, "reason."+r)
	}
	for _, p := range []string{cp.ProcessScheduler, cp.ProcessControllerManager} {
		dynamic = append(dynamic, "cp.holds."+p)
	}
	for _, s := range []string{"True", "Unknown", "False"} {
		dynamic = append(dynamic, "cp.ready."+s)
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
