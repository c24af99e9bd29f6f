package controlplane

import (
	"strconv"
	"strings"
	"unicode/utf8"

	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file lays out the sequence diagram: lanes as vertical lifelines,
// one row per message, oldest at the top. The geometry is in the SVG's
// user units; the page scales the whole drawing to its width.

// Geometry of the diagram, in user units.
const (
	seqW      = 1000 // width
	seqTop    = 66   // the lane headers above the first row
	seqRowH   = 32   // one message per row
	seqBottom = 6

	seqLeft     = 72   // the time (or step number) column
	laneBoxW    = 104  // a lane's header box
	laneBoxH    = 42   // … two lines of text
	labelFont   = 16   // an arrow's label (monospace)
	laneFont    = 14   // a lane's name
	viaFont     = 11.5 // a dockershim hop's name
	monoAdvance = 0.6  // a monospace character's width, in ems
)

// guideLanes are the lanes of the guide, left to right, as the issue lists
// them; the live cluster adds the node lifecycle controller on the right.
var guideLanes = []string{cp.LaneKubectl, cp.LaneAPIServer, cp.LaneDeployment, cp.LaneReplicaSet, cp.LaneScheduler,
	cp.LaneKubelet, cp.LaneContainerd}

// laneGap is the space before a lane, in units of the ordinary gap: the
// kubelet's calls to containerd get more room, for the dockershim hops.
func laneGap(lane string) float64 {
	if lane == cp.LaneContainerd {
		return 1.55
	}
	return 1
}

// SeqProps is the sequence diagram.
type SeqProps struct {
	Mode   string // "guide" or "live"
	W, H   int
	Lanes  []LaneProps
	Rows   []ArrowProps // the messages drawn, oldest first
	Ghost  *ArrowProps  // during the guide: the next message, not sent yet
	Title  string
	Desc   string
	Empty  string // shown when no message has been delivered
	Legend []LegendItem
}

// LaneProps is one lane: its header box and lifeline.
type LaneProps struct {
	Name         string
	X            float64
	Line1, Line2 string
	Font         float64 // the name's font size: smaller for a long name
	Hub          bool    // the apiserver: everybody's only partner
	Stopped      string  // "" when it runs; else the note under its box ("停止中", "1/3 停止")
}

// ArrowProps is one message on the diagram.
type ArrowProps struct {
	Seq, Step            int
	From, To, Kind, Verb string
	Reason               string
	Objects              int
	Y                    float64
	BandY                float64 // the row's top, for the newest message's band
	X1, X2               float64 // the line; the head is at X2
	Head                 string  // the arrowhead's polygon points
	Left                 string  // the time column: the arrival time, or the guide's step number
	Label                string  // "POST Deployment", "RunPodSandbox + PullImage ×3"
	LabelX, LabelY       float64
	Via                  []ViaBox
	ViaList              string // the hops, comma-separated: "dockershim,dockerd"
	Image                string // the image a PullImage pulls
	New                  bool   // the newest message: highlighted
	Text                 string // a sentence, for the title and the list read aloud
}

// ViaBox is a hop a CRI call passes on the dockershim stack.
type ViaBox struct {
	X, W  float64 // left edge and width
	Label string
}

// LegendItem is one entry of the legend under the diagram.
type LegendItem struct {
	Kind string
	Text string
}

// lanesFor returns the lanes of the mode, placed.
func lanesFor(live bool) []string {
	if live {
		return append(append([]string(nil), guideLanes...), cp.LaneNodeLife)
	}
	return guideLanes
}

// laneX places lanes between the time column and the right edge.
func laneX(lanes []string) map[string]float64 {
	first := float64(seqLeft) + laneBoxW/2 + 6
	last := float64(seqW) - laneBoxW/2 - 6
	total := 0.0
	for _, l := range lanes[1:] {
		total += laneGap(l)
	}
	unit := (last - first) / total
	out := map[string]float64{}
	x := first
	for i, l := range lanes {
		if i > 0 {
			x += laneGap(l) * unit
		}
		out[l] = x
	}
	return out
}

// seqHeight is the height of a diagram of rows rows: the guide's eleven
// messages, or the live cluster's last DiagramSize.
func seqHeight(rows int) int { return seqTop + rows*seqRowH + seqBottom }

// rowY returns the y of row i's line.
func rowY(i int) float64 { return float64(seqTop) + float64(i)*seqRowH + seqRowH*0.62 }

// textWidth estimates the width of monospace text at size.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * monoAdvance
}

// label returns the arrow's short label, in the API's own words: the verb
// and resource of a write or a watch event, the calls of a CRI message,
// and how many objects it carries.
func label(m cp.Message) string {
	var b strings.Builder
	if m.Kind == cp.KindCRI {
		b.WriteString(strings.Join(m.Calls, " + "))
	} else {
		b.WriteString(m.Verb + " " + m.Resource)
		if m.Sub != "" {
			b.WriteString(" " + m.Sub)
		}
	}
	switch n := len(m.Objects); {
	case n > 1:
		b.WriteString(" ×" + strconv.Itoa(n))
	case n == 1 && m.Kind != cp.KindCRI && (m.Resource == cp.ResPod || m.Resource == cp.ResBinding):
		b.WriteString(" " + podSuffix(m.Objects[0].Name))
	case n == 1 && m.Resource == cp.ResNode:
		b.WriteString(" " + m.Objects[0].Name)
	case n == 1 && m.Kind == cp.KindCRI:
		b.WriteString(" (" + podSuffix(m.Objects[0].Name) + ")")
	}
	switch m.Reason {
	case cp.ReasonScale, cp.ReasonScaleRS:
		b.WriteString(" replicas=" + strconv.Itoa(m.Value))
	case cp.ReasonCreatePods:
		if m.Kind == cp.KindWatch {
			b.WriteString(` nodeName=""`)
		}
	case cp.ReasonBind:
		if m.Kind == cp.KindWrite && len(m.Objects) == 1 {
			b.WriteString(" → " + m.Objects[0].Node)
		}
	case cp.ReasonNodeReady:
		b.WriteString(" Ready=True")
	case cp.ReasonNodeUnknown:
		b.WriteString(" Ready=Unknown")
	case cp.ReasonTaint:
		b.WriteString(" +taint")
	case cp.ReasonUntaint:
		b.WriteString(" −taint")
	case cp.ReasonPodNotReady:
		b.WriteString(" Ready=False")
	case cp.ReasonRSStatus, cp.ReasonDeployStatus:
		b.WriteString(" readyReplicas=" + strconv.Itoa(m.Value))
	}
	return b.String()
}

// podSuffix returns the random part of a pod's generated name (r5mmv of
// web-5846cdcf6d-r5mmv): the part that tells pods apart.
func podSuffix(name string) string {
	if i := strings.LastIndexByte(name, '-'); i >= 0 && strings.HasPrefix(name, cp.ReplicaSetName()+"-") {
		return name[i+1:]
	}
	return name
}

// arrow places message m on row i of a diagram whose lanes are at xs.
func arrow(l ui.Lang, m cp.Message, i int, xs map[string]float64, left string) ArrowProps {
	a := ArrowProps{Seq: m.Seq, Step: m.Step, From: m.From, To: m.To, Kind: m.Kind, Verb: m.Verb, Reason: m.Reason,
		Objects: len(m.Objects), ViaList: strings.Join(m.Via, ","), Image: m.Image, Y: rowY(i), BandY: float64(seqTop + i*seqRowH), Left: left, Label: label(m), Text: messageText(l, m)}
	from, to := xs[m.From], xs[m.To]
	dir := 1.0
	if to < from {
		dir = -1
	}
	const head = 13
	a.X1, a.X2 = from, to-dir*head
	a.Head = pts(to, a.Y, to-dir*head, a.Y-6.5, to-dir*head, a.Y+6.5)
	w := textWidth(a.Label, labelFont)
	mid := (from + to) / 2
	a.LabelX = clampLabel(mid, w)
	a.LabelY = a.Y - 9
	if len(m.Via) > 0 {
		a.LabelY = a.Y - 12
		var widths []float64
		sum := 0.0
		for _, v := range m.Via {
			bw := textWidth(v, viaFont) + 10
			widths = append(widths, bw)
			sum += bw
		}
		gap := (abs(to-from) - sum) / float64(len(m.Via)+1)
		x := min(from, to) + gap
		for k, v := range m.Via {
			a.Via = append(a.Via, ViaBox{X: x, W: widths[k], Label: v})
			x += widths[k] + gap
		}
	}
	return a
}

// clampLabel keeps a label of width w centred on x inside the drawing,
// clear of the time column.
func clampLabel(x, w float64) float64 {
	return max(min(x, seqW-w/2-4), seqLeft+w/2)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// pts formats polygon points.
func pts(xy ...float64) string {
	var b strings.Builder
	for i := 0; i+1 < len(xy); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(num(xy[i]) + "," + num(xy[i+1]))
	}
	return b.String()
}

// num formats a coordinate with at most one decimal.
func num(f float64) string { return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0") }

// laneLines are the lanes' names on the diagram: programs' own names, the
// same in every language.
var laneLines = map[string][2]string{
	cp.LaneKubectl:    {"kubectl", ""},
	cp.LaneAPIServer:  {"apiserver", "(etcd)"},
	cp.LaneDeployment: {"Deployment", "controller"},
	cp.LaneReplicaSet: {"ReplicaSet", "controller"},
	cp.LaneScheduler:  {"scheduler", ""},
	cp.LaneKubelet:    {"kubelet", "×3"},
	cp.LaneContainerd: {"containerd", ""},
	// The chapter's name, with the real one under it.
	cp.LaneNodeLife: {"node controller", "(node lifecycle)"},
}

// sequence builds the diagram: during the guide its seven lanes, the
// messages sent and the next one faint; live, the node lifecycle
// controller's lane too and the last DiagramSize messages, each at its
// arrival time.
func (d *Demo) sequence(l ui.Lang) SeqProps {
	r := d.facts()
	live := r.live
	lanes := lanesFor(live)
	xs := laneX(lanes)
	p := SeqProps{Mode: "guide", W: seqW, H: seqHeight(cp.GuideSteps), Title: T(l, "cp.seq.title"), Empty: T(l, "cp.seq.empty"),
		Legend: []LegendItem{{cp.KindWrite, T(l, "cp.legend.write")}, {cp.KindWatch, T(l, "cp.legend.watch")},
			{cp.KindCRI, T(l, "cp.legend.cri")}}}
	if live {
		p.Mode, p.H = "live", seqHeight(cp.DiagramSize)
	}
	stopped := d.stoppedLanes(l)
	for _, name := range lanes {
		ln := laneLines[name]
		font := float64(laneFont)
		if len(ln[0]) > 12 {
			font = laneFont - 2
		}
		p.Lanes = append(p.Lanes, LaneProps{Name: name, X: xs[name], Line1: ln[0], Line2: ln[1], Font: font,
			Hub: name == cp.LaneAPIServer, Stopped: stopped[name]})
	}
	msgs := r.msgs
	for i, m := range msgs {
		if _, ok := xs[m.From]; !ok {
			continue
		}
		if _, ok := xs[m.To]; !ok {
			continue
		}
		left := ui.ClockText(m.Arrive)
		if !live {
			left = strconv.Itoa(m.Step)
		}
		a := arrow(l, m, i, xs, left)
		a.New = i == len(msgs)-1
		p.Rows = append(p.Rows, a)
	}
	if !live {
		if next := r.ghost; next != nil {
			g := arrow(l, *next, len(msgs), xs, strconv.Itoa(len(msgs)+1))
			g.Label = F(l, "cp.seq.next", g.Label)
			g.LabelX = clampLabel((xs[next.From]+xs[next.To])/2, textWidth(g.Label, labelFont))
			p.Ghost = &g
		}
		p.Desc = F(l, "cp.seq.desc.guide", len(p.Rows), cp.GuideSteps)
	} else {
		p.Desc = F(l, "cp.seq.desc.live", len(p.Rows))
	}
	return p
}

// stoppedLanes returns, for each lane whose program is stopped, the note
// under its header: the scheduler, the controllers of a stopped
// controller-manager, the kubelets of stopped nodes. During the guide
// everything runs.
func (d *Demo) stoppedLanes(l ui.Lang) map[string]string {
	r := d.facts()
	out := map[string]string{}
	if !r.live {
		return out
	}
	for _, c := range r.comps {
		if c.Running {
			continue
		}
		switch c.Name {
		case cp.ProcessScheduler:
			out[cp.LaneScheduler] = T(l, "cp.lane.stopped")
		case cp.ProcessControllerManager:
			for _, lane := range []string{cp.LaneDeployment, cp.LaneReplicaSet, cp.LaneNodeLife} {
				out[lane] = T(l, "cp.lane.stopped")
			}
		}
	}
	down := 0
	for _, cd := range r.cards {
		if !cd.view.Kubelet {
			down++
		}
	}
	if down > 0 {
		out[cp.LaneKubelet] = F(l, "cp.lane.kubelets-stopped", down, cp.NodeCount)
	}
	return out
}

// laneName returns a lane's name in a sentence.
func laneName(lane string) string {
	ln := laneLines[lane]
	if ln[1] == "" || lane == cp.LaneKubelet || lane == cp.LaneNodeLife {
		return ln[0]
	}
	return ln[0] + " " + ln[1]
}

// messageText says a message in a sentence: who tells whom what, and why.
func messageText(l ui.Lang, m cp.Message) string {
	why := T(l, "reason."+m.Reason)
	switch m.Kind {
	case cp.KindWatch:
		return F(l, "cp.say.watch", laneName(m.To), label(m), why)
	case cp.KindCRI:
		path := append([]string{cp.LaneKubelet}, m.Via...)
		path = append(path, cp.LaneContainerd)
		return F(l, "cp.say.cri", strings.Join(path, " → "), label(m), why)
	}
	return F(l, "cp.say.write", laneName(m.From), label(m), why)
}
