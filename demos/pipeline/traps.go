package pipeline

import (
	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file builds the traps panel: one switch per trap of chapter 001's
// 現場での姿 and chapter 003's よくあるバグ table; when a trap is on, its
// symptom (with the number that shows it), its fix in the chapter's words,
// a button per fix, and, when the symptom takes one more click, that click.

// fixButton is one fix of a trap: the action that puts it in place, and
// whether it is already there.
type fixButton struct {
	label  string // catalog key
	action string
	field  string
	value  any
	done   func(engine.Settings) bool
	wrong  bool // the chapter's most common wrong answer, offered to be seen
}

// fixesOf lists each trap's fixes, in the chapter's order.
var fixesOf = map[engine.Trap][]fixButton{
	engine.TrapRunaway: {
		{label: "pp.fix.predicate", action: "predicate", field: "on", value: true,
			done: func(s engine.Settings) bool { return s.Predicate }},
		{label: "pp.fix.onchange", action: "status-write", field: "value", value: string(engine.StatusOnChange),
			done: func(s engine.Settings) bool { return s.StatusWrite == engine.StatusOnChange }},
	},
	engine.TrapConflict: {
		{label: "pp.fix.latest", action: "status-from", field: "value", value: string(engine.StatusFromLatest),
			done: func(s engine.Settings) bool { return s.StatusFrom == engine.StatusFromLatest }},
		{label: "pp.fix.ssa", action: "status-from", field: "value", value: string(engine.StatusFromApply),
			done: func(s engine.Settings) bool { return s.StatusFrom == engine.StatusFromApply }},
	},
	engine.TrapAlreadyExists: {
		{label: "pp.fix.branch", action: "child-write", field: "value", value: string(engine.ChildGetThenBranch),
			done: func(s engine.Settings) bool { return s.ChildWrite == engine.ChildGetThenBranch }},
		{label: "pp.fix.ssa", action: "child-write", field: "value", value: string(engine.ChildApply),
			done: func(s engine.Settings) bool { return s.ChildWrite == engine.ChildApply }},
	},
	engine.TrapNotVisible: {
		{label: "pp.fix.trust", action: "after-create", field: "value", value: string(engine.AfterCreateTrust),
			done: func(s engine.Settings) bool { return s.AfterCreate == engine.AfterCreateTrust }},
		{label: "pp.fix.sleep", action: "after-create", field: "value", value: string(engine.AfterCreateSleep), wrong: true,
			done: func(s engine.Settings) bool { return s.AfterCreate == engine.AfterCreateSleep }},
	},
	engine.TrapSlowObject: {
		{label: "pp.fix.workers", action: "workers", field: "n", value: engine.MaxWorkers,
			done: func(s engine.Settings) bool { return s.Workers == engine.MaxWorkers }},
	},
	engine.TrapStampede: {
		{label: "pp.fix.long", action: "periodic", field: "value", value: string(engine.PeriodicLong),
			done: func(s engine.Settings) bool { return s.Periodic == engine.PeriodicLong }},
	},
}

// trapStatic is what a trap's panel says whatever the state, made once:
// its catalog keys, and its fixes' ids, messages and fix names.
type trapStatic struct {
	key, title, cause, fix string
	fixes                  []struct{ id, vals, fix string }
}

var trapStatics = func() map[engine.Trap]*trapStatic {
	m := map[engine.Trap]*trapStatic{}
	for _, t := range engine.Traps() {
		key := "pp.trap." + string(t)
		st := &trapStatic{key: key, title: key + ".title", cause: key + ".cause", fix: key + ".fix"}
		for i, f := range fixesOf[t] {
			st.fixes = append(st.fixes, struct{ id, vals, fix string }{"pp-fix-" + string(t) + "-" + ui.Itoa(i+1),
				vals("action", f.action, f.field, f.value), f.action + ":" + valueText(f.value)})
		}
		m[t] = st
	}
	return m
}()

// trapIn is what the traps' buttons name: the Apps not being deleted, the
// Apps Terminating with a finalizer, and the next App to create.
type trapIn struct {
	live, deleting []apiserver.Object
	create         string
}

func trapInOf(objs []apiserver.Object) trapIn {
	var in trapIn
	for _, a := range objs {
		switch {
		case a.Kind != apiserver.KindApp:
		case !a.Deleting():
			in.live = append(in.live, a)
		case len(a.Finalizers) > 0:
			in.deleting = append(in.deleting, a)
		}
	}
	in.create = createName(objs)
	return in
}

// trapOne lays out trap t: its switch, its settings now, and while it is
// on its symptom, its fixes and the click that shows it.
func trapOne(l ui.Lang, w *engine.World, t engine.Trap, m engine.Metrics, in *trapIn) TrapProps {
	s := w.Settings()
	live, deleting, create := in.live, in.deleting, in.create
	st := trapStatics[t]
	tp := TrapProps{Name: string(t), On: w.TrapOn(t), Title: T(l, st.title), Cause: T(l, st.cause),
		Fix: T(l, st.fix)}
	if fs := fixesOf[t]; len(fs) > 0 {
		tp.Fixes = make([]ButtonProps, len(fs), len(fs)+2)
		for i, f := range fs {
			tp.Fixes[i] = ButtonProps{ID: st.fixes[i].id, Label: T(l, f.label),
				Vals: st.fixes[i].vals, Fix: st.fixes[i].fix, Wrong: f.wrong, Done: f.done(s)}
		}
	}
	key := st.key
	d := engine.DefaultSettings()
	switch t {
	case engine.TrapRunaway:
		tp.Custom = s.Predicate != d.Predicate || s.StatusWrite != d.StatusWrite
		tp.Symptom = F(l, key+".symptom", m.Reconciles())
		tp.Now = F(l, key+".now", onOff(l, s.Predicate), T(l, "pp.v.statusWrite."+string(s.StatusWrite)))
		tp.Why = T(l, key+".why")
	case engine.TrapConflict:
		tp.Custom = s.StatusFrom != d.StatusFrom
		tp.Symptom = F(l, key+".symptom", m.Conflicts)
		tp.Now = F(l, key+".now", T(l, "pp.v.statusFrom."+string(s.StatusFrom)))
		if len(live) > 0 {
			tp.Trigger = &ButtonProps{ID: "pp-try-conflict", Label: F(l, "pp.try.edit", live[0].Name),
				Vals: vals("action", "edit", "name", live[0].Name)}
		}
	case engine.TrapAlreadyExists:
		tp.Custom = s.ChildWrite != d.ChildWrite
		tp.Symptom = F(l, key+".symptom", m.AlreadyExists)
		tp.Now = F(l, key+".now", T(l, "pp.v.childWrite."+string(s.ChildWrite)))
	case engine.TrapNotVisible:
		tp.Custom = s.AfterCreate != d.AfterCreate
		tp.Symptom = F(l, key+".symptom", m.ReconcileError)
		tp.Now = F(l, key+".now", T(l, "pp.v.afterCreate."+string(s.AfterCreate)))
		tp.Trigger = createTrigger(l, "pp-try-not-visible", create)
	case engine.TrapSlowObject:
		tp.Custom = s.Workers != d.Workers
		tp.Symptom = F(l, key+".symptom", engine.SlowApp, engine.SlowCall.Seconds(), m.WorkqueueDepth)
		tp.Now = F(l, key+".now", s.Workers)
		tp.Trigger = createTrigger(l, "pp-try-slow-object", create)
	case engine.TrapStampede:
		tp.Custom = s.Periodic != d.Periodic
		tp.Symptom = F(l, key+".symptom", m.ExternalCalls)
		tp.Now = F(l, key+".now", T(l, "pp.v.periodic."+string(s.Periodic)))
	case engine.TrapStuckFinalizer:
		tp.Symptom = F(l, key+".symptom", len(deleting))
		tp.Now = F(l, key+".now", onOff(l, w.ControllerOn()))
		if len(deleting) > 0 {
			tp.Fixes = append(tp.Fixes, ButtonProps{ID: "pp-fix-stuck-finalizer-1",
				Label: F(l, "pp.fix.remove", deleting[0].Name), Fix: "remove-finalizer:" + deleting[0].Name,
				Vals: vals("action", "remove-finalizer", "name", deleting[0].Name)})
		}
		tp.Fixes = append(tp.Fixes, ButtonProps{ID: "pp-fix-stuck-finalizer-2", Label: T(l, "pp.fix.controller"),
			Fix: "controller:true", Vals: vals("action", "controller", "on", true), Done: w.ControllerOn()})
		if len(live) > 0 {
			tp.Trigger = &ButtonProps{ID: "pp-try-stuck-finalizer", Label: F(l, "pp.try.delete", live[0].Name),
				Vals: vals("action", "delete", "name", live[0].Name)}
		}
	}
	return tp
}

// trapKey is what trapOne reads for t: whether t is on; the settings its
// now line says (whether they are the starting ones, and its fixes in
// place, read the same); and while it is on, the number of its symptom
// and, when its buttons name an App, the store. A trap's item is its own
// fragment: a change of one setting renders the one trap that says it.
func (d *Demo) trapKey(t engine.Trap) uint64 {
	w := d.World()
	s := w.Settings()
	on := w.TrapOn(t)
	k := demo.B(on)
	switch t {
	case engine.TrapRunaway:
		k = demo.Mix(k, demo.B(s.Predicate), demo.Str(string(s.StatusWrite)))
	case engine.TrapConflict:
		k = demo.Mix(k, demo.Str(string(s.StatusFrom)))
	case engine.TrapAlreadyExists:
		k = demo.Mix(k, demo.Str(string(s.ChildWrite)))
	case engine.TrapNotVisible:
		k = demo.Mix(k, demo.Str(string(s.AfterCreate)))
	case engine.TrapSlowObject:
		k = demo.Mix(k, demo.I(s.Workers))
	case engine.TrapStampede:
		k = demo.Mix(k, demo.Str(string(s.Periodic)))
	case engine.TrapStuckFinalizer:
		k = demo.Mix(k, demo.B(w.ControllerOn()))
	}
	if !on {
		return k
	}
	m := w.Metrics()
	var n int64
	names := true // its buttons name an App: the store
	switch t {
	case engine.TrapRunaway:
		n, names = m.Reconciles(), false
	case engine.TrapConflict:
		n = m.Conflicts
	case engine.TrapAlreadyExists:
		n, names = m.AlreadyExists, false
	case engine.TrapNotVisible:
		n = m.ReconcileError
	case engine.TrapSlowObject:
		n = int64(m.WorkqueueDepth)
	case engine.TrapStampede:
		n, names = m.ExternalCalls, false
	}
	k = demo.Mix(k, uint64(n))
	if names {
		k = demo.Mix(k, d.epoch.Key(), uint64(w.ResourceVersion()))
	}
	return k
}

// trapParts are the traps' items, each its own fragment, in the chapter's
// order.
func trapParts() []demo.Part {
	var ps []demo.Part
	for _, t := range engine.Traps() {
		fill := func(d *Demo, v viewer, p *Props) {
			w := d.World()
			var objs [engine.PeekSize]apiserver.Object
			in := trapInOf(w.AppendPeekObjects(objs[:0]))
			*p = Props{Lang: v.lang, ReadOnly: v.readOnly, Trap: trapOne(v.lang, w, t, w.Metrics(), &in)}
		}
		ps = append(ps, frag(trapID(t), func(d *Demo) uint64 { return d.trapKey(t) }, func(d *Demo, v demo.View) templ.Component {
			return panel(trapItem, fill, d, v)
		}))
	}
	return ps
}

// trapID is the id of trap t's item.
func trapID(t engine.Trap) string { return "pp-traps-" + string(t) }

func createTrigger(l ui.Lang, id, name string) *ButtonProps {
	if name == "" {
		return nil
	}
	return &ButtonProps{ID: id, Label: F(l, "pp.try.create", name), Vals: vals("action", "create", "name", name)}
}

func onOff(l ui.Lang, on bool) string {
	if on {
		return T(l, "pp.v.on")
	}
	return T(l, "pp.v.off")
}

// valueText is a fix's value as data-fix spells it.
func valueText(v any) string {
	switch x := v.(type) {
	case bool:
		return ui.BoolStr(x)
	case int:
		return ui.Itoa(x)
	case string:
		return x
	}
	return ""
}
