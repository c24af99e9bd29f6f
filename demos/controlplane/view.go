package controlplane

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file turns the demo's state into its components' props: every
// sentence comes from the catalog, so the same state reads in either
// language.

// Props is the demo's state as its components lay it out.
type Props struct {
	Lang        ui.Lang
	Live        bool // the guide is over: the cluster runs and takes commands
	Guide       GuideProps
	Seq         SeqProps
	Desired     DesiredProps
	Components  []CompProps
	Nodes       []NodeProps
	Unscheduled []PodProps
	TrayNote    string
	Next        NextProps
	Quiz        []QuizProps
	Runtime     RuntimeProps
	Controls    ui.ControlProps
	Clock       ui.ClockProps
	Log         []ui.LogLine
	LiveText    string
	Error       string
	Snapshot    string // JSON
}

// GuideProps is the guide's bar: where it is, what the last message
// changed, and the buttons.
type GuideProps struct {
	Step, Total           int
	Label                 string // the last message sent: "POST Deployment"
	Head                  string // what it changed: "Deployment: 無し → 作成要求"
	Text                  string // the chapter's sentence
	Object, Before, After string // the engine's caption keys
	NextLabel             string // the next message, while there is one
	CanNext, CanBack      bool
	Chapter               []ChapterStep
}

// ChapterStep is one of the chapter's five steps (文章でも並べておきます).
type ChapterStep struct {
	N     int
	Text  string
	State string // "done", "current" or "todo"
}

// DesiredProps is kubectl's side: the Deployment applied, and the objects
// the controllers made from it.
type DesiredProps struct {
	Replicas   int
	Max        int
	Sent       bool // the chapter's apply has reached the apiserver
	Locked     bool // the guide is not over
	Deployment string
	ReplicaSet string
	Pods       string
}

// CompProps is a control-plane program with its switch.
type CompProps struct {
	Name        string
	Running     bool
	State       string
	Holds       string // what runs inside it
	Key         string // the keyboard shortcut, if any
	ToggleLabel string
	ETA         *ui.ETA // the outage preset's restart
	Locked      bool
}

// NodeProps is a node card.
type NodeProps struct {
	Name        string
	Ready       string // True, Unknown or False
	ReadyText   string
	ReadyIcon   string
	Kubelet     bool
	KubeletText string
	ToggleLabel string
	Tainted     bool
	Pods        []PodProps
	Free        []int // the empty slots, for drawing
	Count       int
	Capacity    int
	ETA         *ui.ETA // Unknown, or the eviction, by countdown
	Note        string
	Locked      bool
}

// PodProps is one pod.
type PodProps struct {
	Name       string
	Short      string // the generated suffix
	Node       string
	Phase      string // Pending, Running or Terminating
	Status     string // kubectl's STATUS column
	Icon       string
	Note       string
	Killable   bool
	KillLabel  string
	StatusText string
}

// NextProps is the skip button: what comes next, and when.
type NextProps struct {
	Live bool
	Due  bool
	Kind string
	ETA  *ui.ETA
	Text string
}

// QuizProps is one of the chapter's quiz questions, set up in one click.
type QuizProps struct {
	Name     string
	Question string
	Button   string
	Answer   string // shown once it is set up
}

// RuntimeProps is figure 4: the two stacks and the switch.
type RuntimeProps struct {
	Value       string // containerd or dockershim
	Stacks      []StackProps
	ToggleLabel string
	Image       string
}

// StackProps is one stack of figure 4.
type StackProps struct {
	Runtime string
	Title   string
	Layers  []string
	Active  bool
}

// props builds the demo's props in l, with the refusal errText shown.
func (d *Demo) props(l ui.Lang, errText string) *Props {
	live := d.Live()
	p := &Props{Lang: l, Live: live, Error: errText,
		Controls: ui.ControlProps{Prefix: Prefix, Paused: d.Paused(), Speed: d.Speed().String(),
			StepText: T(l, "cp.step"), HasReset: true},
		Clock: ui.ClockProps{Prefix: Prefix, Ms: d.Now().Milliseconds(), Paused: d.Paused() || !live,
			Speed: d.Speed().String()}}
	snap := d.cl().Snapshot()
	p.Snapshot = demo.MustJSON(d.Snapshot())
	p.Guide = d.guide(l)
	p.Seq = d.sequence(l)
	p.Desired = d.desired(l)
	p.Components = d.components(l)
	p.Nodes, p.Unscheduled, p.TrayNote = d.nodes(l, snap.Live)
	p.Next = d.next(l)
	p.Quiz = d.quizzes(l)
	p.Runtime = runtimeProps(l, d.cl().Runtime())
	p.Log = logLines(l, ui.Newest(d.cl().Events()))
	p.LiveText = d.liveText(l, p)
	return p
}

// guide builds the guide's bar.
func (d *Demo) guide(l ui.Lang) GuideProps {
	g := d.cl().Guide()
	p := GuideProps{Step: g.Step, Total: g.Total, CanNext: g.Step < g.Total, CanBack: g.CanBack && g.Step < g.Total,
		Head: T(l, "guide.0.head"), Text: T(l, "guide.0.text")}
	current := 0
	if s, ok := cp.GuideStepInfo(g.Step); ok {
		p.Head, p.Text = T(l, "guide."+strconv.Itoa(s.N)+".head"), T(l, "guide."+strconv.Itoa(s.N)+".text")
		p.Object, p.Before, p.After = s.Caption.Object, s.Caption.Before, s.Caption.After
		current = s.ChapterStep
	}
	if msgs := d.cl().Messages(); g.Step > 0 && len(msgs) > 0 {
		last := msgs[len(msgs)-1]
		p.Label = label(last)
		if d.Live() && last.Step == 0 {
			// Live, the caption follows the newest message.
			p.Head, p.Text = T(l, "guide.live.head"), messageText(l, last)
			p.Object, p.Before, p.After = "", "", ""
		}
	}
	if next := d.cl().InFlight(); p.CanNext && len(next) > 0 {
		p.NextLabel = label(next[0])
	}
	for n := 1; n <= 5; n++ {
		st := "todo"
		switch {
		case d.Live() || n < current:
			st = "done"
		case n == current:
			st = "current"
		}
		p.Chapter = append(p.Chapter, ChapterStep{N: n, Text: T(l, "chapter."+strconv.Itoa(n)), State: st})
	}
	return p
}

// desired builds kubectl's panel and the objects' summary.
func (d *Demo) desired(l ui.Lang) DesiredProps {
	p := DesiredProps{Replicas: d.cl().Replicas(), Max: cp.MaxReplicas, Locked: !d.Live(),
		Deployment: T(l, "cp.obj.none"), ReplicaSet: T(l, "cp.obj.none")}
	g := d.cl().Guide()
	p.Sent = g.Step >= 1
	if p.Sent {
		p.Deployment = F(l, "cp.obj.replicas", d.cl().Replicas())
	}
	if _, n, ok := d.cl().ReplicaSet(); ok {
		p.ReplicaSet = F(l, "cp.obj.replicas", n)
	}
	var running, pending, term int
	for _, pod := range d.cl().Pods() {
		switch pod.Phase {
		case cp.PhaseRunning:
			running++
		case cp.PhasePending:
			pending++
		default:
			term++
		}
	}
	p.Pods = T(l, "cp.obj.none")
	if running+pending+term > 0 {
		p.Pods = F(l, "cp.obj.pods", running, pending, term)
	}
	return p
}

// components builds the scheduler's and the controller-manager's rows.
func (d *Demo) components(l ui.Lang) []CompProps {
	var out []CompProps
	for _, c := range d.cl().Components() {
		p := CompProps{Name: c.Name, Running: c.Running, State: T(l, "cp.state.stopped"), Locked: !d.Live(),
			Holds: T(l, "cp.holds."+c.Name)}
		if c.Running {
			p.State = T(l, "cp.state.running")
		}
		if c.Name == cp.ProcessControllerManager {
			p.Key = "c"
		}
		if c.Running {
			p.ToggleLabel = F(l, "cp.comp.stop", c.Name)
		} else {
			p.ToggleLabel = F(l, "cp.comp.start", c.Name)
		}
		if c.RestartIn > 0 {
			p.ETA = eta(l, d.Now(), c.RestartIn, "cp.eta.restart")
		}
		out = append(out, p)
	}
	return out
}

// eta is a countdown whose sentence is the catalog's key: the key's text
// holds %%.1f where the seconds go.
func eta(l ui.Lang, now, in time.Duration, key string, args ...any) *ui.ETA {
	format := F(l, key, args...)
	return &ui.ETA{At: (now + in).Milliseconds(), Format: format, Text: fmt.Sprintf(format, in.Seconds())}
}

// nodes builds the node cards, the tray of unscheduled pods and its note.
// The countdowns come from the node lifecycle controller's memory, as the
// engine's snapshot states it: a stopped kubelet's node goes Unknown
// NodeMonitorGracePeriod after its last renewal (or after the controller
// started watching, if later); a tainted node's pods are evicted when the
// controller's timer ends.
func (d *Demo) nodes(l ui.Lang, st *cp.LiveState) ([]NodeProps, []PodProps, string) {
	now, live := d.Now(), d.Live()
	comps := d.cl().Components()
	schedOn, cmOn := comps[0].Running, comps[1].Running
	queued := map[string]int{}
	if st != nil {
		for _, q := range st.Scheduler.Queue {
			queued[q.Pod] = q.Attempts
		}
	}
	killing := map[string]bool{}
	for _, m := range d.cl().InFlight() {
		if m.From == cp.LaneKubectl && m.Reason == cp.ReasonKill {
			for _, o := range m.Objects {
				killing[o.Name] = true
			}
		}
	}
	byNode := map[string][]PodProps{}
	var tray []PodProps
	for _, pod := range d.cl().Pods() {
		pp := podProps(l, pod, live && !killing[pod.Name])
		if n := queued[pod.Name]; n > 0 {
			pp.Note = F(l, "cp.pod.failed", n)
		}
		if pod.Node == "" {
			tray = append(tray, pp)
		} else {
			byNode[pod.Node] = append(byNode[pod.Node], pp)
		}
	}
	var out []NodeProps
	for i, n := range d.cl().Nodes() {
		np := NodeProps{Name: n.Name, Ready: string(n.Ready), Kubelet: n.Kubelet, Tainted: n.Tainted,
			Pods: byNode[n.Name], Count: n.Pods, Capacity: cp.NodeCapacity, Locked: !live,
			ReadyText: T(l, "cp.ready."+string(n.Ready)), ReadyIcon: readyIcon(n.Ready)}
		for k := len(np.Pods); k < cp.NodeCapacity; k++ {
			np.Free = append(np.Free, k)
		}
		if n.Kubelet {
			np.KubeletText, np.ToggleLabel = T(l, "cp.kubelet.running"), F(l, "cp.node.stop", n.Name)
		} else {
			np.KubeletText, np.ToggleLabel = T(l, "cp.kubelet.stopped"), F(l, "cp.node.start", n.Name)
		}
		var nlc *cp.NLCNodeState
		if st != nil && i < len(st.CM.Nodes) {
			nlc = &st.CM.Nodes[i]
		}
		alive, doomed := 0, 0
		for _, pod := range np.Pods {
			if pod.Phase == string(cp.PhaseTerminating) {
				doomed++
			} else {
				alive++
			}
		}
		switch {
		case !live || n.Kubelet:
		case n.Ready == cp.ConditionTrue && !cmOn:
			np.Note = T(l, "cp.node.cm-stopped")
		case n.Ready == cp.ConditionTrue && nlc != nil:
			since := now - time.Duration(nlc.SinceAgo)*time.Millisecond
			at := max(n.LastRenew, since) + cp.NodeMonitorGracePeriod
			np.ETA = eta(l, now, max(at-now, 0), "cp.eta.unknown", ui.ClockText(n.LastRenew))
		case n.Tainted && alive > 0 && !cmOn:
			np.Note = T(l, "cp.node.no-eviction")
		case n.Tainted && alive > 0 && nlc != nil && nlc.Evict:
			np.ETA = eta(l, now, max(time.Duration(nlc.EvictIn)*time.Millisecond, 0), "cp.eta.evict")
		case doomed > 0 && alive == 0:
			np.Note = T(l, "cp.node.gone")
		}
		out = append(out, np)
	}
	note := ""
	switch {
	case len(tray) == 0:
	case !live:
		note = T(l, "cp.tray.guide")
	case !schedOn:
		note = T(l, "cp.tray.stopped")
	case len(queued) > 0:
		note = T(l, "cp.tray.nofit")
	default:
		note = T(l, "cp.tray.placing")
	}
	return out, tray, note
}

func podProps(l ui.Lang, pod cp.PodView, killable bool) PodProps {
	p := PodProps{Name: pod.Name, Short: podSuffix(pod.Name), Node: pod.Node, Phase: string(pod.Phase),
		Killable: killable && pod.Phase != cp.PhaseTerminating, KillLabel: F(l, "cp.kill.label", pod.Name)}
	p.Status = string(pod.Phase)
	if pod.Phase == cp.PhasePending && pod.Node != "" {
		p.Status = "ContainerCreating"
	}
	p.Icon = ui.PhaseIcon(string(pod.Phase))
	p.StatusText = T(l, "cp.status."+p.Status)
	return p
}

func readyIcon(s cp.ConditionStatus) string {
	switch s {
	case cp.ConditionTrue:
		return "●"
	case cp.ConditionUnknown:
		return "?"
	}
	return "✕"
}

// next builds the skip line: what happens next by itself, and when.
func (d *Demo) next(l ui.Lang) NextProps {
	p := NextProps{Live: d.Live()}
	if !p.Live {
		p.Text = T(l, "cp.next.guide")
		return p
	}
	due, ok := d.cl().NextEvent()
	if !ok {
		p.Text = T(l, "cp.next.none")
		return p
	}
	p.Due, p.Kind = true, due.Kind
	name := due.Name
	switch due.Kind {
	case cp.DueMessage:
		name = laneName(due.Name)
	case cp.DueRetry:
		name = podSuffix(due.Name)
	case cp.DueRestart:
		name = cp.ProcessScheduler
	}
	p.ETA = eta(l, d.Now(), due.In, "cp.next."+due.Kind, name)
	return p
}

// quizzes builds the two quiz questions the presets set up.
func (d *Demo) quizzes(l ui.Lang) []QuizProps {
	var out []QuizProps
	for _, q := range []string{QuizScheduler, QuizNode} {
		p := QuizProps{Name: q, Question: T(l, "quiz."+q+".q"), Button: T(l, "quiz."+q+".button")}
		if d.quiz == q {
			p.Answer = T(l, "quiz."+q+".a")
		}
		out = append(out, p)
	}
	return out
}

// runtimeProps builds figure 4: the stack up to 1.23 and the one from 1.24.
func runtimeProps(l ui.Lang, r cp.Runtime) RuntimeProps {
	p := RuntimeProps{Value: string(r), Image: cp.Image}
	for _, rt := range []cp.Runtime{cp.RuntimeDockershim, cp.RuntimeContainerd} {
		p.Stacks = append(p.Stacks, StackProps{Runtime: string(rt), Title: T(l, "cp.runtime."+string(rt)),
			Layers: rt.Path(), Active: rt == r})
	}
	if r == cp.RuntimeContainerd {
		p.ToggleLabel = T(l, "cp.runtime.to-dockershim")
	} else {
		p.ToggleLabel = T(l, "cp.runtime.to-containerd")
	}
	return p
}

// liveText is what the live region announces: the guide's step, or the
// newest log line.
func (d *Demo) liveText(l ui.Lang, p *Props) string {
	if !p.Live {
		if p.Guide.Step == 0 {
			return ""
		}
		return F(l, "cp.live.guide", p.Guide.Step, p.Guide.Total, p.Guide.Label, p.Guide.Head)
	}
	if n := len(p.Log); n > 0 {
		return p.Log[n-1].At + " " + p.Log[n-1].Text
	}
	return ""
}

// logLines says the engine's events.
func logLines(l ui.Lang, events []cp.Event) []ui.LogLine {
	out := make([]ui.LogLine, len(events))
	for i, e := range events {
		out[i] = ui.LogLine{Seq: e.Seq, At: ui.ClockText(e.At), Kind: e.Kind, Text: eventText(l, e)}
	}
	return out
}

// eventText says one log event.
func eventText(l ui.Lang, e cp.Event) string {
	key := "log." + e.Kind
	switch e.Kind {
	case cp.EventDeploymentCreated, cp.EventRSCreated:
		return F(l, key, e.Name, e.N)
	case cp.EventDeploymentScaled, cp.EventRSScaled:
		return F(l, key, e.Name, e.M, e.N)
	case cp.EventScheduled:
		return F(l, key, e.Name, e.Node)
	case cp.EventFailedScheduling:
		return F(l, key, e.Name, e.N, e.M, e.K, e.Wait.Seconds())
	case cp.EventPodRunning:
		return F(l, key, e.Node, e.Name)
	case cp.EventPodTerminating, cp.EventPodDeleted:
		return F(l, key, e.Name, T(l, "why."+e.Status))
	case cp.EventNodeReady:
		return F(l, key, e.Name, e.Status)
	case cp.EventProcess:
		if slices.Contains(cp.NodeNames(), e.Name) {
			return F(l, "log.process.node."+e.Status, e.Name)
		}
		return F(l, "log.process."+e.Status, e.Name)
	case cp.EventReplicas:
		return F(l, key, e.M, e.N)
	case cp.EventRuntime:
		return F(l, key, T(l, "cp.runtime."+e.Status))
	case cp.EventPreset:
		return F(l, key, T(l, "quiz."+e.Name+".button"))
	case cp.EventRestored:
		return T(l, key)
	}
	return F(l, key, e.Name)
}

// replicaSetName is the ReplicaSet's name: web-<pod-template-hash>.
func replicaSetName() string { return cp.ReplicaSetName() }

// otherRuntime is the stack the runtime switch turns to.
func otherRuntime(r string) string {
	if r == string(cp.RuntimeContainerd) {
		return string(cp.RuntimeDockershim)
	}
	return string(cp.RuntimeContainerd)
}
