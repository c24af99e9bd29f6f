package pipeline

import (
	"hash/maphash"

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

// trapProps lays out the traps panel from the settings, the metrics m and
// the API server's objects (what a trap's buttons name).
func trapProps(l ui.Lang, w *engine.World, m engine.Metrics, objs []apiserver.Object) []TrapProps {
	s := w.Settings()
	var live, deleting []apiserver.Object // Apps not being deleted; Apps Terminating with a finalizer
	for _, a := range objs {
		switch {
		case a.Kind != apiserver.KindApp:
		case !a.Deleting():
			live = append(live, a)
		case len(a.Finalizers) > 0:
			deleting = append(deleting, a)
		}
	}
	create := createName(objs)
	out := make([]TrapProps, 0, len(engine.Traps()))
	for _, t := range engine.Traps() {
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
		out = append(out, tp)
	}
	return out
}

// trapsKey is what trapProps reads: the settings and the controller
// (whether each trap is on, its settings now, its fixes in place), and for
// each trap that is on, the number of its symptom and, when its buttons
// name an App, the store.
func (d *Demo) trapsKey() uint64 {
	w := d.World()
	on := w.ControllerOn()
	k := demo.Mix(maphash.Comparable(keySeed, w.Settings()), demo.B(on))
	var m engine.Metrics
	for i, t := range engine.Traps() {
		if !w.TrapOn(t) {
			continue
		}
		if m.Workers == 0 {
			m = w.Metrics()
		}
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
		k = demo.Mix(k, demo.I(i), uint64(n))
		if names {
			k = demo.Mix(k, d.epoch.Key(), uint64(w.ResourceVersion()))
		}
	}
	return k
}

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
