package controlplane

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file turns the demo's state into its components' props: every
// sentence comes from the catalog, so the same state reads in either
// language.

// Props is the demo's state as its components lay it out; each fragment
// fills only the fields it reads.
type Props struct {
	Lang        ui.Lang
	Live        bool // the guide is over: the cluster runs and takes commands
	Guide       GuideProps
	Seq         SeqProps
	Desired     DesiredProps
	Components  []CompProps
	Unscheduled []PodProps
	TrayNote    string
	Next        NextProps
	Quiz        []QuizProps
	Runtime     RuntimeProps
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
	// The readyReplicas their controllers wrote; nil before the object
	// exists.
	DeployReady, RSReady *int
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
	Taints      []TaintProps
	PodCIDR     string
	Pods        []PodProps
	Free        []int // the empty slots, for drawing
	Count       int
	Capacity    int
	ETA         *ui.ETA // Unknown, or the eviction, by countdown
	Note        string
	Locked      bool
}

// TaintProps is one of a node's taints.
type TaintProps struct {
	Key, Effect string
	Short       string // the key without its node.kubernetes.io/ prefix, and the effect
	What        string // what the effect does to pods
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
	IP         string // status.podIP; "" before the kubelet writes it
	Ready      string // its Ready condition: True or False
	ReadyText  string // shown once the kubelet has written its status
	EvictAt    int64  // when its NoExecute toleration ends (virtual ms); 0 when it is not running out
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

// The fragments' components, each with the props it reads, built from the
// demo's reading of the cluster (facts.go).

func (d *Demo) guideFrag(v demo.View) templ.Component {
	return guidePanel(&Props{Lang: v.Lang, Live: d.facts().live, Guide: d.guide(v.Lang)})
}

func (d *Demo) sequenceFrag(v demo.View) templ.Component {
	return sequencePanel(&Props{Lang: v.Lang, Seq: d.sequence(v.Lang)})
}

func (d *Demo) applyFrag(v demo.View) templ.Component {
	r := d.facts()
	return applyPanel(&Props{Lang: v.Lang, Desired: DesiredProps{Replicas: r.replicas, Max: cp.MaxReplicas,
		Sent: r.guide.Step >= 1, Locked: !r.live}})
}

func (d *Demo) objectsFrag(v demo.View) templ.Component {
	return objectsList(&Props{Lang: v.Lang, Desired: d.objects(v.Lang)})
}

func (d *Demo) componentsFrag(v demo.View) templ.Component {
	return componentsPanel(&Props{Lang: v.Lang, Components: d.components(v.Lang)})
}

func (d *Demo) trayFrag(v demo.View) templ.Component {
	p := &Props{Lang: v.Lang}
	p.Unscheduled, p.TrayNote = d.tray(v.Lang)
	return trayPanel(p)
}

// nodeFrag renders node i's card.
func (d *Demo) nodeFrag(v demo.View, i int) templ.Component {
	return nodeCard(&Props{Lang: v.Lang}, d.node(v.Lang, i))
}

func (d *Demo) skipFrag(v demo.View) templ.Component {
	return skipButton(&Props{Lang: v.Lang, Next: NextProps{Due: d.facts().due.ok}})
}

func (d *Demo) nextFrag(v demo.View) templ.Component {
	return nextLine(&Props{Lang: v.Lang, Next: d.next(v.Lang)})
}

func (d *Demo) quizFrag(v demo.View) templ.Component {
	return quizPanel(&Props{Lang: v.Lang, Quiz: d.quizzes(v.Lang)})
}

func (d *Demo) runtimeFrag(v demo.View) templ.Component {
	return runtimePanel(&Props{Lang: v.Lang, Runtime: runtimeProps(v.Lang, d.facts().runtime)})
}

// guide builds the guide's bar.
func (d *Demo) guide(l ui.Lang) GuideProps {
	r := d.facts()
	g := r.guide
	p := GuideProps{Step: g.Step, Total: g.Total, CanNext: g.Step < g.Total, CanBack: g.CanBack && g.Step < g.Total,
		Head: T(l, "guide.0.head"), Text: T(l, "guide.0.text")}
	current := 0
	if s, ok := cp.GuideStepInfo(g.Step); ok {
		p.Head, p.Text = T(l, "guide."+strconv.Itoa(s.N)+".head"), T(l, "guide."+strconv.Itoa(s.N)+".text")
		p.Object, p.Before, p.After = s.Caption.Object, s.Caption.Before, s.Caption.After
		current = s.ChapterStep
	}
	if last := r.guideMsg(); last != nil {
		p.Label = label(*last)
		if r.live && last.Step == 0 {
			// Live, the caption follows the newest message (past the
			// guide's own roll-up: guideMsg).
			p.Head, p.Text = T(l, "guide.live.head"), messageText(l, *last)
			p.Object, p.Before, p.After = "", "", ""
		}
	}
	if p.CanNext && r.ghost != nil {
		p.NextLabel = label(*r.ghost)
	}
	for n := 1; n <= 5; n++ {
		st := "todo"
		switch {
		case r.live || n < current:
			st = "done"
		case n == current:
			st = "current"
		}
		p.Chapter = append(p.Chapter, ChapterStep{N: n, Text: T(l, "chapter."+strconv.Itoa(n)), State: st})
	}
	return p
}

// objects builds the summary of the objects made from kubectl's apply.
func (d *Demo) objects(l ui.Lang) DesiredProps {
	r := d.facts()
	p := DesiredProps{Deployment: T(l, "cp.obj.none"), ReplicaSet: T(l, "cp.obj.none"), Pods: T(l, "cp.obj.none")}
	if r.guide.Step >= 1 {
		p.Deployment = F(l, "cp.obj.replicas", r.replicas)
	}
	if r.rsMade {
		p.ReplicaSet = F(l, "cp.obj.replicas", r.rs)
	}
	if r.running+r.pending+r.terminating > 0 {
		p.Pods = F(l, "cp.obj.pods", r.running, r.pending, r.terminating)
	}
	if r.deployMade {
		p.DeployReady = &r.deployReady
	}
	if r.rsMade {
		p.RSReady = &r.rsReady
	}
	return p
}

// components builds the scheduler's and the controller-manager's rows.
func (d *Demo) components(l ui.Lang) []CompProps {
	r := d.facts()
	var out []CompProps
	for _, c := range r.comps {
		p := CompProps{Name: c.Name, Running: c.Running, State: T(l, "cp.state.stopped"), Locked: !r.live,
			Holds: T(l, "cp.holds."+c.Name), ETA: eta(l, c.restart)}
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
		out = append(out, p)
	}
	return out
}

// eta says a countdown: its sentence holds %%.1f where the seconds go. A
// nil countdown is none.
func eta(l ui.Lang, c *countdown) *ui.ETA {
	if c == nil {
		return nil
	}
	format := F(l, c.key)
	if c.arg != "" {
		format = F(l, c.key, c.arg)
	}
	return &ui.ETA{At: c.at.Milliseconds(), Format: format, Text: fmt.Sprintf(format, c.in.Seconds())}
}

// tray builds the pods with an empty nodeName, and the tray's note.
func (d *Demo) tray(l ui.Lang) ([]PodProps, string) {
	r := d.facts()
	var tray []PodProps
	for _, pod := range r.tray {
		tray = append(tray, podProps(l, pod))
	}
	note := ""
	if r.trayNote != "" {
		note = T(l, r.trayNote)
	}
	return tray, note
}

// node builds node i's card.
func (d *Demo) node(l ui.Lang, i int) NodeProps {
	r := d.facts()
	cd := r.cards[i]
	n := cd.view
	np := NodeProps{Name: n.Name, Ready: string(n.Ready), Kubelet: n.Kubelet, Tainted: n.Tainted,
		Count: n.Pods, Capacity: cp.NodeCapacity, Locked: !r.live,
		ReadyText: T(l, "cp.ready."+string(n.Ready)), ReadyIcon: readyIcon(n.Ready), ETA: eta(l, cd.eta)}
	np.PodCIDR = n.PodCIDR
	for _, tn := range n.Taints {
		np.Taints = append(np.Taints, TaintProps{Key: tn.Key, Effect: tn.Effect,
			Short: strings.TrimPrefix(tn.Key, "node.kubernetes.io/") + ":" + tn.Effect, What: T(l, "cp.taint."+tn.Effect)})
	}
	for _, pod := range cd.pods {
		np.Pods = append(np.Pods, podProps(l, pod))
	}
	for k := len(np.Pods); k < cp.NodeCapacity; k++ {
		np.Free = append(np.Free, k)
	}
	if n.Kubelet {
		np.KubeletText, np.ToggleLabel = T(l, "cp.kubelet.running"), F(l, "cp.node.stop", n.Name)
	} else {
		np.KubeletText, np.ToggleLabel = T(l, "cp.kubelet.stopped"), F(l, "cp.node.start", n.Name)
	}
	if cd.note != "" {
		np.Note = T(l, cd.note)
	}
	return np
}

func podProps(l ui.Lang, pod podFact) PodProps {
	p := PodProps{Name: pod.Name, Short: podSuffix(pod.Name), Node: pod.Node, Phase: string(pod.Phase),
		Killable: pod.killable, KillLabel: F(l, "cp.kill.label", pod.Name)}
	p.Status = string(pod.Phase)
	if pod.Phase == cp.PhasePending && pod.Node != "" {
		p.Status = "ContainerCreating"
	}
	p.Icon = ui.PhaseIcon(string(pod.Phase))
	p.StatusText = T(l, "cp.status."+p.Status)
	p.IP, p.Ready = pod.IP, string(cp.ConditionFalse)
	if pod.Ready {
		p.Ready = string(cp.ConditionTrue)
	}
	if pod.IP != "" { // the kubelet has written its status
		p.ReadyText = T(l, "cp.pod.ready."+p.Ready)
	}
	if pod.Evicting {
		p.EvictAt = pod.EvictAt.Milliseconds()
	}
	if pod.attempts > 0 {
		p.Note = F(l, "cp.pod.failed", pod.attempts)
	}
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
	r := d.facts()
	p := NextProps{Live: r.live}
	switch {
	case !p.Live:
		p.Text = T(l, "cp.next.guide")
	case !r.due.ok:
		p.Text = T(l, "cp.next.none")
	default:
		p.Due, p.Kind, p.ETA = true, r.due.kind, eta(l, &r.due.eta)
	}
	return p
}

// quizzes builds the two quiz questions the presets set up.
func (d *Demo) quizzes(l ui.Lang) []QuizProps {
	var out []QuizProps
	for _, q := range []string{QuizScheduler, QuizNode} {
		p := QuizProps{Name: q, Question: T(l, "quiz."+q+".q"), Button: T(l, "quiz."+q+".button")}
		if d.facts().quiz == q {
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
func (d *Demo) liveText(l ui.Lang) string {
	r := d.facts()
	if !r.live {
		if r.guide.Step == 0 {
			return ""
		}
		g := d.guide(l)
		return F(l, "cp.live.guide", g.Step, g.Total, g.Label, g.Head)
	}
	if n := len(r.events); n > 0 {
		e := r.events[n-1]
		return ui.ClockText(e.At) + " " + eventText(l, e)
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
		return F(l, key, e.Node, e.Name, e.Status)
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

// evictAt is a pod's eviction time for its data-evict-at: "" when it is not
// running out of toleration.
func evictAt(ms int64) string {
	if ms == 0 {
		return ""
	}
	return strconv.FormatInt(ms, 10)
}

// otherRuntime is the stack the runtime switch turns to.
func otherRuntime(r string) string {
	if r == string(cp.RuntimeContainerd) {
		return string(cp.RuntimeDockershim)
	}
	return string(cp.RuntimeContainerd)
}
