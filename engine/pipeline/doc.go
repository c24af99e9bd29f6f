// Package pipeline is the engine of the pipeline demo (chapters 001 and
// 003): an API server, an informer, a workqueue and a reconciler, on a
// virtual clock.
//
//	API server ──watch──▶ informer (cache) ──handlers──▶ workqueue ──▶ workers (reconcile)
//	     ▲                                                                 │
//	     └──────────────────────────── writes ─────────────────────────────┘
//
// # The lab's world
//
// The custom resource is App (group demo.example), named app-1, app-2 and
// app-3 in namespace default; its workqueue key is "default/app-1". An App's
// spec.logLevel is what its child ConfigMap app-1-config must hold (desired
// state); the child carries an ownerReference to the App, so the garbage
// collector removes it once the App is gone. Every App needs the Secret
// app-db (the database credentials) before its child can be made: the
// dependency that may be missing. Each App also has one record in an
// external system the cluster does not know (a cloud database account,
// say); the finalizer demo.example/cleanup guarantees the record is deleted
// before the App disappears. Names are reused: an App deleted and created
// again is a new object (a new uid), as on a real cluster.
//
// # The controller
//
// builder.For(&App{}) with an optional GenerationChangedPredicate,
// builder.Owns(&ConfigMap{}): an event on a child enqueues its owner, and
// optionally (Settings.SecretWatch) builder.Watches(&Secret{},
// EnqueueRequestsFromMapFunc(...)): an event on the Secret enqueues every
// App that uses it. Without that watch the Secret is read from the cache
// but watched by no handler. Watch events reach the cache WatchDelay after
// the write (the cache is updated before the handlers run); the informer
// resyncs every ResyncPeriod (10 h, controller-runtime's default). One or two
// workers (MaxConcurrentReconciles) take keys from a workqueue.Queue on the
// same clock: controller-runtime v0.24's default, the priority queue
// (Settings.QueueKind), or client-go's classic queue. On the priority queue
// the handlers add the initial list's and the resyncs' keys at low priority,
// so that real events go first, and a key is requeued at the priority it
// was handed out at.
//
// A reconcile takes virtual time on its worker, in chapter 001's four
// beats, each at a fixed moment:
//
//	t0                   observe: Get the App, its child and the Secret from the cache
//	t0+ActDelay          act (compare, then close the gap), writing to the API server:
//	                       deleting → external delete, remove the finalizer (cleanup)
//	                       else     → add the finalizer if missing; Secret missing → go to report;
//	                                  ensure the external record; ensure the child
//	+ReportDelay         report: write status, return the Result
//
// A write that fails returns at once (error → backoff). The traps come out of
// these moments and nothing else: a status write carrying the resourceVersion
// of a copy read from a cache that has not yet received the reconcile's own
// last status write is a Conflict; a Get from the cache right after a Create
// misses it; a hung external call holds its worker. Their fixes remove the
// symptom through the same mechanism (read the latest from the API server, or
// apply server-side; trust the next reconcile; a second worker; …).
//
// The Result maps as controller-runtime's reconcileHandler does: error →
// AddRateLimited; RequeueAfter → Forget and AddAfter; Requeue: true →
// AddRateLimited, counted as a requeue; success → Forget; then Done. A
// missing Secret is returned as an error, as RequeueAfter 5 s or as Requeue:
// true (Settings.NotReady).
//
// Besides the App, a visitor may edit the child ConfigMap by hand
// (EditChild): the drift is a real write (a new resourceVersion), the Owns
// watch enqueues the owner, and its reconcile puts the data back. A write
// that changes nothing is a no-op at the API server: no new resourceVersion,
// no watch event. So the runaway reconcile needs a status field that changes
// on every write: lastReconcileTime (Settings.StatusWrite always).
//
// Settings are the controller's code and options: changing one while the
// controller runs redeploys it (stop, then start: the cache is listed
// afresh, the queue and every key's failures start empty, every App is
// reconciled at once under the new settings). Stopping the controller loses
// its cache, queue and reconciles in progress; starting it lists everything
// again. The truth is re-read, not remembered.
//
// # Invariants (held by the tests and the fuzzer)
//
//   - A key is never on two workers, and never both ready and processing;
//     the queue's processing keys are exactly the workers' keys. The queue
//     is of the kind the settings say; its priorities are 0 or LowPriority.
//   - resourceVersion strictly increases per object and never changes on a
//     write that changes nothing; generation changes with the spec, and once
//     when deletion begins (as kube-apiserver does), never otherwise.
//   - The cache plus the watch events on their way, replayed in order, is
//     exactly the API server: so the cache never holds a resourceVersion
//     newer than the store's.
//   - An App with finalizers is never removed; a ConfigMap never outlives
//     its owner.
//   - Bounded: at most MaxApps Apps, MaxInflight+1 watch events on their
//     way, MaxApps keys in the queue, EventLogSize events, MaxApps report
//     rows; counters stop at MaxCounter; one Advance covers at most
//     MaxAdvance; a runaway loop grows nothing but counters.
//   - Deterministic and pure: the same commands and time steps give the same
//     states; a snapshot restores to a world that goes on identically.
//   - NextDue is exact: advancing by it makes the next thing happen. A
//     running controller always has the periodic resync due (Quiet reports
//     whether that is all); a stopped one has nothing due.
//
// # Simplified, relative to a real cluster (one line each on the page)
//
//   - Watch delivery takes 300 ms and a reconcile's beats 200 ms each, far
//     longer than on a cluster, so that each stage can be seen.
//   - The garbage collector deletes an App's child the moment the App is
//     removed; the real one works from its own informers, a moment later.
//   - resourceVersion is a plain counter and uid is the resourceVersion of
//     the creation; one namespace.
//   - The periodic resync is exactly 10 h, without controller-runtime's
//     jitter; Step resyncs at once when nothing is ready and restarts the
//     10 h.
//   - Server-side apply has one field manager, so it never conflicts.
//   - The API server refuses writes (TooManyRequests) while 16 watch events
//     are on their way, a stand-in for API priority and fairness that keeps
//     memory bounded.
//   - Counters survive controller restarts (a real process's start again at
//     zero).
//   - Settings changes redeploy the controller at once; the slow external
//     API (TrapSlowObject) is among them so that its symptom shows at once.
//   - Reads happen all at the start of a reconcile (observe), except the
//     status fix's re-read and the read-back traps.
package pipeline
