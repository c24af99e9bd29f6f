package triggers

import (
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file turns the demo's state into its components' props: every
// sentence comes from the catalog, so the same state reads in either
// language.

// Props is the demo's shared state as its components lay it out; each
// fragment fills only the fields it reads.
type Props struct {
	Lang       ui.Lang
	Desired    int
	Max        int
	Drop       bool
	DupArmed   bool // armed on either stream
	SwapArmed  bool
	Restarting bool
	UpETA      *ui.ETA // while restarting: when the controllers are back
	Lesson     LessonProps
}

// SideProps is one column: a cluster, its stream and its controller; each
// of its fragments fills only the fields it reads.
type SideProps struct {
	Side  string // "edge" or "level", as data-trigger spells it
	ID    string // the prefix of its fragments' ids: "tr-edge"
	Title string
	Sub   string
	Pods  []PodProps
	// PodsWhole renders the pods' cards: a page's. A frame of the panel
	// leaves the page's, which are a fragment of their own (Demo.podItems).
	PodsWhole bool
	Alive     int
	Count     PhaseCount
	Diff      DiffProps
	Memory    string
	Known     int // edge: pods the controller remembers; level: -1 (it remembers nothing)
	Stream    StreamProps
}

// PhaseCount counts a side's pods by phase.
type PhaseCount struct{ Running, Pending, Failed int }

// PodProps is one pod card.
type PodProps struct {
	Name  string
	Phase string  // the engine's String()
	ETA   *ui.ETA // while Pending: when it starts
}

// DiffProps is a side's diff line.
type DiffProps struct {
	Converged bool
	State     string // converged|starting|catchup|waiting|held|stuck|down
	Head      string
	Detail    string
}

// StreamProps is a side's stream of recent events.
type StreamProps struct {
	// Events are the side's, as the frame's reading holds them: each
	// row's props are made as it is written (eventRows).
	Events []engine.StreamEvent
	// Whole renders the lane with its rows: a page's. A frame of the
	// panel leaves the page's lane, which is a fragment of its own
	// (Demo.laneItems).
	Whole     bool
	DupArmed  bool
	SwapArmed bool
}

// EventProps is one chip of a stream.
type EventProps struct {
	Seq       int
	Kind      string // created|running|died|deleted|desired
	Pod       string
	Fate      string // delivered|dropped|duplicated|swapped
	Loss      string // blip|down|restart|overflow, for dropped ones
	Delivered int    // copies that arrived: 0, 1, 2
	Flying    bool   // a copy is on its way
	Held      bool   // the first of a swapped pair, waiting for the second
	Text      string // "pod-2 died"
	Mark      string // ✓ ✕ ×2 ⇄ …
	Label     string // the whole sentence, for screen readers
}

// LessonProps is the chapter's table with the row that just mattered.
type LessonProps struct {
	Active string // the engine's Row; "" before anything mattered
	Reason string // the engine's Reason
	Text   string
	Rows   []RowProps
}

// RowProps is one row of the table.
type RowProps struct {
	Row    string // writes|trigger|missed|recovery|example
	Head   string
	Edge   string
	Level  string
	Active bool
}

// sides are the columns, in the page's order: edge | level.
var sides = [2]engine.Side{engine.Edge, engine.Level}

// rows are the table's rows, in the chapter's order.
var rows = []engine.Row{engine.RowWrites, engine.RowTrigger, engine.RowMissed, engine.RowRecovery, "example"}

func (d *Demo) desiredFrag(v demo.View) templ.Component {
	return desiredPanel(&Props{Lang: v.Lang, Desired: d.w.Desired(), Max: engine.MaxDesired})
}

func (d *Demo) breakersFrag(v demo.View) templ.Component {
	l, f := v.Lang, d.keys()
	p := &Props{Lang: l, Drop: d.w.Drop(), DupArmed: f.dupArmed, SwapArmed: f.swapArmed}
	if down, in := d.w.Restarting(); down {
		p.Restarting = true
		p.UpETA = &ui.ETA{At: (d.w.Now() + in).Milliseconds(), Format: T(l, "tr.upin"), Text: F(l, "tr.upin", in.Seconds())}
	}
	return breakersPanel(p)
}

func (d *Demo) lessonFrag(v demo.View) templ.Component {
	return lessonTable(&Props{Lang: v.Lang, Lesson: lessonProps(v.Lang, d.w.Mattered())})
}

// liveText says, for the live region, why the row mattered and what
// became of each side's difference.
func (d *Demo) liveText(l ui.Lang) string {
	f := d.keys()
	return F(l, "tr.live", liveReason(l, d.w.Mattered()),
		T(l, "tr.diff."+f.state[edgeSide]), T(l, "tr.diff."+f.state[levelSide]))
}

// sideHead names side s's column and the ids of its fragments.
func sideHead(l ui.Lang, s engine.Side) *SideProps {
	name := s.String()
	return &SideProps{Side: name, ID: Prefix + "-" + name, Title: T(l, "tr."+name+".title"), Sub: T(l, "tr."+name+".sub")}
}

// sidePanel renders comp with side i's props, filled by fill as it renders,
// from a pool: a frame renders up to six of a side's fragments, and each
// made its own props.
func (d *Demo) sidePanel(l ui.Lang, i int, comp func(ui.Lang, *SideProps) templ.Component,
	fill func(d *Demo, l ui.Lang, v *engine.SideView, read time.Duration, sp *SideProps)) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		sp := sidePool.Get().(*SideProps)
		v, read := d.side(i)
		name := v.Side.String()
		pods := sp.Pods[:0]
		*sp = SideProps{Side: name, ID: Prefix + "-" + name, Title: T(l, "tr."+name+".title"), Sub: T(l, "tr."+name+".sub"), Pods: pods}
		fill(d, l, v, read, sp)
		err := comp(l, sp).Render(ctx, w)
		clear(sp.Pods) // their countdowns
		*sp = SideProps{Pods: sp.Pods[:0]}
		sidePool.Put(sp)
		return err
	})
}

var sidePool = sync.Pool{New: func() any { return new(SideProps) }}

func (d *Demo) diffFrag(l ui.Lang, i int) templ.Component {
	return d.sidePanel(l, i, diffLine, (*Demo).fillDiff)
}

func (d *Demo) fillDiff(l ui.Lang, v *engine.SideView, _ time.Duration, sp *SideProps) {
	sp.Known = -1
	if v.Side == engine.Edge {
		sp.Known = len(v.Known)
		known := T(l, "tr.memory.none")
		if len(v.Known) > 0 {
			known = strings.Join(v.Known, ", ")
		}
		sp.Memory = F(l, "tr.memory.edge", known)
	} else {
		sp.Memory = T(l, "tr.memory.level")
	}
	sp.Diff = diffProps(l, v)
}

// observedFrag lays out a side's pods. The side was read at virtual time
// read; a Pending pod's countdown ends when it starts, and says the time
// left from now.
func (d *Demo) observedFrag(v demo.View, i int) templ.Component {
	whole := v.InPage()
	return d.sidePanel(v.Lang, i, observedPanel, func(d *Demo, l ui.Lang, sv *engine.SideView, read time.Duration, sp *SideProps) {
		d.fillObserved(l, sv, read, sp)
		sp.PodsWhole = whole
	})
}

func (d *Demo) fillObserved(l ui.Lang, v *engine.SideView, read time.Duration, sp *SideProps) {
	sp.Alive = v.Alive
	for j, pod := range v.Pods {
		switch pod.Phase {
		case chapter.Running:
			sp.Count.Running++
		case chapter.Pending:
			sp.Count.Pending++
		case chapter.Failed:
			sp.Count.Failed++
		}
		sp.Pods = append(sp.Pods, d.podProps(l, v, read, j))
	}
}

// podProps returns pod j of side v, read at virtual time read.
func (d *Demo) podProps(l ui.Lang, v *engine.SideView, read time.Duration, j int) PodProps {
	pod := &v.Pods[j]
	pp := PodProps{Name: pod.Name, Phase: pod.Phase.String()}
	if pod.Phase == chapter.Pending {
		now := d.w.Now()
		pp.ETA = ui.StartsIn(l, now, read+pod.StartsIn-now)
	}
	return pp
}

// podsFrag renders side i's pods' cards, whole.
func (d *Demo) podsFrag(l ui.Lang, i int) templ.Component {
	return d.sidePanel(l, i, func(l ui.Lang, sp *SideProps) templ.Component { return sidePods(l, sp.ID, sp.Pods, false) },
		(*Demo).fillObserved)
}

// podItems appends side i's pods' cards, formatting none: a pod's name
// within the world's epoch, and its phase with, while it is Pending, when
// it starts (as observedKey sums them).
func (d *Demo) podItems(i int, items []demo.Item) []demo.Item {
	v, read := d.side(i)
	ep := d.epoch.Key()
	for _, p := range v.Pods {
		k := uint64(p.Phase)
		if p.Phase == chapter.Pending {
			k = demo.Mix(k, uint64((read + p.StartsIn).Milliseconds()))
		}
		items = append(items, demo.Item{ID: demo.Mix(ep, demo.Str(p.Name)), Key: k})
	}
	return items
}

// podRow renders pod j of side i's cards (of podItems).
func (d *Demo) podRow(l ui.Lang, i, j int) templ.Component {
	v, read := d.side(i)
	return podRows(l, Prefix+"-"+v.Side.String(), []PodProps{d.podProps(l, v, read, j)})
}

// streamFrag lays out a side's stream: what is armed, and its lane, whole
// on a page only.
func (d *Demo) streamFrag(v demo.View, i int) templ.Component {
	whole := v.InPage()
	return d.sidePanel(v.Lang, i, streamPanel, func(_ *Demo, _ ui.Lang, sv *engine.SideView, _ time.Duration, sp *SideProps) {
		sp.Stream = StreamProps{DupArmed: sv.DuplicateArmed, SwapArmed: sv.SwapArmed, Events: sv.Stream, Whole: whole}
	})
}

// laneFrag renders side i's lane whole.
func (d *Demo) laneFrag(l ui.Lang, i int) templ.Component {
	v, _ := d.side(i)
	return streamLane(l, Prefix+"-"+v.Side.String(), v.Stream, false)
}

// laneItems appends the rows of side i's lane, formatting none: an
// event's number within the world's epoch, and everything its row is
// written from (writeEvent).
func (d *Demo) laneItems(i int, items []demo.Item) []demo.Item {
	v, _ := d.side(i)
	ep := d.epoch.Key()
	for j := range v.Stream {
		e := &v.Stream[j]
		items = append(items, demo.Item{ID: demo.Mix(ep, demo.I(e.Seq)), Key: rowKey(e)})
	}
	return items
}

// rowKey sums up everything an event's row is written from, but the
// language (the framework mixes in the viewer's).
func rowKey(e *engine.StreamEvent) uint64 {
	return demo.Mix(uint64(e.Kind), uint64(e.Pod), demo.I(e.Old), demo.I(e.New),
		uint64(e.Fate), uint64(e.Loss), uint64(e.EmittedAt), demo.I(e.Delivered), uint64(e.DeliveredAt),
		demo.B(e.InFlight > 0), demo.B(e.Held))
}

// laneRow renders row j of side i's lane (of laneItems).
func (d *Demo) laneRow(l ui.Lang, i, j int) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		v, _ := d.side(i)
		h := ui.NewHTML(w)
		writeEvent(h, l, Prefix+"-"+v.Side.String(), &v.Stream[j])
		return h.Err()
	})
}

// logFrag says side i's controller log, with the reset or restore note,
// newest first: the newest ui.LogShown lines, as the page shows them (the
// shared log panel keeps a list's last lines, which here are the oldest).
func (d *Demo) logFrag(l ui.Lang, i int) []ui.LogLine { return d.logNewest(l, i, ui.LogShown) }

// logNewest returns the n newest lines of side i's log panel, newest first:
// only they are formatted.
func (d *Demo) logNewest(l ui.Lang, i, n int) []ui.LogLine {
	v, _ := d.side(i)
	lines := logLines(l, v.Side, v.Log[max(0, len(v.Log)-n):])
	if note, ok := d.Note(); ok && len(lines) < n {
		lines = withNote(l, note, lines)
	}
	return lines[:min(len(lines), n)]
}

// logItems appends the identity of each line of side i's log panel,
// newest first, as logFrag lists them, formatting none: an entry's number
// within the world's epoch (entries never change once written), and the
// note's time and kind.
func (d *Demo) logItems(i int, keys []uint64) []uint64 {
	v, _ := d.side(i)
	ep := d.epoch.Key()
	for j := len(v.Log) - 1; j >= 0 && len(keys) < ui.LogShown; j-- {
		e := &v.Log[j]
		keys = append(keys, demo.Mix(ep, demo.I(e.Seq), uint64(e.At)))
	}
	if note, ok := d.Note(); ok && len(keys) < ui.LogShown {
		keys = append(keys, demo.Mix(ep, ^uint64(0), uint64(note.At), demo.Str(note.Kind)))
	}
	return keys
}

// diffState is what becomes of a side's difference (see diffProps).
func diffState(v *engine.SideView) string {
	flying, held := false, false
	for _, e := range v.Stream {
		flying = flying || e.InFlight > 0
		held = held || e.Held
	}
	differs := v.Alive != v.Desired || v.Failed > 0
	switch {
	case v.Converged:
		return "converged"
	case v.Restarting:
		return "down"
	case !differs:
		return "starting"
	case v.Side == engine.Level:
		return "catchup"
	case flying:
		return "waiting"
	case held:
		return "held"
	}
	return "stuck"
}

// diffProps says whether a side converged and, if not, what comes of it.
// The edge side is stuck when it is off and nothing is on its way to it:
// no event it will hear can tell it about the difference. An event held
// for a swap is not on its way: it waits for a partner that only a change
// by the visitor would bring.
func diffProps(l ui.Lang, v *engine.SideView) DiffProps {
	dp := DiffProps{Converged: v.Converged, State: diffState(v), Detail: F(l, "tr.diff.detail", v.Desired, v.Alive, v.Running)}
	if v.Failed > 0 {
		dp.Detail += F(l, "tr.diff.failed", v.Failed)
	}
	dp.Head = T(l, "tr.diff."+dp.State)
	return dp
}

func eventText(l ui.Lang, e engine.Event) string {
	if e.Kind == engine.DesiredChanged {
		return F(l, "tr.ev.desired", e.Old, e.New)
	}
	return F(l, "tr.ev."+e.Kind.String(), e.Pod.String())
}

func eventProps(l ui.Lang, e engine.StreamEvent) EventProps {
	ep := EventProps{Seq: e.Seq, Kind: e.Kind.String(), Pod: e.Pod.String(), Fate: e.Fate.String(), Loss: e.Loss.String(),
		Delivered: e.Delivered, Flying: e.InFlight > 0, Held: e.Held, Text: eventText(l, e.Event)}
	var fate string
	switch e.Fate {
	case engine.Dropped:
		ep.Mark, fate = "✕", F(l, "tr.fate.dropped", T(l, "tr.loss."+e.Loss.String()))
	case engine.Duplicated:
		ep.Mark, fate = "×2", T(l, "tr.fate.duplicated")
	case engine.Swapped:
		ep.Mark, fate = "⇄", T(l, "tr.fate.swapped")
	default:
		ep.Mark, fate = "✓", T(l, "tr.fate.delivered")
	}
	switch {
	case e.Held:
		ep.Mark, fate = "⇄ …", fate+", "+T(l, "tr.fate.held")
	case ep.Flying:
		ep.Mark, fate = ep.Mark+" …", fate+", "+T(l, "tr.fate.flying")
	}
	ep.Label = F(l, "tr.event.label", e.Seq, ep.Text, fate)
	return ep
}

// logLines says a side's controller log, newest first: two logs share the
// page, and the page scrolls only the first to its end, so each log lists
// its newest line first and its stylesheet shows it at the bottom.
func logLines(l ui.Lang, s engine.Side, log []engine.LogEntry) []ui.LogLine {
	out := make([]ui.LogLine, len(log))
	line := levelLine
	if s == engine.Edge {
		line = edgeLine
	}
	for i := range log {
		e := &log[i]
		kind, text := line(l, e)
		out[len(log)-1-i] = ui.LogLine{Seq: e.Seq, At: ui.ClockText(e.At), Kind: kind, Text: text}
	}
	return out
}

// levelLine says one recount: why it looked, what it counted, what it did.
func levelLine(l ui.Lang, e *engine.LogEntry) (kind, text string) {
	var head string
	switch e.Trigger {
	case engine.TriggerRestart:
		return "restart", T(l, "tr.log.level.restart")
	case engine.TriggerEvent:
		head = F(l, "tr.log.event", eventText(l, e.Heard))
		if e.Events > 1 {
			head = F(l, "tr.log.events", e.Events, eventText(l, e.Heard))
		}
	case engine.TriggerResync:
		head = T(l, "tr.log.resync")
	case engine.TriggerStep:
		head = T(l, "tr.log.step")
	case engine.TriggerStartup:
		head = T(l, "tr.log.startup")
	}
	count := F(l, "tr.log.count", e.Desired, e.Alive)
	if e.Failed > 0 {
		count += F(l, "tr.log.failed", e.Failed)
	}
	kind, acts := actionsText(l, e.Actions())
	if e.Trigger == engine.TriggerStartup {
		kind = "startup"
	}
	return kind, head + count + " → " + acts
}

// edgeLine says one event the edge controller acted on, and what it did.
func edgeLine(l ui.Lang, e *engine.LogEntry) (kind, text string) {
	switch e.Trigger {
	case engine.TriggerRestart:
		return "restart", T(l, "tr.log.edge.restart")
	case engine.TriggerStartup:
		return "startup", T(l, "tr.log.edge.startup")
	}
	key := "tr.log.heard"
	switch {
	case e.Copy == 2:
		key = "tr.log.heard.again"
	case e.Heard.Fate == engine.Swapped:
		key = "tr.log.heard.swapped"
	}
	head := F(l, key, eventText(l, e.Heard))
	if e.Trigger == engine.TriggerStep {
		head = T(l, "tr.log.edge.step") + head
	}
	kind, acts := actionsText(l, e.Actions())
	return kind, head + acts + F(l, "tr.log.known", e.Known)
}

// actionsText lists what a controller did; kind is the log line's kind:
// "create" when it created anything, else "delete" when it deleted
// anything, else "noop" (nothing done, or only moves that went nowhere).
func actionsText(l ui.Lang, as []engine.Action) (kind, text string) {
	if len(as) == 0 {
		return "noop", T(l, "tr.act.noop")
	}
	kind = "noop"
	texts := make([]string, len(as))
	for i, a := range as {
		texts[i] = T(l, "tr.act."+a.Kind.String())
		if a.Pod != 0 {
			texts[i] = F(l, "tr.act."+a.Kind.String(), a.Pod.String())
		}
		switch {
		case a.Kind == engine.ActCreate:
			kind = "create"
		case a.Kind == engine.ActDelete && kind == "noop":
			kind = "delete"
		}
	}
	return kind, ui.List(l, texts)
}

// withNote puts the reset or restore note at the end of a log (newest
// first): every entry of the world's log came after it.
func withNote(l ui.Lang, n sim.Event, log []ui.LogLine) []ui.LogLine {
	return append(log, ui.LogLine{Seq: 0, At: ui.ClockText(n.At), Kind: n.Kind, Text: T(l, "log."+n.Kind)})
}

func lessonProps(l ui.Lang, m engine.Lesson) LessonProps {
	lp := LessonProps{Active: string(m.Row), Reason: string(m.Reason), Text: lessonText(l, m)}
	lp.Rows = make([]RowProps, len(rows))
	for i, r := range rows {
		k := &rowKeys[i]
		lp.Rows[i] = RowProps{Row: string(r), Head: T(l, k[0]), Edge: T(l, k[1]), Level: T(l, k[2]), Active: r == m.Row}
	}
	return lp
}

// rowKeys are the catalog keys of each row of rows: its head, its edge
// and its level cells.
var rowKeys = func() [][3]string {
	ks := make([][3]string, len(rows))
	for i, r := range rows {
		k := "tr.row." + string(r)
		ks[i] = [3]string{k, k + ".edge", k + ".level"}
	}
	return ks
}()

func liveReason(l ui.Lang, m engine.Lesson) string {
	if m.Row == engine.RowNone {
		return ""
	}
	return F(l, "tr.live.reason", lessonText(l, m))
}

// lessonText says which row mattered, why and when (the table's caption
// and the live sentence): the table's rows are not needed for it.
func lessonText(l ui.Lang, m engine.Lesson) string {
	if m.Row == engine.RowNone {
		return T(l, "tr.reason.none")
	}
	return F(l, "tr.reason.at", ui.ClockText(m.At)) + T(l, "tr.reason."+string(m.Reason))
}

// diffClass is the shared diff line's colour for a state: green in sync,
// amber while something is under way, red when nobody will close the gap.
func diffClass(state string) string {
	switch state {
	case "converged":
		return "diff-ok"
	case "stuck", "held", "down":
		return "diff-need"
	}
	return "diff-wait"
}

// diffIcon is the state's shape, so it never rests on colour alone.
func diffIcon(state string) string {
	switch state {
	case "converged":
		return "✓"
	case "stuck", "held":
		return "✕"
	}
	return "≠"
}

// podRows writes a side's pods (ui.WritePod).
func podRows(l ui.Lang, id string, pods []PodProps) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		for _, pod := range pods {
			ui.WritePod(h, &ui.PodRow{Name: pod.Name, Phase: pod.Phase, PhaseText: pod.Phase, ETA: pod.ETA,
				IDPrefix: id, KillLabel: F(l, "tr.kill.label", pod.Name), Kill: T(l, "tr.kill")})
		}
		return h.Err()
	})
}

// eventRows writes a stream's events by hand, one row each, as templ
// wrote them (writeEvent): the lane's, whole.
func eventRows(l ui.Lang, id string, events []engine.StreamEvent) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		for i := range events {
			writeEvent(h, l, id, &events[i])
		}
		return h.Err()
	})
}

// writeEvent writes one row of the lane of the side whose fragments' ids
// start with id. Frames replace a row by its id when its event changes
// (Demo.laneItems):
//
//	<li id="tr-edge-ev-7" class="tr-ev" data-testid="event" data-seq="…" data-kind="…" data-pod="…" data-fate="…" data-loss="…" data-delivered="…" data-inflight="…"><span class="tr-ev-mark" aria-hidden="true">…</span> <span class="tr-ev-text" aria-hidden="true">…</span> <span class="sr-only">…</span></li>
func writeEvent(h *ui.HTML, l ui.Lang, id string, ev *engine.StreamEvent) {
	e := eventProps(l, *ev)
	h.Raw(`<li id="`)
	h.Raw(id)
	h.Raw(`-ev-`)
	h.Int(e.Seq)
	h.Raw(`" class="tr-ev" data-testid="event" data-seq="`)
	h.Int(e.Seq)
	h.Raw(`" data-kind="`)
	h.Text(e.Kind)
	h.Raw(`" data-pod="`)
	h.Text(e.Pod)
	h.Raw(`" data-fate="`)
	h.Text(e.Fate)
	h.Raw(`" data-loss="`)
	h.Text(e.Loss)
	h.Raw(`" data-delivered="`)
	h.Int(e.Delivered)
	h.Raw(`" data-inflight="`)
	h.Bool(e.Flying || e.Held)
	h.Raw(`"><span class="tr-ev-mark" aria-hidden="true">`)
	h.Text(e.Mark)
	h.Raw(`</span> <span class="tr-ev-text" aria-hidden="true">`)
	h.Text(e.Text)
	h.Raw(`</span> <span class="sr-only">`)
	h.Text(e.Label)
	h.Raw(`</span></li>`)
}
