// Package sim is the timing layer of the demos: it runs the chapters'
// engines (package reconcile, package operator) on a virtual clock, as a
// cluster would run them over time.
//
// Invariants:
//
//   - Pure and deterministic: no goroutines, no time.Now, no randomness, no
//     I/O. Time moves only when the caller says so (Advance), so the same
//     commands and the same steps always give the same states.
//   - A controller that is on reconciles on the cadence (every Options.Cadence
//     of virtual time, on multiples of it); one that is off never does. A
//     single Step runs exactly one reconcile whatever the controller's state.
//   - Pods and members start like kubelet starts them: Options.StartDelay of
//     virtual time after they were created, whether the controller is on or
//     off.
//   - A cadence tick that would change nothing is skipped rather than logged,
//     so NextDue can report "nothing pending" and a converged demo costs no
//     CPU. A Step is always reported.
//   - Pause stops virtual time; speed scales it (0.5×, 1×, 2×).
//   - Every bounded thing is bounded: the log, the history, the pods.
package sim
