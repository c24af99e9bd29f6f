package sim

import "time"

// Event is one line of a demo's log, in structured form so the page can say
// it in any language. Which fields are set depends on Kind.
type Event struct {
	Seq  int           // increases by one per event, for stable keys
	At   time.Duration // virtual time
	Kind string        // see the EventKind constants
	Name string        // the pod, member or backup concerned
	N, M int           // counts: desired and observed, old and new, …
}

// Event kinds. Both demos share the first group.
const (
	EventWatchStart = "watch-start" // controller on: 監視を開始しました
	EventWatchStop  = "watch-stop"  // controller off
	EventReset      = "reset"       // the demo was reset
	EventRestored   = "restored"    // the demo was rebuilt from a snapshot

	// reconcile demo
	EventDesired   = "desired"   // desired changed from M to N
	EventKill      = "kill"      // Name was killed (Failed)
	EventCreate    = "create"    // the controller created Name
	EventDelete    = "delete"    // the controller deleted Name
	EventRunning   = "running"   // kubelet started Name
	EventConverged = "converged" // desired N pods all Running
	EventNoop      = "noop"      // a step found no difference (desired N, observed M)

	// operator demo
	EventSpecMembers  = "spec-members"   // Spec.Members changed from M to N
	EventBackup       = "backup"         // backup Name became present (N=1) or missing (N=0)
	EventKillMember   = "kill-member"    // member Name was killed
	EventMemberReady  = "member-ready"   // member Name became ready
	EventOpRestore    = "op-restore"     // restored from Name
	EventOpCreate     = "op-create"      // created member Name
	EventOpElect      = "op-elect"       // elected Name
	EventOpLeaderLost = "op-leader-lost" // leader Name was gone
	EventOpNoBackup   = "op-no-backup"   // backup Name not found: Degraded
	EventOpWait       = "op-wait"        // waiting for N/M members to be ready
	EventOpNoop       = "op-noop"        // no difference left
	EventOpReady      = "op-ready"       // phase became Ready
)

// eventLog keeps the newest events, at most size of them.
type eventLog struct {
	events []Event
	seq    int
	size   int
}

func (l *eventLog) add(e Event) {
	l.seq++
	e.Seq = l.seq
	if len(l.events) == l.size {
		copy(l.events, l.events[1:])
		l.events = l.events[:len(l.events)-1]
	}
	l.events = append(l.events, e)
}

// list returns a copy of the events, oldest first.
func (l *eventLog) list() []Event { return append([]Event(nil), l.events...) }
