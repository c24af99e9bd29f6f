package rooms

import (
	"slices"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/reconcile-demo/reconcile-demo/sockets"
)

// room is one room as this replica serves it: the fan-out of its frames
// to the follower sockets here, whether the frames come from its owner's
// session on this replica or, over the bus, from another replica. Local
// and remote followers take the same path: each language they read is a
// feed that joins the owner (asks for the whole demo), then applies the
// owner's numbered frames in order and puts them in the followers'
// mailboxes. Run is the only code that touches a room.
type room struct {
	code string
	kind string // the demo it shows; "" while unknown (a code held for its owner's return)

	// Its owner's tenure: a claim raises term; epoch names the owner on
	// the wire. A frame, announce or join of an older tenure is stale.
	term   uint64
	epoch  string
	seal   seal // of the owner secret
	sealed bool // the seal is known

	owner  *owner    // the owner's session when it is on this replica, or nil
	heard  time.Time // when the owner elsewhere was last heard (announce, frame or join)
	lostAt time.Time // when the owner was judged gone, or the code held unknown; zero while heard

	followers map[*sockets.Conn]follower
	feeds     map[string]*feed // by language

	// With the owner here: other replicas' followers, by replica, and the
	// total last told the owner.
	remote map[string]remoteCount
	told   int
	// With the owner elsewhere: the count of followers here last
	// published, and when.
	counted   int
	countedAt time.Time
}

// owner is a room's owner on this replica.
type owner struct {
	o         Owner
	lease     *Lease
	addr      string
	announced time.Time            // last announce on the bus
	subs      []*nats.Subscription // its joins and counts on the bus
}

// follower is a socket following a room here.
type follower struct {
	lang string
	kind string // the demo its page showed, for the ended banner of an unknown room
}

// remoteCount is how many followers another replica has, and when it last
// said so; it counts until it goes stale.
type remoteCount struct {
	n    int
	seen time.Time
}

// record is what a replica knows of a room wherever its owner is: heard
// in its owner's announces (or a replica's answer to who), or its own.
// Claims are checked against its seal, and followers of a code it holds
// are admitted while the owner is away.
type record struct {
	kind    string
	seal    seal
	sealed  bool
	term    uint64
	epoch   string
	replica string // the owner's
	heard   time.Time
	ended   bool
}

// frame is one of the owner's frames in a language: the fragments that
// changed since frame seq-1 of the same tenure.
type frame struct {
	term  uint64
	epoch string
	seq   uint64
	frags []sockets.Frag
}

// maxPending bounds the frames a feed keeps while it joins; past it, the
// replay after the join finds a gap and joins again.
const maxPending = 64

// maxFrags bounds the fragments a feed keeps: a demo has a few dozen.
const maxFrags = 64

// feed is one language of a room as this replica's followers read it.
// Invariant: while joined, order and html are the owner's demo exactly as
// of frame seq of tenure (term, epoch).
type feed struct {
	lang    string
	term    uint64
	epoch   string // "" until the first join: a later join is a re-sync
	seq     uint64
	joined  bool
	joining uint64    // the join in flight, 0 if none
	retryAt time.Time // when a failed join may be asked again
	order   []string
	html    map[string][]byte
	pending []frame // frames that came while joining
	sub     *nats.Subscription
}

// newer reports whether tenure (t1, e1) comes after (t2, e2): a higher
// term, or the same term (two claims that raced) and the greater epoch.
func newer(t1 uint64, e1 string, t2 uint64, e2 string) bool {
	if t1 != t2 {
		return t1 > t2
	}
	return e1 > e2
}

// replace makes the feed the whole demo w.
func (f *feed) replace(w Whole) {
	f.term, f.epoch, f.seq, f.joined = w.term, w.epoch, w.Seq, true
	f.order, f.html = f.order[:0], map[string][]byte{}
	f.store(w.Frags)
}

// store keeps the newest version of each fragment.
func (f *feed) store(frags []sockets.Frag) {
	for _, fr := range frags {
		if _, ok := f.html[fr.ID]; !ok {
			if len(f.order) >= maxFrags {
				continue
			}
			f.order = append(f.order, fr.ID)
		}
		f.html[fr.ID] = fr.HTML
	}
}

// all is every fragment, in page order.
func (f *feed) all() []sockets.Frag {
	out := make([]sockets.Frag, 0, len(f.order))
	for _, id := range f.order {
		out = append(out, sockets.Frag{ID: id, HTML: f.html[id]})
	}
	return out
}

// takePending returns the frames kept while joining, oldest first.
func (f *feed) takePending() []frame {
	p := f.pending
	f.pending = nil
	slices.SortStableFunc(p, func(a, b frame) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	return p
}

// keep holds a frame that came while joining.
func (f *feed) keep(fr frame) {
	if len(f.pending) < maxPending {
		f.pending = append(f.pending, fr)
	}
}

// total counts the room's followers, here and on other replicas.
func (rm *room) total() int {
	n := len(rm.followers)
	for _, c := range rm.remote {
		n += c.n
	}
	return n
}

// record is what this replica says of its room when asked.
func (rm *room) record(replica string) *record {
	return &record{kind: rm.kind, seal: rm.seal, sealed: rm.sealed, term: rm.term, epoch: rm.epoch, replica: replica}
}
