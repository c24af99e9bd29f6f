// Package pipeline is the demo of chapters 001 and 003: what sits between
// the API server and Reconcile (informer cache → workqueue → workers →
// writes back), with the traps every Operator author falls into, over the
// engine of engine/pipeline. Its commands, timing, snapshot, view and words
// are all in this folder.
package pipeline

import (
	_ "embed"
	"errors"
	"fmt"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The demo's name (routes, test ids, the socket's ?demo=) and the id prefix
// of its fragments.
const (
	Name   = "pipeline"
	Prefix = "pp"
)

// Its stylesheets: its own, and its projector layout.
var (
	//go:embed style.css
	css []byte
	//go:embed present.css
	presentCSS []byte
)

// The wire values of the settings that are not booleans. not-ready says
// "requeue" for the engine's requeue-after, as the page's contract does; its
// button cycles through them in this order.
var (
	notReadyValues    = []string{"error", "requeue", string(engine.NotReadyRequeueTrue)}
	statusWriteValues = []string{string(engine.StatusAlways), string(engine.StatusOnChange)}
	statusFromValues  = []string{string(engine.StatusFromLatest), string(engine.StatusFromCache), string(engine.StatusFromApply)}
	childWriteValues  = []string{string(engine.ChildGetThenBranch), string(engine.ChildBlind), string(engine.ChildApply)}
	afterCreateValues = []string{string(engine.AfterCreateTrust), string(engine.AfterCreateReadBack), string(engine.AfterCreateSleep)}
	periodicValues    = []string{string(engine.PeriodicNone), string(engine.PeriodicShort), string(engine.PeriodicLong)}
	queueKindValues   = []string{string(workqueue.Priority), string(workqueue.Classic)}
)

// choice is an action that carries one of options in field key
// (Command.Name).
func choice(key string, options ...string) demo.Action {
	return demo.Action{Fields: []string{key}, Read: func(m demo.Message, c *demo.Command) (err error) {
		c.Name, err = m.Choice(key, options...)
		return err
	}}
}

// trapAction switches one trap of the traps panel: {"trap": name, "on": bool}.
var trapAction = demo.Action{Fields: []string{"trap", "on"}, Read: func(m demo.Message, c *demo.Command) (err error) {
	names := make([]string, 0, len(engine.Traps()))
	for _, t := range engine.Traps() {
		names = append(names, string(t))
	}
	if c.Name, err = m.Choice("trap", names...); err != nil {
		return err
	}
	c.On, err = m.Bool("on")
	return err
}}

// Kind describes the demo to the server. It is not live on the index: it is
// the largest demo, and the chapters link to it.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "001, 003", Controller: true,
	Title:    func(l ui.Lang) string { return T(l, "pp.title") },
	Short:    func(l ui.Lang) string { return T(l, "pp.short") },
	Summary:  func(l ui.Lang) string { return T(l, "pp.summary") },
	Intro:    func(l ui.Lang) string { return T(l, "pp.intro") },
	StepText: func(l ui.Lang) string { return T(l, "pp.step") },
	Actions: map[string]demo.Action{
		"create":           demo.Name("name"),
		"edit":             demo.Name("name"),
		"delete":           demo.Name("name"),
		"remove-finalizer": demo.Name("name"),
		"dependency":       demo.Bool("present"),
		"not-ready":        choice("value", notReadyValues...),
		"status-write":     choice("value", statusWriteValues...),
		"predicate":        demo.Bool("on"),
		"workers":          demo.Int("n", 1, engine.MaxWorkers),
		"status-from":      choice("value", statusFromValues...),
		"child-write":      choice("value", childWriteValues...),
		"after-create":     choice("value", afterCreateValues...),
		"periodic":         choice("value", periodicValues...),
		"trap":             trapAction,
		"queue-kind":       choice("value", queueKindValues...),
		"secret-watch":     demo.Bool("on"),
		"child-edit":       demo.Name("name"),
	},
	Parts:      parts,
	New:        func(demo.Options) demo.Instance { return NewDemo() },
	Restore:    demo.RestoreWith(func(_ demo.Options, snap Snapshot) (*Demo, error) { return RestoreDemo(snap) }),
	CSS:        css,
	PresentCSS: presentCSS,
	// The load generator flips the workers between 2 and 1: each flip
	// restarts the controller, which re-lists and reconciles every App.
	Load: []demo.LoadStep{
		{Send: `{"action":"workers","n":"2"}`, Expect: `data-testid="workers" data-value="2"`},
		{Send: `{"action":"workers","n":"1"}`, Expect: `data-testid="workers" data-value="1"`},
	},
}

// Apply carries out a decoded command. A command the state does not allow
// (an unknown App, a fourth one, a finalizer that is not there, a step with
// the controller off, a write while the API server is behind) is refused
// and changes nothing.
func (d *Demo) Apply(c demo.Command) error {
	d.acted.Bump()
	w := d.own()
	var err error
	switch c.Action {
	case "create":
		err = w.CreateApp(c.Name)
	case "edit":
		err = w.EditApp(c.Name)
	case "delete":
		err = w.DeleteApp(c.Name)
	case "remove-finalizer":
		err = w.RemoveFinalizer(c.Name)
	case "dependency":
		err = w.SetDependency(c.On)
	case "not-ready":
		err = w.SetNotReady(notReadyOf(c.Name))
	case "queue-kind":
		err = w.SetQueueKind(workqueue.Kind(c.Name))
	case "secret-watch":
		err = w.SetSecretWatch(c.On)
	case "child-edit":
		err = w.EditChild(c.Name)
	case "status-write":
		err = w.SetStatusWrite(engine.StatusWrite(c.Name))
	case "predicate":
		err = w.SetPredicate(c.On)
	case "workers":
		err = w.SetWorkers(c.N)
	case "status-from", "child-write", "after-create", "periodic":
		s := w.Settings()
		switch c.Action {
		case "status-from":
			s.StatusFrom = engine.StatusFrom(c.Name)
		case "child-write":
			s.ChildWrite = engine.ChildWrite(c.Name)
		case "after-create":
			s.AfterCreate = engine.AfterCreate(c.Name)
		case "periodic":
			s.Periodic = engine.Periodic(c.Name)
		}
		err = w.SetSettings(s)
	case "trap":
		err = w.SetTrap(engine.Trap(c.Name), c.On)
	case "controller":
		w.SetController(c.On)
	case "step":
		_, err = d.Step()
	case "reset":
		d.Reset()
	default:
		return fmt.Errorf("pipeline: action %q is not one of the demo's", c.Action)
	}
	d.follow()
	if err != nil {
		if c.Action == "child-edit" && errors.Is(err, apiserver.ErrNotFound) && d.hasApp(c.Name) {
			// The App is there; its child is not (yet): not the App's
			// absence the shared sentence would claim.
			return demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.nochild", c.Name)
		}
		return refusal(err, c.Name)
	}
	return nil
}

// notReadyOf is the engine's NotReady for a wire value of not-ready.
func notReadyOf(v string) engine.NotReady {
	switch v {
	case "error":
		return engine.NotReadyError
	case string(engine.NotReadyRequeueTrue):
		return engine.NotReadyRequeueTrue
	}
	return engine.NotReadyRequeueAfter
}

// hasApp reports whether the App name is in the API server.
func (d *Demo) hasApp(name string) bool {
	var objs [engine.PeekSize]apiserver.Object
	for _, o := range d.World().AppendPeekObjects(objs[:0]) {
		if o.Kind == apiserver.KindApp && o.Name == name {
			return true
		}
	}
	return false
}

// refusal translates an engine error into the visitor's sentence. The
// engine changes nothing when it refuses, so neither does the demo.
func refusal(err error, name string) error {
	switch {
	case errors.Is(err, engine.ErrUnknownApp):
		return demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.app", demo.Clip(name))
	case errors.Is(err, apiserver.ErrNotFound):
		return demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.notfound", name)
	case errors.Is(err, apiserver.ErrAlreadyExists):
		return demo.RefuseIn(words, demo.ReasonOutOfRange, "err.exists", name)
	case errors.Is(err, engine.ErrNoFinalizer):
		return demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.nofinalizer", name)
	case errors.Is(err, engine.ErrTooManyRequests):
		return demo.RefuseIn(words, demo.ReasonRate, "err.busy")
	case errors.Is(err, engine.ErrControllerOff):
		return demo.RefuseIn(words, demo.ReasonOutOfRange, "err.off")
	}
	return fmt.Errorf("pipeline: %w", err)
}

var _ demo.Instance = (*Demo)(nil)
