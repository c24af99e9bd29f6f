// Package server serves the demos: pages, one WebSocket per demo, the
// sessions that own the simulations, limits, health and metrics.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/reconcile-demo/reconcile-demo/demos"
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/rooms"
)

// Config configures a Server. The zero value is usable.
type Config struct {
	// MaxSessions caps live sessions; over it pages answer 503 and new
	// sockets close with 1013. Defaults to 10000.
	MaxSessions int
	// MaxSessionsPerAddr caps live sessions per client address. It is
	// generous because a whole classroom shares one address behind its NAT.
	// Defaults to 500.
	MaxSessionsPerAddr int
	// SessionTTL is how long a session lives after its last socket closed.
	// Defaults to 10 minutes.
	SessionTTL time.Duration
	// FrameAncestors is the CSP frame-ancestors of the embed routes.
	// Defaults to "*"; other pages always allow only 'self'.
	FrameAncestors string
	// ActionRate and ActionBurst are the token bucket of each socket:
	// actions per second, and how many may come at once. Default to 20 and 40.
	ActionRate  float64
	ActionBurst int
	// RoomFollowers caps the followers of one room (on each replica).
	// Defaults to 500.
	RoomFollowers int
	// RoomsPerAddr caps the rooms open at once from one address. Defaults
	// to 10.
	RoomsPerAddr int
	// RoomLookups and RoomLookupBurst bound the wrong room codes an address
	// may try: a token bucket, per minute. Default to 20 and 10, so codes
	// cannot be guessed in bulk.
	RoomLookups     float64
	RoomLookupBurst int
	// TrustedProxies are the proxies (load balancers) whose X-Forwarded-For
	// names the client: behind one, every visitor has the proxy's address,
	// and per-address limits would block a whole school or nobody. Empty by
	// default: the peer's address is the client's.
	TrustedProxies []netip.Prefix
	// NATSURL joins replicas into one set of rooms (followers may land on
	// another replica than their room's owner). Empty: rooms live on their
	// owner's process.
	NATSURL string
	// RoomAnnounce is how often a room's owner's replica announces it (and
	// followers' replicas count theirs); an owner unheard for three periods
	// is gone. Defaults to 5 s.
	RoomAnnounce time.Duration
	// RoomGrace is how long followers wait for a gone owner (or a room
	// code not known yet, after a restart) to come back before they are
	// told the room ended. Defaults to 30 s.
	RoomGrace time.Duration
	// RoomRetry is how soon a room's failed re-sync (a join of the whole
	// demo) is tried again, and the step at which its deadlines are
	// checked. Defaults to 1 s.
	RoomRetry time.Duration
	// TimeScale runs every demo's virtual time this many times faster than
	// its speed says, on the server and in its pages: for the browser
	// suite's stories, which wait on the demos' time. Defaults to 1; the
	// site never sets it.
	TimeScale float64
	// Demos are the demos served, in the order of the chapters' index.
	// Defaults to the registry (demos.All).
	Demos []demo.Kind
	// Sim configures the demos' timing. Zero values take the defaults.
	Sim demo.Options
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.TimeScale <= 0 {
		c.TimeScale = 1
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = 10000
	}
	if c.MaxSessionsPerAddr <= 0 {
		c.MaxSessionsPerAddr = 500
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = 10 * time.Minute
	}
	if c.FrameAncestors == "" {
		c.FrameAncestors = "*"
	}
	if c.ActionRate <= 0 {
		c.ActionRate = 20
	}
	if c.ActionBurst <= 0 {
		c.ActionBurst = 40
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Demos == nil {
		c.Demos = demos.All()
	}
	if c.RoomFollowers <= 0 {
		c.RoomFollowers = 500
	}
	if c.RoomsPerAddr <= 0 {
		c.RoomsPerAddr = 10
	}
	if c.RoomLookups <= 0 {
		c.RoomLookups = 20
	}
	if c.RoomLookupBurst <= 0 {
		c.RoomLookupBurst = 10
	}
	return c
}

// Server serves the demos. Create it with New, serve Handler, and run Run
// for as long as it serves; cancel Run's context to drain.
type Server struct {
	cfg      Config
	opt      demo.Options
	kinds    map[string]*demo.Kind // the served demos by name
	log      *slog.Logger
	metrics  *metrics
	hub      *hub
	assets   *assets
	pages    *pageCache
	draining atomic.Bool
	running  chan struct{} // closed when Run has started the hub
	rooms    *rooms.Rooms
	nc       *nats.Conn // NATS between replicas, or nil
}

// New returns a server. It starts no goroutine: Run does.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	m := newMetrics()
	kinds := map[string]*demo.Kind{}
	for i := range cfg.Demos {
		k := &cfg.Demos[i]
		if !validKind(k.Name) || k.Prefix == "" || k.New == nil || k.Restore == nil || k.Title == nil ||
			k.Short == nil || k.Summary == nil {
			return nil, fmt.Errorf("demo %q: a kind needs a lowercase name, a prefix, New, Restore and its words", k.Name)
		}
		if _, dup := kinds[k.Name]; dup {
			return nil, fmt.Errorf("demo %q is registered twice", k.Name)
		}
		kinds[k.Name] = k
	}
	assets, err := loadAssets(cfg.Demos)
	if err != nil {
		return nil, err
	}
	srv := &Server{cfg: cfg, opt: cfg.Sim, kinds: kinds, log: cfg.Logger, metrics: m, hub: newHub(m), assets: assets,
		pages: newPageCache(), running: make(chan struct{})}
	if cfg.NATSURL != "" {
		if srv.nc, err = dialNATS(cfg.NATSURL); err != nil {
			return nil, err
		}
	}
	srv.rooms = rooms.New(rooms.Config{NATS: srv.nc, Announce: cfg.RoomAnnounce, Grace: cfg.RoomGrace, Retry: cfg.RoomRetry,
		Followers: cfg.RoomFollowers, PerAddr: cfg.RoomsPerAddr, Lookups: cfg.RoomLookups, LookupBurst: cfg.RoomLookupBurst,
		Ended: srv.endedBanner, Metrics: m.rooms(), Log: cfg.Logger})
	return srv, nil
}

// dialNATS connects to NATS. The client reconnects by itself, for ever;
// meanwhile rooms serve their followers here, and re-sync when it is back.
func dialNATS(url string) (*nats.Conn, error) {
	nc, err := nats.Connect(url, nats.Name("demo server"), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	return nc, nil
}

// Run runs the session registry and the rooms until ctx ends. Then it
// drains: /readyz fails at once, every socket closes with 1012
// (htmx-ext-ws reconnects, and the page's snapshot rebuilds the demo on
// whichever process answers, and its owner secret the room), and Run
// returns when every session has ended.
func (s *Server) Run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		s.draining.Store(true)
	}()
	defer s.draining.Store(true) // also when Run returns before that goroutine ran
	go s.rooms.Run(ctx)
	close(s.running)
	s.hub.run(ctx, s)
	<-s.rooms.Done()
	if s.nc != nil {
		s.nc.Drain() // what was published is sent
	}
}

// Actions returns how many visitor actions the server has accepted.
func (s *Server) Actions() int64 { return s.metrics.acted.Load() }

// Draining reports whether the server has begun to drain.
func (s *Server) Draining() bool { return s.draining.Load() }

// Handler returns the server's routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	for _, k := range s.cfg.Demos {
		mux.HandleFunc("GET /"+k.Name, s.page(k.Name))
		mux.HandleFunc("GET /embed/"+k.Name, s.embed(k.Name))
	}
	mux.HandleFunc("GET /room/{code}", s.roomPage)
	mux.HandleFunc("GET /ws", s.serveWS)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.metricsHandler())
	mux.HandleFunc("GET /static/{name}", s.serveStatic)
	mux.HandleFunc("/", s.notFound)
	return mux
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

// readyz fails while draining or at capacity, so a load balancer sends new
// visitors elsewhere.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case s.draining.Load():
		http.Error(w, "draining", http.StatusServiceUnavailable)
	case s.hub.live.Load() >= int64(s.cfg.MaxSessions):
		http.Error(w, "at capacity", http.StatusServiceUnavailable)
	default:
		select {
		case <-s.running:
			w.Write([]byte("ready\n"))
		default:
			http.Error(w, "starting", http.StatusServiceUnavailable)
		}
	}
}

// newSID returns a 128-bit random session id, hex-encoded.
func newSID() string {
	var b [16]byte
	rand.Read(b[:]) // never returns an error (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b[:])
}

// validSID reports whether id looks like one newSID made: 32 lowercase hex
// digits. Anything else is refused before it reaches the registry.
func validSID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// validKind reports whether name can be a demo kind: lowercase letters, one
// route segment, none of the server's own routes.
func validKind(name string) bool {
	if name == "" || len(name) > 32 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 'a' || name[i] > 'z' {
			return false
		}
	}
	switch name {
	case "ws", "healthz", "readyz", "metrics", "static", "embed", "room":
		return false
	}
	return true
}

// clientAddr is the address per-address limits count: the peer's IP, or,
// when the peer is a trusted proxy, the nearest address in its
// X-Forwarded-For that is not one (the right-most untrusted hop: the
// addresses before it were written by the client and prove nothing).
func (s *Server) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(s.cfg.TrustedProxies) == 0 || !s.trusted(host) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		ip, err := netip.ParseAddr(hop)
		if err != nil {
			break // a malformed hop: keep the last address we could trust
		}
		if !s.trusted(ip.String()) {
			return ip.Unmap().String()
		}
		host = ip.Unmap().String()
	}
	return host
}

// trusted reports whether addr is one of the trusted proxies.
func (s *Server) trusted(addr string) bool {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// timeScale is Config.TimeScale as a page's body carries it: "" at 1.
func (s *Server) timeScale() string {
	if s.cfg.TimeScale == 1 {
		return ""
	}
	return strconv.FormatFloat(s.cfg.TimeScale, 'g', -1, 64)
}
