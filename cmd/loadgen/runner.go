package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Bounds of the phases that wait on the server.
const (
	openConcurrency  = 128              // page loads and dials in flight
	openTimeout      = 20 * time.Second // one page load and dial
	readyWait        = 15 * time.Second // for every socket's first frame
	answerGrace      = 3 * time.Second  // for the last actions' frames
	closeWait        = 5 * time.Second  // for the server's close frames
	socketsWait      = 10 * time.Second // for the server to count 0 sockets
	goroutineWait    = 10 * time.Second // for goroutines to reach baseline+10
	goroutineSlack   = 10
	peakScrapePeriod = 5 * time.Second
	pollPeriod       = 200 * time.Millisecond
)

// runner runs one load: open, settle, act (or hold), close, drain.
type runner struct {
	cfg    config
	shape  demoShape
	out    io.Writer // progress lines
	pages  *http.Client
	dialer *websocket.Dialer
	scr    *scraper
	errs   *errCounts
	lat    recorder // from send to frame
	// latSched is from when the action fell due to its frame: the same as
	// lat unless the previous action's slow answer delayed the send.
	latSched recorder

	live, actionsSent, answered, delayed, unanswered, framesReceived atomic.Int64

	mu      sync.Mutex
	clients []*client
	peak    float64
}

func newRunner(cfg config, out io.Writer) *runner {
	d := loopbackDialer()
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	pages := &http.Client{Timeout: openTimeout, CheckRedirect: noRedirect, Transport: &http.Transport{
		Proxy: nil, DialContext: d.DialContext, MaxIdleConns: openConcurrency,
		MaxIdleConnsPerHost: openConcurrency, IdleConnTimeout: 30 * time.Second}}
	metricsClient := &http.Client{Timeout: 10 * time.Second, CheckRedirect: noRedirect, Transport: &http.Transport{
		Proxy: nil, DialContext: d.DialContext, MaxIdleConnsPerHost: 1}}
	shape, _ := shapeOf(cfg.Demo) // parseConfig checked the kind
	return &runner{
		cfg: cfg, shape: shape, out: out, pages: pages,
		// Small buffers: thousands of sockets in this process too.
		dialer: &websocket.Dialer{NetDialContext: d.DialContext, HandshakeTimeout: 10 * time.Second,
			ReadBufferSize: 2048, WriteBufferSize: 1024, WriteBufferPool: &sync.Pool{}},
		scr:  &scraper{client: metricsClient, url: cfg.URL.JoinPath("/metrics").String()},
		errs: newErrCounts(),
	}
}

func (r *runner) logf(format string, a ...any) {
	fmt.Fprintf(r.out, "# %s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, a...)...)
}

// scrape fetches /metrics and tracks the goroutine peak. A failed scrape is
// counted and returns nil; callers treat its values as missing.
func (r *runner) scrape(ctx context.Context) metrics {
	m, err := r.scr.scrape(ctx)
	if err != nil {
		if ctx.Err() == nil { // a scrape cut short by the phase's end is no failure
			r.errs.add(classify("metrics", err), err)
		}
		return metrics{}
	}
	r.mu.Lock()
	if g := m.get("go_goroutines"); g > r.peak {
		r.peak = g
	}
	r.mu.Unlock()
	return m
}

func (r *runner) execute(ctx context.Context) (*report, error) {
	rep := &report{URL: r.cfg.URL.String(), Demo: r.cfg.Demo, Rate: r.cfg.Rate,
		DurationS: r.cfg.Duration.Seconds(), RampPerS: r.cfg.Ramp}
	rep.Sessions.Requested = r.cfg.Sessions
	if r.cfg.Rate > 20 {
		rep.Notes = append(rep.Notes, "the server allows 20 actions/s per socket (burst 40): expect refusals and 1008 closes")
	}

	base, err := r.scr.scrape(ctx)
	if err != nil {
		return nil, fmt.Errorf("baseline scrape: %w (is the server running at %s?)", err, r.cfg.URL)
	}
	r.peak = base.get("go_goroutines")
	rep.Memory.RSSBefore = base.get("process_resident_memory_bytes")
	rep.Memory.HeapBefore, rep.Memory.HeapMetric = base.first("go_memstats_heap_inuse_bytes", "go_memstats_heap_alloc_bytes")
	rep.Memory.StackBefore = base.get("go_memstats_stack_inuse_bytes")
	rep.Goroutines.Baseline = base.get("go_goroutines")
	if n := base.get("reconcile_demo_sessions"); n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the server already had %.0f sessions: the baseline includes them", n))
	}
	r.logf("baseline: %.0f goroutines, RSS %s, %s %s", rep.Goroutines.Baseline, mb(rep.Memory.RSSBefore),
		rep.Memory.HeapMetric, mb(rep.Memory.HeapBefore))

	// Open.
	t0 := time.Now()
	failed := r.openAll(ctx)
	r.pages.CloseIdleConnections() // idle keep-alives would count as server goroutines
	rep.Sessions.OpenS = time.Since(t0).Seconds()
	rep.Sessions.Opened = len(r.clients)
	rep.Sessions.Failed = failed
	r.logf("opened %d sessions in %.1f s (%d failed)", len(r.clients), rep.Sessions.OpenS, failed)

	// Settle: every socket has its first frame, then a quiet moment.
	rep.Sessions.Ready = r.waitReady(ctx)
	sleep(ctx, r.cfg.Settle)
	after := r.scrape(ctx)
	rep.Sessions.Live = int(r.live.Load())
	rep.Sessions.Server = after.get("reconcile_demo_sessions")
	rep.Sessions.Sockets = after.get("reconcile_demo_sockets")
	rep.Memory.RSSAfter = after.get("process_resident_memory_bytes")
	rep.Memory.HeapAfter, _ = after.first(rep.Memory.HeapMetric)
	rep.Memory.StackAfter = after.get("go_memstats_stack_inuse_bytes")
	if n := float64(rep.Sessions.Live); n > 0 {
		rep.Memory.RSSPerSession = (rep.Memory.RSSAfter - rep.Memory.RSSBefore) / n
		rep.Memory.HeapPerSession = (rep.Memory.HeapAfter - rep.Memory.HeapBefore) / n
		rep.Memory.StackPerSession = (rep.Memory.StackAfter - rep.Memory.StackBefore) / n
	}
	r.logf("settled: %d ready, %d live; RSS %s (%s per session)", rep.Sessions.Ready, rep.Sessions.Live,
		mb(rep.Memory.RSSAfter), kb(rep.Memory.RSSPerSession))

	// Act, or hold the idle sessions.
	if ctx.Err() == nil {
		r.actPhase(ctx, rep)
	}

	// Close, then watch the server let go.
	r.closeAll()
	r.logf("closed all sockets")
	if ctx.Err() == nil {
		r.drain(ctx, rep)
	} else {
		rep.Notes = append(rep.Notes, "skipped waiting for the server to drain: the run was stopped")
	}

	if r.cfg.Bare != nil && ctx.Err() == nil {
		r.measureBare(ctx, rep)
	}

	if err := ctx.Err(); err != nil {
		rep.Aborted = fmt.Sprintf("stopped before the end (%v): figures are partial", context.Cause(ctx))
	}
	rep.Actions.Sent = r.actionsSent.Load()
	rep.Actions.Answered = r.answered.Load()
	rep.Actions.Delayed = r.delayed.Load()
	rep.Actions.Expected = int64(float64(rep.Sessions.Live) * r.cfg.Rate * r.cfg.Duration.Seconds())
	rep.Actions.Unanswered = r.unanswered.Load()
	rep.Latency = r.lat.summary()
	rep.LatencyFromSchedule = r.latSched.summary()
	rep.Frames.Received = r.framesReceived.Load()
	rep.Goroutines.Peak = r.peak
	rep.Errors, rep.ErrorExamples = r.errs.snapshot()
	if math.IsNaN(rep.Memory.RSSBefore) || rep.Memory.HeapMetric == "" {
		rep.Notes = append(rep.Notes, "the server does not expose process_resident_memory_bytes or a go_memstats heap metric")
	}
	return rep, nil
}

// openAll opens the sessions at the ramp rate, at most openConcurrency at
// a time, and returns how many failed.
func (r *runner) openAll(ctx context.Context) int {
	var failed atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, openConcurrency)
	start := time.Now()
	step := max(r.cfg.Sessions/10, 1)
	for i := 0; i < r.cfg.Sessions; i++ {
		if r.cfg.Ramp > 0 {
			sleep(ctx, time.Until(start.Add(time.Duration(float64(i)/r.cfg.Ramp*float64(time.Second)))))
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			r.errs.add("open_not_attempted", fmt.Errorf("%d sessions not opened: %w", r.cfg.Sessions-i, ctx.Err()))
			failed.Add(int64(r.cfg.Sessions - i))
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			octx, cancel := context.WithTimeout(ctx, openTimeout)
			defer cancel()
			c, kind, err := open(octx, r)
			if err != nil {
				r.errs.add(kind, err)
				failed.Add(1)
				return
			}
			r.mu.Lock()
			r.clients = append(r.clients, c)
			r.mu.Unlock()
			r.live.Add(1)
		}()
		if (i+1)%step == 0 {
			r.logf("opening: %d/%d started, %d live, %d failed", i+1, r.cfg.Sessions, r.live.Load(), failed.Load())
		}
	}
	wg.Wait()
	return int(failed.Load())
}

// waitReady waits (bounded) until every socket has its first frame or has
// ended, and returns how many have a first frame.
func (r *runner) waitReady(ctx context.Context) int {
	deadline := time.NewTimer(readyWait)
	defer deadline.Stop()
wait:
	for _, c := range r.clients {
		select {
		case <-c.ready:
		case <-c.done:
		case <-deadline.C:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	return countClosed(r.clients, func(c *client) chan struct{} { return c.ready })
}

func countClosed(cs []*client, ch func(*client) chan struct{}) int {
	n := 0
	for _, c := range cs {
		select {
		case <-ch(c):
			n++
		default:
		}
	}
	return n
}

// actPhase acts in every live session at the configured rate (or only
// holds them open at rate 0) for the duration, and measures the server's
// CPU and frames over exactly that window.
func (r *runner) actPhase(ctx context.Context, rep *report) {
	start := r.scrape(ctx)
	t0 := time.Now()
	actCtx, stop := context.WithDeadline(ctx, t0.Add(r.cfg.Duration))
	defer stop()
	var wg sync.WaitGroup
	if r.cfg.Rate > 0 {
		for _, c := range r.clients {
			if c.dead.Load() {
				continue
			}
			wg.Add(1)
			go func() { defer wg.Done(); c.act(actCtx) }()
		}
		r.logf("acting: %d sessions × %s actions/s for %v", r.live.Load(), trimFloat(r.cfg.Rate), r.cfg.Duration)
	} else {
		r.logf("holding %d idle sessions for %v", r.live.Load(), r.cfg.Duration)
	}
	tick := time.NewTicker(peakScrapePeriod)
	defer tick.Stop()
wait:
	for {
		select {
		case <-actCtx.Done():
			break wait
		case <-tick.C:
			m := r.scrape(actCtx)
			if len(m) == 0 {
				continue
			}
			r.logf("  %.0f goroutines, %.0f sockets, %d actions sent, %d answered",
				m.get("go_goroutines"), m.get("reconcile_demo_sockets"), r.actionsSent.Load(), r.answered.Load())
		}
	}
	wg.Wait()
	wall := time.Since(t0)
	end := r.scrape(ctx)
	rep.CPU.WallS = wall.Seconds()
	rep.CPU.Seconds = end.get("process_cpu_seconds_total") - start.get("process_cpu_seconds_total")
	rep.CPU.Cores = rep.CPU.Seconds / rep.CPU.WallS
	if sent := r.actionsSent.Load(); r.cfg.Rate > 0 && sent > 0 {
		rep.CPU.PerActionMs = rep.CPU.Seconds * 1000 / float64(sent)
	}
	rep.Frames.Sent = end.get("reconcile_demo_frames_sent_total") - start.get("reconcile_demo_frames_sent_total")
	rep.Frames.Coalesced = end.get("reconcile_demo_frames_coalesced_total") - start.get("reconcile_demo_frames_coalesced_total")

	// The last actions' frames are still on their way.
	if r.cfg.Rate > 0 {
		deadline := time.Now().Add(answerGrace)
		for r.pendingTotal() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
			sleep(ctx, 20*time.Millisecond)
		}
		r.unanswered.Add(int64(r.pendingTotal()))
	}
}

func (r *runner) pendingTotal() int {
	n := 0
	for _, c := range r.clients {
		n += c.pendingCount()
	}
	return n
}

// closeAll closes every socket with 1000, waits (bounded) for the server's
// close frames, then releases the connections. It runs even when the run
// was stopped, and is bounded by closeWait.
func (r *runner) closeAll() {
	sem := make(chan struct{}, 256)
	var wg sync.WaitGroup
	for _, c := range r.clients {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c.startClose()
		}()
	}
	wg.Wait()
	deadline := time.NewTimer(closeWait)
	defer deadline.Stop()
	timedOut, expired := 0, false
	for _, c := range r.clients {
		if !expired {
			select {
			case <-c.done:
			case <-deadline.C:
				expired = true
			}
		}
		select {
		case <-c.done:
		default:
			timedOut++
		}
		c.conn.Close()
	}
	if timedOut > 0 {
		r.errs.add("close_no_answer", fmt.Errorf("%d sockets got no close frame within %v", timedOut, closeWait))
	}
	for _, c := range r.clients {
		<-c.done // the reader ends once its connection is closed
	}
}

// drain polls /metrics after the sockets have closed: first until the
// server counts no socket (goroutines then still include the sessions,
// which live until SESSION_TTL), then until it counts no session and the
// goroutines are back within baseline+10.
func (r *runner) drain(ctx context.Context, rep *report) {
	t0 := time.Now()
	if r.shape.echo {
		// A bare hub keeps no session: its goroutines end with the sockets.
		m, ok := r.poll(ctx, socketsWait, func(m metrics) bool { return m.get("go_goroutines") <= rep.Goroutines.Baseline+goroutineSlack })
		rep.Goroutines.SocketsClosed = m.get("go_goroutines")
		rep.Goroutines.SocketsClosedS = time.Since(t0).Seconds()
		rep.Goroutines.SessionsExpired, rep.Goroutines.SessionsExpiredS = rep.Goroutines.SocketsClosed, rep.Goroutines.SocketsClosedS
		rep.Goroutines.BackToBaseline = ok
		return
	}
	m, _ := r.poll(ctx, socketsWait, func(m metrics) bool { return m.get("reconcile_demo_sockets") == 0 })
	rep.Goroutines.SocketsClosed = m.get("go_goroutines")
	rep.Goroutines.SocketsClosedS = time.Since(t0).Seconds()
	r.logf("sockets closed: %.0f goroutines, %.0f sessions", rep.Goroutines.SocketsClosed, m.get("reconcile_demo_sessions"))

	base := rep.Goroutines.Baseline
	m, ok := r.poll(ctx, r.cfg.DrainWait, func(m metrics) bool { return m.get("reconcile_demo_sessions") == 0 })
	if ok {
		m, ok = r.poll(ctx, goroutineWait, func(m metrics) bool { return m.get("go_goroutines") <= base+goroutineSlack })
	} else {
		rep.Notes = append(rep.Notes, fmt.Sprintf("sessions had not expired after -drain-wait %v: run the server with a short SESSION_TTL", r.cfg.DrainWait))
	}
	rep.Goroutines.SessionsExpired = m.get("go_goroutines")
	rep.Goroutines.SessionsExpiredS = time.Since(t0).Seconds()
	rep.Goroutines.SessionsLeft = m.get("reconcile_demo_sessions")
	rep.Goroutines.BackToBaseline = ok
	r.logf("sessions expired: %.0f goroutines, %.0f sessions", rep.Goroutines.SessionsExpired, rep.Goroutines.SessionsLeft)
}

// poll scrapes every pollPeriod until done holds or wait passes, and
// returns the last scrape and whether done held.
func (r *runner) poll(ctx context.Context, wait time.Duration, done func(metrics) bool) (metrics, bool) {
	deadline := time.Now().Add(wait)
	for {
		m := r.scrape(ctx)
		if len(m) > 0 && done(m) {
			return m, true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return m, false
		}
		sleep(ctx, pollPeriod)
	}
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
