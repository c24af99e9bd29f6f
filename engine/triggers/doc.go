// Package triggers is the engine of chapter 000 ③'s demo: edge-triggered
// against level-triggered, side by side.
//
// Two clusters receive the same visitor changes (kill pod-N, change
// desired). Each emits an event for everything that happens to it (a pod
// created, Running, died, deleted; desired changed) down its own stream to
// its own controller:
//
//   - Level: chapter 000's reconcile.Controller over a reconcile.Cluster,
//     used as they are. It reconciles when events are delivered to it (all
//     events due at one instant are answered by one recount, as a workqueue
//     collapses one key) and on its resync, every multiple of Resync, when a
//     recount would change something. Each time it recounts the world, which
//     is why a lost event does not matter to it.
//   - Edge: EdgeController, the naive twin the chapter warns about, over this
//     package's Cluster (same names, same phases). It acts only on events
//     delivered to it: "pod died" → delete that pod and create one; "desired
//     old → new" → create new-old, or delete old-new of the pods it knows of
//     (last in name order). It never lists the cluster: it knows only the
//     pods it created and those named by created/running events it heard,
//     and forgets those named by died/deleted events and those it deletes.
//
// A stream decides an event's fate when the event is emitted, in this order:
// dropped while the controllers are restarting (LossDown) or the drop switch
// is on (LossBlip) or MaxInFlight events are already in flight
// (LossOverflow); otherwise, if a swap is armed or its first event waits,
// swapped (the first waits, however long, for the second; the second is
// delivered DeliveryDelay after its emission and the first SwapGap after
// that); otherwise, if a duplicate is armed, duplicated (a second copy
// DuplicateGap after the first); otherwise delivered, DeliveryDelay after its
// emission. Events keep their order except as their fates say: no event
// overtakes a swapped pair (one emitted just after waits behind it, and so
// does the next pair), while a duplicate's second copy, a retransmission,
// may be overtaken. An armed duplicate or swap waits for the next event that is not
// dropped. A restart drops (LossRestart) every event none of whose copies had
// arrived: the only fate that changes after emission.
//
// Step (the visitor's single step, time does not move): the level
// controller runs exactly one Reconcile now, whether or not anything
// differs, and its events in flight keep flying; the edge controller handles
// exactly its next event in flight, delivered now, or nothing when none is
// in flight. A dropped event is never in flight, so no number of steps (nor
// of resyncs: the edge side has none) repairs it. While the controllers are
// restarting, Step does nothing.
//
// Restart: both controllers go down for RestartTime. Events in flight are
// lost and events emitted meanwhile are dropped, on both streams. The edge
// controller also forgets every pod it knew of: it comes back knowing
// nothing and hearing only new events, so what happened before or during the
// restart is never repaired. The level controller comes back and recounts
// (one Reconcile): it lost nothing that matters.
//
// Kill: the name must be alive (Pending or Running) on at least one side;
// it is killed on each side where it is alive. Names are per side (each
// cluster numbers its own pods), so once the sides diverge a name may be
// alive on one side only, and the kill lands there alone.
//
// Lesson (Mattered) is the row of the chapter's table 対照と実例 the latest
// happening made matter, for the page to highlight: RowWrites
// (人が書くもの) when desired changes; RowRecovery (障害回復) when a pod is
// killed and when the controllers restart or come back; RowMissed
// (取りこぼし) when an event the edge controller acts on (died, desired) is
// dropped on the edge stream; RowTrigger (反応の起点) when the edge
// controller acts on the second copy of a duplicated event or on a swapped
// one. The latest wins.
//
// Invariants:
//
//   - Pure and deterministic: no goroutines, no clock, no randomness, no
//     I/O. Virtual time moves only in Advance; pause and speed are the
//     caller's. The same operations and steps give the same states.
//   - Quiet costs nothing: NextDue reports a pod start, an event in flight,
//     the controllers coming back, or a level resync that would change
//     something; a converged, quiet world reports nothing. A held swap event
//     sets no timer.
//   - The edge side acts only on delivered events and never deletes a pod it
//     has not heard of (by an event or by creating it). The level side acts
//     only through reconcile.Controller.Reconcile.
//   - Bounded: desired in [0, MaxDesired]; the level cluster never holds more
//     than MaxDesired pods; the edge cluster refuses creates beyond MaxPods
//     (ActCreateRefused, as a ResourceQuota would); the edge controller
//     remembers at most MaxKnown names; each stream keeps the last
//     StreamShown events plus at most MaxInFlight in flight; each side's log
//     keeps LogSize entries. Pod names are pod-N, unique per side and never
//     reused.
//   - Every visitor operation validates its input and changes nothing when
//     it returns an error. Restore checks every field and bound of a
//     snapshot and refuses, with an error and no world, any snapshot this
//     package could not have written; Snapshot → Restore → Snapshot is the
//     identity.
package triggers
