// Package reconcile is chapter 000's ReplicaSet-like controller, written as
// the chapter writes it, so that a reader can hold this code beside the text.
//
// The Controller declares how many pods should exist (desired state); the
// Cluster holds the pods that do exist (observed state). Reconcile compares
// the two and closes the gap. Its invariants:
//
//   - Declarative: callers say how many pods there should be (New,
//     SetDesired), never which pod to create or delete. Negative counts are 0.
//   - Level-triggered: Reconcile recounts the cluster on every call and reacts
//     to what is, not to what happened. Any number of failures between two
//     calls are all repaired by the next one.
//   - Idempotent: once the cluster matches the desired count, Reconcile does
//     nothing, however often it is called.
//   - Deterministic: pods are named pod-1, pod-2, … in creation order and a
//     name is never reused; Failed pods are deleted first, then the shortfall
//     is created or the excess deleted from the end of name order.
//
// Creation, scaling and self-healing are one code path: a Failed pod does not
// count as alive, so the next Reconcile recreates it without any code written
// for failures.
//
// The package has no goroutines, no clock and no I/O. Time enters only
// through the caller (see package sim).
package reconcile
