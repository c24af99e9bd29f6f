// Package workqueue is client-go's util/workqueue (the rate-limiting,
// delaying work queue every controller-runtime controller feeds its workers
// from) on a virtual clock, so that chapters 001 and 003 can show it working
// one key at a time.
//
// A key is a string ("namespace/name"): what reconcile receives is never the
// object nor what happened to it, only which object to look at again.
//
// The guarantees are client-go's (util/workqueue/doc.go, queue.go):
//
//   - Fair: keys are handed out in the order they became ready.
//   - Stingy: a key added any number of times before it is handed out is
//     handed out once (Add while ready collapses).
//   - Never processed twice at once: a key added while it is being processed
//     (between Get and Done) is marked dirty and handed out again only after
//     Done. So a key is never ready and processing at the same time, and two
//     workers never hold the same key.
//   - Delaying (delaying_queue.go): AddAfter puts a key in a waiting heap
//     ordered by ready time; adding a key that already waits only ever moves
//     its ready time earlier. Keys whose time comes within one Advance are
//     handed out in the order of their ready times (ties: first added, first
//     out). A waiting entry is independent of the ready queue, as in
//     client-go: a key that is added while it also waits stays in the heap,
//     and its later ready time adds it again (a no-op if it is still dirty).
//   - Rate limited (rate_limiting_queue.go, default_rate_limiters.go): the
//     limiter is DefaultControllerRateLimiter, the max of a per-key
//     exponential backoff (5 ms·2^failures, capped at 1000 s) and one token
//     bucket shared by every key (10 per second, burst 100, reserve
//     semantics: when the tokens run out the wait grows by 100 ms per
//     call). AddRateLimited counts a failure for the key; Forget clears its
//     failures, and only Forget does: a key that succeeds must be Forgotten,
//     as controller-runtime does on success and on RequeueAfter.
//
// What differs from client-go, because this queue lives in a pure,
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
//
// Beside the fixed API (New, Add, Len, Get, Done, AddAfter, AddRateLimited,
// Forget, NumRequeues, Advance, NextReady) the queue offers read-only views
// for the page (Keys, Ready, Depth, Retries, Adds) and Snapshot/Restore.
package workqueue
