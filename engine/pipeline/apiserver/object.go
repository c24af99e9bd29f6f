package apiserver

import (
	"slices"
	"time"
)

// The kinds the store holds.
const (
	KindApp       = "App"       // the lab's custom resource, group demo.example
	KindConfigMap = "ConfigMap" // the App's child
	KindSecret    = "Secret"    // the App's dependency
)

// Namespace is the only namespace of the demo.
const Namespace = "default"

// LogLevels is the App's schema for spec.logLevel (an enum in its CRD), in
// the order an edit cycles through them.
var LogLevels = [...]string{"info", "debug", "warn", "error"}

// Timestamp is an optional point in virtual time (a metav1.Time that may be
// nil): Set is false for "not set".
type Timestamp struct {
	Set bool
	At  time.Duration
}

// Condition is one entry of status.conditions, as the Kubernetes API
// conventions define it. LastTransitionTime moves only when Status does.
type Condition struct {
	Type               string // "Ready"
	Status             string // "True", "False" or "Unknown"
	Reason             string // CamelCase, e.g. "Reconciled"
	LastTransitionTime time.Duration
}

// AppSpec is what a person declares: the log level the App's ConfigMap must
// hold.
type AppSpec struct {
	LogLevel string
}

// AppStatus is what the controller observed and wrote back.
type AppStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64
	Conditions         []Condition
	// LastReconcileTime, when a controller writes it, makes every status
	// write a real change: the usual culprit of a runaway reconcile.
	LastReconcileTime Timestamp
}

// Equal reports whether two statuses are the same (a write of one over the
// other would be a no-op).
func (s AppStatus) Equal(t AppStatus) bool {
	return s.ObservedGeneration == t.ObservedGeneration && s.LastReconcileTime == t.LastReconcileTime &&
		slices.Equal(s.Conditions, t.Conditions)
}

// ConfigData is a ConfigMap's data: {logLevel: …}.
type ConfigData struct {
	LogLevel string
}

// OwnerRef is a controller ownerReference; the zero value is none.
type OwnerRef struct {
	Kind string
	Name string
	UID  int64
}

// Object is one stored object of any kind; the fields a kind does not have
// stay zero (Spec and Status for App, Data for ConfigMap).
type Object struct {
	Kind string
	Name string
	// UID tells two objects of one name apart (a re-created App is another
	// object): here the resourceVersion of its creation.
	UID             int64
	ResourceVersion int64
	// Generation counts spec changes (App only; 0 for other kinds).
	Generation int64
	// DeletionTimestamp is set once deletion has begun on an object that
	// still has finalizers: kubectl shows it as Terminating.
	DeletionTimestamp Timestamp
	Finalizers        []string
	Owner             OwnerRef
	Spec              AppSpec
	Status            AppStatus
	Data              ConfigData
}

// Key returns the object's workqueue key: namespace/name.
func (o Object) Key() string { return Namespace + "/" + o.Name }

// Deleting reports whether deletion has begun (deletionTimestamp is set).
func (o Object) Deleting() bool { return o.DeletionTimestamp.Set }

// HasFinalizer reports whether f is among the object's finalizers.
func (o Object) HasFinalizer(f string) bool { return slices.Contains(o.Finalizers, f) }

// WithoutFinalizer returns a copy of o without f.
func (o Object) WithoutFinalizer(f string) Object {
	c := o.DeepCopy()
	c.Finalizers = slices.DeleteFunc(c.Finalizers, func(x string) bool { return x == f })
	if len(c.Finalizers) == 0 {
		c.Finalizers = nil
	}
	return c
}

// WithFinalizer returns a copy of o with f added (once).
func (o Object) WithFinalizer(f string) Object {
	c := o.DeepCopy()
	if !c.HasFinalizer(f) {
		c.Finalizers = append(c.Finalizers, f)
	}
	return c
}

// DeepCopy returns a copy that shares no memory with o, so that what the
// store, the cache and a reconcile each hold can never change under another.
func (o Object) DeepCopy() Object {
	c := o
	c.Finalizers = slices.Clone(o.Finalizers)
	c.Status.Conditions = slices.Clone(o.Status.Conditions)
	return c
}

// ReadyCondition returns the object's Ready condition, and false if it has
// none.
func (o Object) ReadyCondition() (Condition, bool) {
	for _, c := range o.Status.Conditions {
		if c.Type == "Ready" {
			return c, true
		}
	}
	return Condition{}, false
}

// sameContent reports whether b differs from a only in what a write does not
// decide: resourceVersion and generation.
func sameContent(a, b Object) bool {
	return a.Spec == b.Spec && a.Data == b.Data && a.Owner == b.Owner &&
		slices.Equal(a.Finalizers, b.Finalizers) && a.DeletionTimestamp == b.DeletionTimestamp &&
		a.Status.Equal(b.Status)
}
