package pipeline

import (
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// eventText says one of the engine's structured events in l. Write verbs,
// watch types, kinds, keys and API reasons stay as Kubernetes spells them
// (update-status, MODIFIED, Conflict), as a reader will meet them in logs.
func eventText(l ui.Lang, e engine.Event) string {
	switch e.Kind {
	case engine.EventWrite:
		return F(l, "pp.log.write", actorText(l, e), e.Verb, e.Res, e.Name, outcomeText(l, e))
	case engine.EventWatch:
		return F(l, "pp.log.watch", e.Verb, e.Res, e.Name, e.RV)
	case engine.EventEnqueue:
		s := F(l, "pp.log.enqueue."+e.Outcome, e.Key, F(l, "pp.src."+e.Verb, e.Res, e.Name))
		if e.Priority < 0 && e.Outcome != "filtered" {
			s += T(l, "pp.log.enqueue.low")
		}
		if e.Delay > 0 {
			s += F(l, "pp.log.enqueue.ended", seconds(e.Delay))
		}
		return s
	case engine.EventReady:
		return F(l, "pp.log.ready", e.Key)
	case engine.EventGet:
		return F(l, "pp.log.get", e.Worker, e.Key)
	case engine.EventReconcile:
		return F(l, "pp.log.reconcile", e.Worker, e.Key, T(l, "pp.verb."+e.Verb), resultText(l, e))
	case engine.EventRequeue:
		if e.Outcome == "ready" { // already queued again: the priority queue needs no wait
			return F(l, "pp.log.requeue.ready", e.Key, T(l, "pp.requeue."+e.Verb))
		}
		if e.Verb == string(engine.RequeueBackoff) {
			return F(l, "pp.log.requeue.backoff", e.Key, seconds(e.Delay), e.N)
		}
		return F(l, "pp.log.requeue.after", e.Key, seconds(e.Delay))
	case engine.EventDone:
		if e.Outcome == "ready" {
			return F(l, "pp.log.done.ready", e.Worker, e.Key)
		}
		return F(l, "pp.log.done", e.Worker, e.Key)
	case engine.EventExternal:
		return F(l, "pp.log.external", e.Worker, T(l, "pp.ext."+e.Verb), e.Name, T(l, "pp.ext.out."+e.Outcome))
	case engine.EventResync:
		return T(l, "pp.log.resync."+e.Verb)
	case engine.EventController:
		s := T(l, "pp.log.controller."+e.Verb)
		if e.N > 0 {
			s += F(l, "pp.log.abandoned", e.N)
		}
		return s
	case engine.EventSettings:
		return F(l, "pp.log.settings", T(l, "pp.setting."+e.Verb))
	case engine.EventReset:
		return T(l, "log.reset")
	case engine.EventRestored:
		return T(l, "log.restored")
	}
	return e.Kind
}
