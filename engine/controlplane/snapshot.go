package controlplane

// maxSnapshotNow bounds a snapshot's virtual clock in milliseconds: about 31
// years, which the clock never passes (maxClock).
const maxSnapshotNow = int64(1e12)
