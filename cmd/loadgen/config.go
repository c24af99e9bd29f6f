package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Bounds of the flags: the generator must stay bounded in count and time.
const (
	maxSessions = 50000
	maxRate     = 50 // actions/s per session; the server allows 20 (burst 40)
	maxTimeout  = time.Hour
)

// config is the parsed command line.
type config struct {
	URL       *url.URL // the server's base URL (loopback only)
	Sessions  int
	Rate      float64 // actions per second per session; 0 = idle
	Duration  time.Duration
	Ramp      float64 // sessions opened per second; 0 = as fast as possible
	Demo      string  // a registered demo kind
	Timeout   time.Duration
	Settle    time.Duration // wait after every session is open, before "after" memory
	Bare      *url.URL      // a bare gorilla hub to compare with (cmd/barehub), or nil
	DrainWait time.Duration // longest wait for sessions to expire after the sockets close
	JSON      bool
	Quiet     bool
	// CPUProfile is a file for the generator's own CPU profile, or "": it
	// shares the machine with the server, so what it costs is the server's
	// loss.
	CPUProfile string
}

func parseConfig(args []string, getenv func(string) string, out io.Writer) (config, error) {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(out)
	defURL := "http://127.0.0.1:8080"
	if v := getenv("LOADGEN_URL"); v != "" {
		defURL = v
	}
	rawURL := fs.String("url", defURL, "server base URL; loopback hosts only (env LOADGEN_URL)")
	sessions := fs.Int("sessions", 100, "number of sessions to open (1.."+strconv.Itoa(maxSessions)+")")
	rate := fs.Float64("rate", 1, "actions per second per session, with jitter; 0 = idle sessions")
	duration := fs.Duration("duration", 30*time.Second, "how long to act (or hold idle sessions) once all are open")
	ramp := fs.String("ramp", "200/s", "how fast to open sessions: N/s, N/m, or 0 for as fast as possible")
	demo := fs.String("demo", "reconcile", "which demo: "+strings.Join(kindNames(), ", ")+
		"; or "+echoKind+", to drive a bare hub (cmd/barehub) at -url the same way")
	timeout := fs.Duration("timeout", 5*time.Minute, "hard cap on the whole run")
	settle := fs.Duration("settle", 2*time.Second, "wait after all sessions are open before measuring memory")
	drain := fs.Duration("drain-wait", 30*time.Second, "longest wait for sessions to expire after closing (the server's SESSION_TTL)")
	listKinds := fs.Bool("kinds", false, "print the demo kinds it can drive, one per line, and exit")
	bare := fs.String("bare", "", "a bare hub (cmd/barehub) to open as many sockets to, for comparison; loopback only")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	quiet := fs.Bool("quiet", false, "no progress lines")
	cpuProfile := fs.String("cpuprofile", "", "write the generator's own CPU profile to this file")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if *listKinds {
		fmt.Fprintln(out, strings.Join(kindNames(), "\n"))
		return config{}, flag.ErrHelp
	}
	u, err := checkLoopbackURL(*rawURL)
	if err != nil {
		return config{}, err
	}
	cfg := config{URL: u, Sessions: *sessions, Rate: *rate, Duration: *duration, Demo: *demo,
		Timeout: *timeout, Settle: *settle, DrainWait: *drain, JSON: *asJSON, Quiet: *quiet, CPUProfile: *cpuProfile}
	if cfg.Ramp, err = parseRamp(*ramp); err != nil {
		return config{}, err
	}
	if *bare != "" {
		if cfg.Bare, err = checkLoopbackURL(*bare); err != nil {
			return config{}, fmt.Errorf("-bare: %w", err)
		}
	}
	switch {
	case cfg.Sessions < 1 || cfg.Sessions > maxSessions:
		return config{}, fmt.Errorf("-sessions %d: want 1..%d", cfg.Sessions, maxSessions)
	case cfg.Rate < 0 || cfg.Rate > maxRate:
		return config{}, fmt.Errorf("-rate %g: want 0..%d actions per second", cfg.Rate, maxRate)
	case cfg.Duration <= 0:
		return config{}, fmt.Errorf("-duration %v: want a positive duration", cfg.Duration)
	case cfg.Timeout <= 0 || cfg.Timeout > maxTimeout:
		return config{}, fmt.Errorf("-timeout %v: want a positive duration up to %v", cfg.Timeout, maxTimeout)
	case cfg.Duration >= cfg.Timeout:
		return config{}, fmt.Errorf("-duration %v must be shorter than -timeout %v", cfg.Duration, cfg.Timeout)
	case cfg.Settle < 0 || cfg.DrainWait < 0:
		return config{}, fmt.Errorf("-settle and -drain-wait must not be negative")
	case !knownKind(cfg.Demo):
		return config{}, fmt.Errorf("-demo %q: want one of %s, or %s", cfg.Demo, strings.Join(kindNames(), ", "), echoKind)
	}
	return cfg, nil
}

// parseRamp reads "200/s", "600/m", "200" (per second) or "0" (unlimited).
func parseRamp(s string) (float64, error) {
	num, unit, hasUnit := strings.Cut(strings.TrimSpace(s), "/")
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("-ramp %q: want N/s, N/m or 0", s)
	}
	if hasUnit {
		switch unit {
		case "s":
		case "m":
			n /= 60
		default:
			return 0, fmt.Errorf("-ramp %q: unit must be /s or /m", s)
		}
	}
	return n, nil
}

func knownKind(kind string) bool {
	_, ok := shapeOf(kind)
	return ok
}
