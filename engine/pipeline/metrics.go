package pipeline

// Counters are the demo's cumulative counts. Unlike a real process's
// Prometheus counters they survive controller restarts, so that a fix that
// redeploys the controller shows as a curve that stops climbing rather than
// a drop to zero. Each stops at MaxCounter.
type Counters struct {
	// controller_runtime_reconcile_total{result}
	ReconcileSuccess      int64 `json:"success,omitempty"`
	ReconcileError        int64 `json:"error,omitempty"`
	ReconcileRequeue      int64 `json:"requeue,omitempty"`
	ReconcileRequeueAfter int64 `json:"requeueAfter,omitempty"`
	// Writes changed an object (a new resourceVersion); NoopWrites changed
	// nothing; the rest failed with that reason.
	Writes          int64 `json:"writes,omitempty"`
	NoopWrites      int64 `json:"noopWrites,omitempty"`
	Conflicts       int64 `json:"conflicts,omitempty"`
	AlreadyExists   int64 `json:"alreadyExists,omitempty"`
	NotFound        int64 `json:"notFound,omitempty"`
	TooManyRequests int64 `json:"tooManyRequests,omitempty"`
	// ExternalCalls counts calls to the external API.
	ExternalCalls int64 `json:"externalCalls,omitempty"`
	// WatchEvents counts events delivered to the informer.
	WatchEvents int64 `json:"watchEvents,omitempty"`
	// QueueRetries and QueueAdds are the workqueue counters of the
	// controller processes that stopped; Metrics adds the running one's.
	QueueRetries int64 `json:"queueRetries,omitempty"`
	QueueAdds    int64 `json:"queueAdds,omitempty"`
}

func inc(n *int64) { *n = min(*n+1, MaxCounter) }

// Metrics is the metrics strip, under controller-runtime's and client-go's
// names.
type Metrics struct {
	Counters
	// WorkqueueDepth is workqueue_depth: keys waiting for a worker,
	// including those added again while processing.
	WorkqueueDepth int
	// WorkqueueRetries is workqueue_retries_total: every AddAfter and
	// AddRateLimited.
	WorkqueueRetries int64
	// WorkqueueAdds is workqueue_adds_total.
	WorkqueueAdds int64
	// ActiveWorkers is controller_runtime_active_workers.
	ActiveWorkers int
	// Workers is controller_runtime_max_concurrent_reconciles.
	Workers int
}

// Metrics returns the metrics now.
func (w *World) Metrics() Metrics {
	m := Metrics{Counters: w.counters, WorkqueueRetries: w.counters.QueueRetries, WorkqueueAdds: w.counters.QueueAdds,
		Workers: w.settings.Workers}
	if c := w.ctrl; c != nil {
		m.WorkqueueDepth = c.queue.Depth()
		m.WorkqueueRetries = min(m.WorkqueueRetries+c.queue.Retries(), MaxCounter)
		m.WorkqueueAdds = min(m.WorkqueueAdds+c.queue.Adds(), MaxCounter)
		m.ActiveWorkers = c.busy()
	}
	return m
}

// Reconciles returns the total of controller_runtime_reconcile_total.
func (c Counters) Reconciles() int64 {
	return c.ReconcileSuccess + c.ReconcileError + c.ReconcileRequeue + c.ReconcileRequeueAfter
}
