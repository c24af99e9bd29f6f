package rooms

import "github.com/reconcile-demo/reconcile-demo/sockets"

// msg is every message Run receives, and this file holds them all: from
// sessions (open, claim, publish, close), from follower sockets and pages
// (lookup, follow, unfollow, page), from the owners' answers (joined), and
// from the bus (frames, announces, counts, ends, joins and questions of
// other replicas, the connection's ups and downs).
type msg interface{ isMsg() }

// From sessions and their leases.
type (
	openReq struct {
		owner      Owner
		kind, addr string
		reply      chan openReply
	}
	openReply struct {
		lease *Lease
		err   error
	}
	claimReq struct {
		owner                    Owner
		kind, addr, code, secret string
		seal                     seal
		asked                    bool    // the bus was asked who knows the code
		heard                    *record // what it answered, if anyone did
	}
	published struct {
		lease *Lease
		lang  string
		seq   uint64
		frags []sockets.Frag
	}
	closeReq struct{ lease *Lease }
)

// From follower sockets and room pages.
type (
	lookupReq struct {
		code, addr string
		reply      chan lookupReply
	}
	lookupReply struct{ here, known, limited bool }
	missed      struct{ addr string }
	recordHeard struct {
		code string
		rec  *record
	}
	pageReq struct {
		code, lang string
		reply      chan Whole
		found      chan bool // true when the owner is here and will answer on reply
	}
	followReq struct {
		code, lang, kind string
		conn             *sockets.Conn
	}
	unfollowReq struct {
		code string
		conn *sockets.Conn
	}
)

// joined is the answer to a join: the owner's whole demo in a language, or
// why there is none.
type joined struct {
	code, lang string
	id         uint64 // the join it answers; a feed takes only its latest
	whole      Whole
	err        error
}

// From the bus.
type (
	busFrame struct {
		code, lang string
		frame      frame
	}
	announced struct {
		code string
		rec  *record
	}
	endHeard struct {
		code string
		term uint64
	}
	countHeard struct {
		code, replica string
		n             int
	}
	joinAsked struct {
		code, lang, replica string
		section             bool
		respond             func(Whole)
	}
	whoAsked struct {
		code    string
		respond func(*record)
	}
	busState     struct{ up bool }
	slowConsumer struct{ subject string }
)

func (openReq) isMsg()      {}
func (claimReq) isMsg()     {}
func (published) isMsg()    {}
func (closeReq) isMsg()     {}
func (lookupReq) isMsg()    {}
func (missed) isMsg()       {}
func (recordHeard) isMsg()  {}
func (pageReq) isMsg()      {}
func (followReq) isMsg()    {}
func (unfollowReq) isMsg()  {}
func (joined) isMsg()       {}
func (busFrame) isMsg()     {}
func (announced) isMsg()    {}
func (endHeard) isMsg()     {}
func (countHeard) isMsg()   {}
func (joinAsked) isMsg()    {}
func (whoAsked) isMsg()     {}
func (busState) isMsg()     {}
func (slowConsumer) isMsg() {}
