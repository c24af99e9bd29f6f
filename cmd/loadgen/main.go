// Command loadgen opens many real demo sessions against a reconcile-demo
// server on this machine, optionally acts in each, and reports action→frame
// latency, server memory per live session, server CPU, frame counts and
// goroutine counts before, during and after the load.
//
// It only ever loads the local machine: any -url whose host is not loopback
// (127.0.0.0/8, ::1, localhost) is refused, and every connection it makes is
// checked again at dial time. It is bounded in count (-sessions) and time
// (-timeout), and it counts failures by kind instead of stopping at the first.
//
//	loadgen -url http://127.0.0.1:8099 -sessions 1000 -rate 1 -duration 30s
//
// Run the server with a short SESSION_TTL (e.g. 5s) so that the report can
// show goroutines returning to the baseline once the sessions expire.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// run parses the flags, raises the open-files limit, runs the load and
// prints the report (text, or JSON with -json) on stdout.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := parseConfig(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	// The generator shares the machine with the server it measures: its
	// heap stays small (a few MB), and a garbage collection scans the
	// stacks of two goroutines per session, so it collects less often.
	debug.SetGCPercent(400)
	// A socket and, while opening, a page connection per session, plus slack.
	limit, err := raiseNoFile(uint64(cfg.Sessions)*2 + 256)
	if err != nil {
		return fmt.Errorf("raise RLIMIT_NOFILE: %w", err)
	}
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	progress := io.Discard
	if !cfg.JSON && !cfg.Quiet {
		progress = stdout
	}
	rep, err := newRunner(cfg, progress).execute(ctx)
	if err != nil {
		return err
	}
	rep.NoFileLimit = limit
	if cfg.JSON {
		if err := rep.writeJSON(stdout); err != nil {
			return err
		}
	} else {
		rep.writeText(stdout)
	}
	if rep.Sessions.Opened == 0 {
		return errors.New("no session could be opened")
	}
	return nil
}
