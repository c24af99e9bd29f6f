// Package apiserver is the API server of the pipeline demo: a store of
// versioned objects with the semantics a controller meets on a real cluster,
// and nothing more.
//
// Invariants (each one a rule of kube-apiserver the chapters lean on):
//
//   - resourceVersion is a single counter for the whole store (etcd's
//     revision). Every write that changes an object gives it the next value,
//     so an object's resourceVersion strictly increases; a write that changes
//     nothing (same spec, same status, same finalizers) is a no-op: no new
//     resourceVersion and no watch event. Chapter 001 proves idempotence by
//     exactly this: the child's resourceVersion does not move.
//   - generation (App only) starts at 1 and is bumped when the spec changes,
//     never by a status or metadata write; and once more when deletion
//     begins, as kube-apiserver's markAsDeleting does ("controllers of the
//     object that's being deleted shouldn't take any nontrivial actions,
//     hence its behaviour changes"), which is why GenerationChangedPredicate
//     does not hide a deletion.
//   - The status is a subresource: Update and Apply ignore it, UpdateStatus
//     and ApplyStatus write only it, and Create drops it.
//   - Optimistic concurrency: Update and UpdateStatus carry the
//     resourceVersion the writer read; if the object has changed since, the
//     write is a Conflict and changes nothing. Server-side Apply carries
//     none: it merges the fields it names and never conflicts here (one
//     field manager only).
//   - Create of a name that exists (even one being deleted) is AlreadyExists.
//   - Delete of an object with finalizers only sets deletionTimestamp (a
//     Modified event); the object disappears the moment its last finalizer
//     is removed. An object without finalizers disappears at once (a Deleted
//     event). No finalizer can be added once deletion has begun.
//   - Every change is queued as a watch event, in write order, for whoever
//     watches (TakeEvents); the store itself never delivers anything late.
//     The delay a watch adds belongs to the informer.
//
// Simplified: one namespace ("default"); uid is the resourceVersion at
// creation; times are virtual durations; the schema is the demo's (App with
// spec.logLevel, ConfigMap with data.logLevel, Secret with nothing); unknown
// fields of a kind are pruned as a structural schema would.
package apiserver
