// Command reconcile-demo serves the interactive demos of the Kubernetes
// reconcile loop and the Operator pattern.
//
// Configuration comes from the environment: ADDR (default 127.0.0.1:8080),
// MAX_SESSIONS, MAX_SESSIONS_PER_ADDR, SESSION_TTL, FRAME_ANCESTORS,
// LOG_FORMAT (text or json), TRUSTED_PROXIES, NATS_URL, ROOM_MAX_FOLLOWERS,
// MAX_ROOMS_PER_ADDR, ROOM_ANNOUNCE, ROOM_GRACE, ROOM_RETRY and PPROF_ADDR
// (profiles on an address of their own, off by default). See the README.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/reconcile-demo/reconcile-demo/internal/gctune"
	"github.com/reconcile-demo/reconcile-demo/server"
)

// The server's GOGC, unless the environment sets one (package gctune).
//
// Quiet: almost all of the heap is long-lived session state (a converged
// demo allocates nothing), and Go's default of 100 lets the heap, stacks
// included, grow to twice that before a collection: a third of an idle
// tab's RSS was that headroom. At 50, 10,000 idle tabs took 21.0 KiB each
// instead of 28.1 (make capacity).
//
// Busy (at least busyRate actions a second): collections at 50 came twice
// a second and made the slow tail of every action (docs/performance-history.md);
// at 1000, 2,000 pipeline sessions acting once a second kept p99 under
// 15 ms, in about 450 MB. The heap's goal stays within gcBudget, or 70% of
// GOMEMLIMIT when that is set. Since frames allocate a third of what they
// did, a larger goal costs more than it saves: the heap grows into memory
// the process never touched, and initialising those fresh spans took a
// tenth of a busy triggers server's CPU. At 256 MB against 768, 2,000
// sessions acting once a second cost 0.43–0.46 ms of CPU per triggers
// action against 0.50–0.52, and 0.35–0.39 per pipeline action against
// 0.42, with tails no longer (docs/performance-history.md).
const (
	gcQuiet  = 50
	gcBusy   = 1000
	busyRate = 100
	gcCalm   = 10 // seconds
	gcBudget = 256 << 20
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcQuiet)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "reconcile-demo:", err)
		os.Exit(1)
	}
}

// drainTimeout bounds a graceful stop: sockets close with 1012 at once, and
// the process exits within this even if a peer never answers.
const drainTimeout = 8 * time.Second

// run serves until ctx ends, then drains and returns.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("no arguments expected; configure with ADDR, MAX_SESSIONS, … (see README)")
	}
	cfg, addr, err := config(getenv, stderr)
	pprofAddr := getenv("PPROF_ADDR")
	if err != nil {
		return err
	}
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
	hubCtx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() { srv.Run(hubCtx); close(hubDone) }()
	if getenv("GOGC") == "" {
		go gctune.Run(hubCtx, gctune.Config{Quiet: gcQuiet, Busy: gcBusy, BusyRate: busyRate, Calm: gcCalm,
			Budget: gctune.Budget(gcBudget), Actions: srv.Actions})
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	cfg.Logger.Info("serving", "addr", ln.Addr().String())
	if pprofAddr != "" {
		// The profiles that find a session's bytes (README, "Performance"),
		// on an address of their own that the site never exposes.
		pln, err := net.Listen("tcp", pprofAddr)
		if err != nil {
			stopHub()
			return fmt.Errorf("PPROF_ADDR: %w", err)
		}
		defer pln.Close()
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		go http.Serve(pln, mux)
		cfg.Logger.Info("profiles", "addr", pln.Addr().String())
	}

	select {
	case err := <-serveErr:
		stopHub()
		return err
	case <-ctx.Done():
	}
	cfg.Logger.Info("draining: closing sockets with 1012")
	stopHub() // readyz fails and every session closes its socket with 1012
	drainCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := httpSrv.Shutdown(drainCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	select {
	case <-hubDone:
	case <-drainCtx.Done():
		cfg.Logger.Warn("drain timed out; exiting with sessions open")
	}
	return nil
}

func config(getenv func(string) string, stderr io.Writer) (server.Config, string, error) {
	var cfg server.Config
	addr := getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	var opts slog.HandlerOptions
	switch f := getenv("LOG_FORMAT"); f {
	case "json":
		cfg.Logger = slog.New(slog.NewJSONHandler(stderr, &opts))
	case "", "text":
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &opts))
	default:
		return cfg, "", fmt.Errorf("LOG_FORMAT %q: want text or json", f)
	}
	for _, v := range []struct {
		name string
		dst  *int
	}{{"MAX_SESSIONS", &cfg.MaxSessions}, {"MAX_SESSIONS_PER_ADDR", &cfg.MaxSessionsPerAddr},
		{"ROOM_MAX_FOLLOWERS", &cfg.RoomFollowers}, {"MAX_ROOMS_PER_ADDR", &cfg.RoomsPerAddr}} {
		if s := getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 {
				return cfg, "", fmt.Errorf("%s %q: want a positive integer", v.name, s)
			}
			*v.dst = n
		}
	}
	for _, v := range []struct {
		name, example string
		dst           *time.Duration
	}{{"SESSION_TTL", "10m", &cfg.SessionTTL}, {"ROOM_ANNOUNCE", "5s", &cfg.RoomAnnounce},
		{"ROOM_GRACE", "30s", &cfg.RoomGrace}, {"ROOM_RETRY", "1s", &cfg.RoomRetry}} {
		if s := getenv(v.name); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return cfg, "", fmt.Errorf("%s %q: want a positive duration such as %s", v.name, s, v.example)
			}
			*v.dst = d
		}
	}
	if s := getenv("TIME_SCALE"); s != "" {
		// For the browser suite only: its stories wait on the demos' time.
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f >= 1 && f <= 20) {
			return cfg, "", fmt.Errorf("TIME_SCALE %q: want a number from 1 to 20 (tests only)", s)
		}
		cfg.TimeScale = f
	}
	cfg.FrameAncestors = getenv("FRAME_ANCESTORS")
	for _, f := range strings.FieldsFunc(getenv("TRUSTED_PROXIES"), func(r rune) bool { return r == ',' || r == ' ' }) {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			ip, ierr := netip.ParseAddr(f)
			if ierr != nil {
				return cfg, "", fmt.Errorf("TRUSTED_PROXIES %q: want CIDRs or addresses, comma-separated", f)
			}
			p = netip.PrefixFrom(ip, ip.BitLen())
		}
		cfg.TrustedProxies = append(cfg.TrustedProxies, p.Masked())
	}
	cfg.NATSURL = getenv("NATS_URL")
	return cfg, addr, nil
}
