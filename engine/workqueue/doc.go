// Package workqueue is the work queue every controller-runtime controller
// feeds its workers from, on a virtual clock, so that chapters 001 and 003
// can show it working one key at a time. It holds two queues behind one
// type:
//
//   - NewPriority: controller-runtime's priorityqueue.PriorityQueue
//     (pkg/controller/priorityqueue/priorityqueue.go), the default queue of
//     every controller since v0.23 (UsePriorityQueue defaults to true), so
//     the queue of chapter 003's v0.24.
//   - New: client-go's rate-limiting, delaying queue (util/workqueue), the
//     default up to v0.22 and what UsePriorityQueue=false still gives.
//
// A key is a string ("namespace/name"): what reconcile receives is never the
// object nor what happened to it, only which object to look at again.
//
// # The rules both queues keep
//
//   - Stingy: a key added any number of times before it is handed out is
//     handed out once (Add while ready collapses).
//   - Never processed twice at once: a key added while it is being processed
//     (between Get and Done) is marked dirty and handed out again only after
//     Done. So a key is never ready and processing at the same time, and two
//     workers never hold the same key.
//   - Delaying: AddAfter puts a key in a waiting heap ordered by ready time;
//     adding a key that already waits only ever moves its ready time
//     earlier. d <= 0 adds it now.
//   - Rate limited: AddRateLimited counts a failure for the key and waits
//     its backoff, 5 ms·2^failures capped at 1000 s
//     (ItemExponentialFailureRateLimiter). Forget clears its failures, and
//     only Forget does: a key that succeeds must be Forgotten, as
//     controller-runtime does on success and on RequeueAfter.
//
// # The classic queue (client-go: queue.go, delaying_queue.go,
// rate_limiting_queue.go, default_rate_limiters.go)
//
//   - Fair: keys are handed out in the order they became ready; a dirty key
//     goes last at Done.
//   - A waiting entry is independent of the ready queue: a key that is added
//     while it also waits stays in the heap, and its later ready time adds it
//     again (a no-op if it is still dirty). Keys whose time comes within one
//     Advance are handed out in the order of their ready times (ties: first
//     added, first out).
//   - The limiter is DefaultControllerRateLimiter: the max of the per-key
//     exponential and one token bucket shared by every key (10 per second,
//     burst 100, reserve semantics: when the tokens run out the wait grows by
//     100 ms per call).
//
// # The priority queue (controller-runtime: priorityqueue.go)
//
//   - One item per queued key: it is ready (dirty) or it waits, never both.
//     An Add without a delay of a waiting key makes it ready now and ends its
//     wait: the key does not come back when the wait would have ended. An
//     AddAfter or AddRateLimited of a key that is already dirty leaves it
//     dirty (AddRateLimited still counts the failure).
//   - Ready keys go out by priority (higher first), then in order: the
//     order of the add that queued the key, of the moment its wait ended, or
//     of the add that raised its priority. A dirty key keeps its place while
//     it is processed, and Done puts it there.
//   - A queued key's priority only rises; a rise puts it last among the keys
//     of its new priority. AddLow adds at LowPriority (-100), as
//     controller-runtime's handlers do for the informer's initial list and
//     its resyncs; on the classic queue it is Add. GetWithPriority tells the
//     priority a key was handed out at, for the controller to requeue it at.
//   - Keys whose wait ends within one Advance become ready in the order of
//     their ready times, ties by priority, then order.
//   - The limiter is the per-key exponential alone: no bucket, so any number
//     of failing keys each wait only their own backoff.
//
// What differs from the originals, because this queue lives in a pure,
// deterministic simulation:
//
//   - No goroutines, no clock: virtual time passes only through Advance, and
//     NextReady says how long until the next waiting key is ready, so the
//     caller can sleep exactly that long, or not at all.
//   - Get never blocks: it reports false when no key is ready. There is no
//     ShutDown; a controller that stops simply drops its queue.
//   - Done of a key that is not being processed does nothing (client-go would
//     queue a second copy of a dirty key).
//   - The token bucket's debt is bounded by MaxDelay (client-go's has no
//     floor; it takes over 10,000 failures at one instant to reach it), and a
//     key's failure count stops at MaxRequeues (31 years of 1000 s waits).
//   - Priorities are clamped to ±MaxPriority (controller-runtime takes any
//     int). Len counts the keys Get would hand out; controller-runtime's
//     priority queue counts a dirty key that is still processing as well.
//
// # Invariants (held by the tests, FuzzQueue, FuzzPriorityQueue, FuzzRestore)
//
//   - Every key in the ready queue is dirty and not processing, once; every
//     dirty key is ready or processing.
//   - Each key waits at most once; a waiting key's ready time is in the
//     future; NextReady is the earliest of them.
//   - Priority queue: no key is both dirty and waiting; the ready queue is
//     sorted by priority, then order; orders are unique; no bucket.
//   - Classic queue: the bucket's credit stays within [-MaxDelay, full].
//   - A snapshot restores to a queue that goes on exactly as the original,
//     and Restore accepts only what Snapshot writes: one encoding per state.
//     A snapshot without "priority" is a classic queue's (the only format
//     written before the priority queue).
//
// Beside the fixed API (New, Add, Len, Get, Done, AddAfter, AddRateLimited,
// Forget, NumRequeues, Advance, NextReady, NewPriority, AddLow) the queue
// offers controller-runtime's AddWithOpts and GetWithPriority, read-only
// views for the page (Keys, State, Ready, Waiting, Depth, Retries, Adds,
// BucketTokens, Limiter, NextDelay, Kind) and Snapshot/Restore.
package workqueue
