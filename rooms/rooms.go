package rooms

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/reconcile-demo/reconcile-demo/sockets"
)

// Config configures the rooms of one replica. The zero value is usable:
// one process, rooms in memory.
type Config struct {
	// NATS joins the replicas' rooms; nil: rooms live on this process.
	// The caller dials and closes it; the rooms set its connection
	// handlers (disconnect, reconnect, errors).
	NATS *nats.Conn
	// Announce is how often an owner's replica announces each of its
	// rooms, and followers' replicas count theirs. An owner unheard for
	// three periods is gone. Defaults to 5 s.
	Announce time.Duration
	// Grace is how long followers wait for a gone owner (or a room not
	// known yet) to come back before they are told the room ended.
	// Defaults to 30 s.
	Grace time.Duration
	// Retry is how soon a failed join (the whole demo, from the owner) is
	// asked again, and the step of the clock that checks every deadline.
	// Defaults to 1 s.
	Retry time.Duration
	// Followers caps the followers of one room on this replica. Defaults
	// to 500.
	Followers int
	// PerAddr caps the rooms an address owns here at once. Defaults to 10.
	PerAddr int
	// Lookups and LookupBurst bound the unknown codes an address may try:
	// a token bucket, per minute. Default to 20 and 10.
	Lookups     float64
	LookupBurst int
	// Ended renders the banner that tells a follower reading lang that
	// room code (a demo of kind, "" when unknown) has ended.
	Ended func(kind, code, lang string) sockets.Frag
	// Metrics are counted; nil fields count nothing.
	Metrics Metrics
	// Log defaults to slog.Default(). Owner secrets are never logged.
	Log *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Announce <= 0 {
		c.Announce = 5 * time.Second
	}
	if c.Grace <= 0 {
		c.Grace = 30 * time.Second
	}
	if c.Retry <= 0 {
		c.Retry = time.Second
	}
	if c.Followers <= 0 {
		c.Followers = 500
	}
	if c.PerAddr <= 0 {
		c.PerAddr = 10
	}
	if c.Lookups <= 0 {
		c.Lookups = 20
	}
	if c.LookupBurst <= 0 {
		c.LookupBurst = 10
	}
	if c.Ended == nil {
		c.Ended = func(string, string, string) sockets.Frag { return sockets.Frag{} }
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return c
}

// Gauge goes up and down (a prometheus.Gauge is one).
type Gauge interface {
	Inc()
	Dec()
	Add(float64)
}

// Metrics are what the rooms count.
type Metrics struct {
	Rooms     Gauge                               // rooms whose owner's session is here
	Followers Gauge                               // follower sockets here, whoever owns their room
	Lookups   func(result string) sockets.Counter // codes looked up: here, elsewhere, not_found, limited
	Resyncs   func(reason string) sockets.Counter // whole demos asked again: gap, reconnect, slow, owner
	Losses    sockets.Counter                     // owners judged gone (three silent periods, or a code held unknown)
	Takeovers sockets.Counter                     // rooms claimed back with their secret
}

// Errors of opening, claiming, finding and following rooms.
var (
	ErrTooManyRooms = errors.New("too many rooms from this address")
	ErrNoRoom       = errors.New("no such room")
	ErrLookups      = errors.New("too many wrong codes from this address")
	ErrWrongSecret  = errors.New("the owner secret does not match the room")
	ErrEnded        = errors.New("the room has ended")
	ErrOtherDemo    = errors.New("the room follows another demo")
	ErrStopped      = errors.New("the rooms have stopped")
)

// Owner is the session that owns a room's demo, as the rooms reach it.
// Both methods hand their message to the owner's goroutine and return at
// once: the rooms never wait for a session, so a session may call the
// rooms (Publish) without a circle of waits.
type Owner interface {
	// Whole asks for the demo as followers reading req.Lang see it.
	Whole(req WholeReq)
	// Heard tells the owner news of its rooms.
	Heard(n News)
}

// WholeReq asks an owner for its whole demo in a language: every fragment
// as followers see it (and, for a room's page, the section), after the
// owner has published every frame its state calls for, with the seq of the
// last of them. From then on the owner publishes frames in Lang.
type WholeReq struct {
	Code    string // the room it is for: an owner that no longer has it answers Err
	Lang    string
	Section bool
	Reply   chan<- Whole // buffered: the owner never waits on it
}

// Whole is a demo as followers in one language see it.
type Whole struct {
	Kind    string
	Section []byte         // set when asked
	Frags   []sockets.Frag // every fragment, in page order
	Seq     uint64         // the frames published in this language so far
	Err     error          // the owner has no such room (any more)

	term   uint64 // the owner's tenure and seal, filled in by the rooms
	epoch  string
	seal   seal
	sealed bool
}

// News is what an owner hears of its room: a grant (a room opened by
// Open needs none), a refusal, a loss, or a new count of followers.
type News struct {
	Code      string
	Lease     *Lease // a claim was granted: the room is the owner's
	Refused   error  // a claim was refused (ErrWrongSecret, ErrEnded, …)
	Lost      bool   // the room was claimed by another page of its owner
	Followers int    // followers on every replica, when Lease, Refused and Lost are unset
}

// Lease is an owner's hold on its room. Its methods are safe from the
// owner's goroutine; once the room is no longer the owner's they do
// nothing.
type Lease struct {
	rooms  *Rooms
	code   string
	secret string
}

// Code is the room's code.
func (l *Lease) Code() string { return l.code }

// Secret is the owner secret: for the owner's own page only.
func (l *Lease) Secret() string { return l.secret }

// Publish hands the room a frame of the demo in lang: the fragments that
// changed since frame seq-1 of that language.
func (l *Lease) Publish(lang string, seq uint64, frags []sockets.Frag) {
	l.rooms.send(context.Background(), published{lease: l, lang: lang, seq: seq, frags: frags})
}

// Close ends the room: its followers everywhere are told, and its code
// is dead.
func (l *Lease) Close() { l.rooms.send(context.Background(), closeReq{lease: l}) }

// Rooms are the rooms of one replica: its owners' rooms and the rooms its
// followers follow, wherever their owners are. One goroutine (Run) owns
// them all.
type Rooms struct {
	cfg     Config
	bus     *bus // nil without NATS
	in      chan msg
	started chan struct{} // closed when Run has begun
	done    chan struct{} // closed when Run has returned

	// Owned by Run.
	rooms   map[string]*room
	records map[string]*record
	perAddr map[string]int
	lookups map[string]*sockets.Bucket
	busUp   bool
	joinIDs uint64
}

// New returns the rooms of a replica. It starts no goroutine: Run does.
func New(cfg Config) *Rooms {
	cfg = cfg.withDefaults()
	r := &Rooms{cfg: cfg, in: make(chan msg, 256), started: make(chan struct{}), done: make(chan struct{}),
		rooms: map[string]*room{}, records: map[string]*record{}, perAddr: map[string]int{},
		lookups: map[string]*sockets.Bucket{}}
	if cfg.NATS != nil {
		r.bus = newBus(cfg.NATS, r)
	}
	return r
}

// send hands m to Run, unless ctx ends or the rooms have stopped first.
func (r *Rooms) send(ctx context.Context, m msg) bool {
	select {
	case r.in <- m:
		return true
	case <-r.done:
	case <-ctx.Done():
	}
	return false
}

// Open opens a room for o, a session of a demo of kind, for addr.
func (r *Rooms) Open(o Owner, kind, addr string) (*Lease, error) {
	reply := make(chan openReply, 1)
	if !r.send(context.Background(), openReq{owner: o, kind: kind, addr: addr, reply: reply}) {
		return nil, ErrStopped
	}
	select {
	case rep := <-reply:
		return rep.lease, rep.err
	case <-r.done:
		return nil, ErrStopped
	}
}

// Claim asks for room code back, for o, with the owner secret its page
// kept. The answer comes as News: a Lease, or Refused. Only the secret
// claims a code; when a code is known nowhere (a lone process restarted),
// the first claim takes it.
func (r *Rooms) Claim(o Owner, kind, addr, code, secret string) {
	c := claimReq{owner: o, kind: kind, addr: addr, code: code, seal: sealOf(secret), secret: secret}
	if !r.send(context.Background(), c) {
		o.Heard(News{Code: code, Refused: ErrStopped})
	}
}

// Admit decides whether addr may follow code on a socket: a room known
// here or on the bus, or one unknown that its followers wait for (a
// restarted process, its owner's page not back yet); an unknown code costs
// addr a token of its lookup bucket, and without one left every code is
// refused with ErrLookups.
func (r *Rooms) Admit(ctx context.Context, code, addr string) error {
	known, err := r.lookup(ctx, code, addr)
	if err != nil || known {
		return err
	}
	r.send(ctx, missed{addr: addr})
	r.count(r.cfg.Metrics.Lookups, "not_found")
	return nil
}

// Page returns the demo of room code as followers reading lang see it,
// with its section, from its owner wherever it runs. An unknown code
// costs addr a token, as in Admit.
func (r *Rooms) Page(ctx context.Context, code, lang, addr string) (Whole, error) {
	known, err := r.lookup(ctx, code, addr)
	if err != nil {
		return Whole{}, err
	}
	reply := make(chan Whole, 1)
	found := make(chan bool, 1)
	if !r.send(ctx, pageReq{code: code, lang: lang, reply: reply, found: found}) {
		return Whole{}, ErrStopped
	}
	var here bool
	select {
	case here = <-found:
	case <-ctx.Done():
		return Whole{}, ctx.Err()
	}
	var w Whole
	switch {
	case here:
		select {
		case w = <-reply:
		case <-ctx.Done():
			return Whole{}, ctx.Err()
		}
	case r.bus != nil:
		w, err = r.bus.join(ctx, code, lang, true)
		if err != nil {
			w.Err = err
		}
	default:
		w.Err = ErrNoRoom
	}
	if w.Err != nil {
		if !known {
			r.send(ctx, missed{addr: addr})
			r.count(r.cfg.Metrics.Lookups, "not_found")
		}
		return Whole{}, ErrNoRoom
	}
	return w, nil
}

// lookup reports whether code is known here (a room, or a record of one
// heard on the bus) or, asked on the bus, elsewhere; ErrLookups when addr
// has no token left.
func (r *Rooms) lookup(ctx context.Context, code, addr string) (bool, error) {
	reply := make(chan lookupReply, 1)
	if !r.send(ctx, lookupReq{code: code, addr: addr, reply: reply}) {
		return false, ErrStopped
	}
	var rep lookupReply
	select {
	case rep = <-reply:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	switch {
	case rep.limited:
		r.count(r.cfg.Metrics.Lookups, "limited")
		return false, ErrLookups
	case rep.here:
		r.count(r.cfg.Metrics.Lookups, "here")
		return true, nil
	case rep.known:
		r.count(r.cfg.Metrics.Lookups, "elsewhere")
		return true, nil
	}
	if r.bus != nil {
		if rec, err := r.bus.who(ctx, code); err == nil {
			r.send(ctx, recordHeard{code: code, rec: rec})
			r.count(r.cfg.Metrics.Lookups, "elsewhere")
			return true, nil
		}
	}
	return false, nil
}

// Follow attaches a follower's socket, reading lang, to room code; kind is
// the demo its page showed (for the ended banner of a room whose owner is
// not known yet). The room sends it the demo as soon as it has it, and
// closes it (1013) when the room is full.
func (r *Rooms) Follow(code, lang, kind string, c *sockets.Conn) {
	if !r.send(context.Background(), followReq{code: code, lang: lang, kind: kind, conn: c}) {
		c.CloseWith(sockets.CloseServiceRestart, "server restarting")
	}
}

// Unfollow detaches a follower's socket that ended.
func (r *Rooms) Unfollow(code string, c *sockets.Conn) {
	r.send(context.Background(), unfollowReq{code: code, conn: c})
}

// Done is closed when Run has returned.
func (r *Rooms) Done() <-chan struct{} { return r.done }

func (r *Rooms) count(f func(string) sockets.Counter, label string) {
	if f != nil {
		if c := f(label); c != nil {
			c.Inc()
		}
	}
}
