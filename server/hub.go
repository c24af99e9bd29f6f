package server

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// Errors of hub.join.
var (
	errBusy     = errors.New("over capacity")
	errMismatch = errors.New("session belongs to another demo")
	errDraining = errors.New("server draining")
)

// hub is the registry of live sessions. Its goroutine (run) is the only code
// that reads or writes the map; others send it requests, as gorilla's chat
// hub does.
type hub struct {
	joins   chan joinReq
	counts  chan countReq
	removes chan *session
	stopped chan struct{} // closed when run returns: nobody answers requests
	m       *metrics
	live    atomic.Int64 // number of live sessions, for cheap reads by pages and readyz

	// Owned by run.
	sessions map[string]*session
	perAddr  map[string]int
	wg       sync.WaitGroup // one per session goroutine

	wakes chan wake // taken by the goroutines waiting for a session's wake (aside)
	// wakerIdle is how long a wake goroutine waits for the next wake
	// (defaultWakerIdle; tests that count stacks shorten it), and wakers
	// counts those alive.
	wakerIdle time.Duration
	wakers    atomic.Int32
}

type joinReq struct {
	id, addr string
	kind     *demo.Kind
	lang     ui.Lang
	reply    chan joinReply
}

type countReq struct {
	addr  string
	reply chan int
}

type joinReply struct {
	s       *session
	created bool
	err     error
}

func newHub(m *metrics) *hub {
	return &hub{joins: make(chan joinReq), counts: make(chan countReq), removes: make(chan *session, 64),
		stopped: make(chan struct{}), wakes: make(chan wake), wakerIdle: defaultWakerIdle, m: m, sessions: map[string]*session{}, perAddr: map[string]int{}}
}

// run serves requests until ctx ends, then waits for every session to end.
// Sessions watch ctx themselves and close their sockets with 1012.
func (h *hub) run(ctx context.Context, srv *Server) {
	defer close(h.stopped)
	for {
		select {
		case <-ctx.Done():
			// Keep taking removals so sessions can finish.
			done := make(chan struct{})
			go func() { h.wg.Wait(); close(done) }()
			for {
				select {
				case s := <-h.removes:
					h.drop(s)
				case r := <-h.joins:
					r.reply <- joinReply{err: errDraining}
				case r := <-h.counts:
					r.reply <- h.perAddr[r.addr]
				case <-done:
					return
				}
			}
		case s := <-h.removes:
			h.drop(s)
		case r := <-h.joins:
			r.reply <- h.join(ctx, r, srv)
		case r := <-h.counts:
			r.reply <- h.perAddr[r.addr]
		}
	}
}

func (h *hub) join(ctx context.Context, r joinReq, srv *Server) joinReply {
	if s, ok := h.sessions[r.id]; ok {
		if s.kind != r.kind {
			return joinReply{err: errMismatch}
		}
		return joinReply{s: s}
	}
	if len(h.sessions) >= srv.cfg.MaxSessions || h.perAddr[r.addr] >= srv.cfg.MaxSessionsPerAddr {
		return joinReply{err: errBusy}
	}
	s := newSession(r.id, r.kind, r.lang, r.addr, srv.opt, srv.rooms)
	h.sessions[r.id] = s
	h.perAddr[r.addr]++
	h.counted()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		s.run(ctx, srv)
	}()
	return joinReply{s: s, created: true}
}

func (h *hub) drop(s *session) {
	if h.sessions[s.id] != s {
		return
	}
	delete(h.sessions, s.id)
	if h.perAddr[s.addr]--; h.perAddr[s.addr] <= 0 {
		delete(h.perAddr, s.addr)
	}
	h.counted()
}

func (h *hub) counted() {
	h.live.Store(int64(len(h.sessions)))
	h.m.sessions.Set(float64(len(h.sessions)))
}

// remove tells the hub a session has ended. Called by the session itself.
func (h *hub) remove(s *session) { h.removes <- s }

// joinSession finds the session id of kind, or creates it.
func (h *hub) joinSession(ctx context.Context, id string, kind *demo.Kind, addr string, lang ui.Lang) (*session, bool, error) {
	reply := make(chan joinReply, 1)
	select {
	case h.joins <- joinReq{id: id, kind: kind, addr: addr, lang: lang, reply: reply}:
	case <-h.stopped:
		return nil, false, errDraining
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	r := <-reply
	return r.s, r.created, r.err
}

// sessionsOf returns how many live sessions addr holds; 0 once the hub has
// stopped.
func (h *hub) sessionsOf(ctx context.Context, addr string) int {
	reply := make(chan int, 1)
	select {
	case h.counts <- countReq{addr: addr, reply: reply}:
		return <-reply
	case <-h.stopped:
	case <-ctx.Done():
	}
	return 0
}

// aside runs f on a goroutine other than the caller's and waits for it. A
// session's goroutine lives as long as its page, mostly asleep; what it
// does when it wakes (a demo's step, a replay, rendering a frame) goes
// deeper than the 4 KB stack it starts with, and a goroutine's stack stays
// as large as it ever grew until a garbage collection, which idle sessions
// do not bring about: run there, it made each idle session 4 KB larger.
func (h *hub) aside(f func()) {
	done := make(chan struct{})
	h.hand(wake{f, done})
	<-done
}

// spawn runs f on a goroutine other than the caller's and returns at once:
// a socket's writer (sockets.Options.Go).
func (h *hub) spawn(f func()) { h.hand(wake{f: f}) }

// hand gives w to a goroutine that waits for one, or starts one. The
// goroutine that ran a wake waits wakerIdle (a second) for the next one (of any
// session or socket) before it ends, keeping the stack it grew: a goroutine
// started for each wake grew its stack anew every time, which cost about 3%
// of the server's CPU under load (copystack), and one started for each
// frame's write another 3% (newproc, goexit). A quiet server keeps none.
func (h *hub) hand(w wake) {
	select {
	case h.wakes <- w: // a waiting goroutine takes it
	default:
		h.wakers.Add(1)
		go h.waker(w)
	}
}

// defaultWakerIdle is how long a wake goroutine waits for the next wake.
const defaultWakerIdle = time.Second

// wake is one call of aside or spawn.
type wake struct {
	f    func()
	done chan struct{} // closed once f returned; nil: nobody waits
}

// waker runs w, then the wakes sent to h.wakes, until none came for
// wakerIdle or the hub stopped.
func (h *hub) waker(w wake) {
	defer h.wakers.Add(-1)
	idle := time.NewTimer(h.wakerIdle)
	defer idle.Stop()
	for {
		w.f()
		if w.done != nil {
			close(w.done)
		}
		idle.Reset(h.wakerIdle)
		select {
		case w = <-h.wakes:
		case <-idle.C:
			return
		case <-h.stopped:
			return
		}
	}
}
