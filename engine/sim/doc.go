// Package sim is what every demo's timing shares: the virtual clock with its
// pause and speed, the timeline that schedules starts and the controller's
// cadence, the controller switch, the event log, the history behind the
// charts and the snapshot envelope. Each demo (package demos/<kind>) runs its
// engine over these.
//
// Invariants:
//
//   - Pure and deterministic: no goroutines, no time.Now, no randomness, no
//     I/O. Time moves only when the caller says so (Advance), so the same
//     commands and the same steps always give the same states.
//   - Pause stops virtual time; speed scales it (0.5×, 1×, 2×). One Advance
//     covers at most a day of the caller's time, and the clock never passes
//     MaxClock, so every snapshot stays restorable.
//   - A timeline's ticks fall on multiples of its cadence; a tick that would
//     change nothing is skipped, so NextDue can report "nothing pending" and
//     a converged demo costs no CPU.
//   - Every bounded thing is bounded: the log (Options.LogSize), the history
//     (the window, and at most 512 samples).
package sim
