// Package demos is the registry: the only place that lists the demos. The
// server serves what All returns; adding a demo is its package and one line
// here (and its import).
package demos

import (
	"github.com/reconcile-demo/reconcile-demo/demos/controlplane"
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/operator"
	"github.com/reconcile-demo/reconcile-demo/demos/pipeline"
	"github.com/reconcile-demo/reconcile-demo/demos/reconcile"
	"github.com/reconcile-demo/reconcile-demo/demos/triggers"
)

// All returns every demo, in the order of the chapters' index.
func All() []demo.Kind {
	return []demo.Kind{
		reconcile.Kind,
		triggers.Kind,
		pipeline.Kind,
		operator.Kind,
		controlplane.Kind,
	}
}
