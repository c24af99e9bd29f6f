package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// report is everything a run measured. Byte figures are bytes; per-session
// figures divide by the sessions live when "after" was scraped.
type report struct {
	URL         string  `json:"url"`
	Demo        string  `json:"demo"`
	Rate        float64 `json:"rate_per_session"`
	DurationS   float64 `json:"duration_s"`
	RampPerS    float64 `json:"ramp_per_s"`
	NoFileLimit uint64  `json:"nofile_limit"`
	Aborted     string  `json:"aborted,omitempty"` // why the run stopped early, if it did

	Sessions struct {
		Requested int     `json:"requested"`
		Opened    int     `json:"opened"` // socket dialled and upgraded
		Ready     int     `json:"ready"`  // first frame received
		Live      int     `json:"live"`   // still open when memory was measured
		Failed    int     `json:"failed"`
		OpenS     float64 `json:"open_s"` // wall time to open them all
		Server    float64 `json:"server_sessions"`
		Sockets   float64 `json:"server_sockets"`
	} `json:"sessions"`

	Actions struct {
		Expected   int64 `json:"expected"` // live sessions × rate × duration
		Sent       int64 `json:"sent"`
		Answered   int64 `json:"answered"`   // a frame showed the value set
		Delayed    int64 `json:"delayed"`    // sent late: the previous one was still unanswered
		Unanswered int64 `json:"unanswered"` // no frame showed it in time (10 s, or by the end)
	} `json:"actions"`
	// Latency is from sending an action to the first frame showing its value.
	Latency latencySummary `json:"latency"`
	// LatencyFromSchedule is from when the action fell due instead: it adds
	// the wait behind a slow previous answer (coordinated omission).
	LatencyFromSchedule latencySummary `json:"latency_from_schedule"`

	Memory struct {
		RSSBefore      float64 `json:"rss_before_bytes"`
		RSSAfter       float64 `json:"rss_after_bytes"`
		RSSPerSession  float64 `json:"rss_per_session_bytes"`
		HeapMetric     string  `json:"heap_metric"`
		HeapBefore     float64 `json:"heap_before_bytes"`
		HeapAfter      float64 `json:"heap_after_bytes"`
		HeapPerSession float64 `json:"heap_per_session_bytes"`
		// Goroutine stacks are outside the heap metrics but inside RSS.
		StackBefore     float64 `json:"stack_before_bytes"`
		StackAfter      float64 `json:"stack_after_bytes"`
		StackPerSession float64 `json:"stack_per_session_bytes"`
	} `json:"memory"`

	CPU struct {
		Seconds float64 `json:"seconds"` // process_cpu_seconds_total delta
		WallS   float64 `json:"wall_s"`  // of the acting (or holding) phase
		Cores   float64 `json:"cores"`   // seconds / wall
		// PerActionMs is the server's CPU per action sent while acting:
		// seconds / sent, in ms (0 while holding).
		PerActionMs float64 `json:"per_action_ms"`
	} `json:"server_cpu"`

	Frames struct {
		Sent      float64 `json:"sent"`      // server's frames_sent_total delta, acting phase
		Coalesced float64 `json:"coalesced"` // server's frames_coalesced_total delta, acting phase
		Received  int64   `json:"received"`  // text frames this generator read, whole run
	} `json:"frames"`

	Goroutines struct {
		Baseline         float64 `json:"baseline"`
		Peak             float64 `json:"peak"`
		SocketsClosed    float64 `json:"sockets_closed"`
		SocketsClosedS   float64 `json:"sockets_closed_after_s"`
		SessionsExpired  float64 `json:"sessions_expired"`
		SessionsExpiredS float64 `json:"sessions_expired_after_s"`
		SessionsLeft     float64 `json:"sessions_left"` // server sessions when we stopped waiting
		BackToBaseline   bool    `json:"back_to_baseline"`
	} `json:"goroutines"`

	// Bare is the yardstick's cost for the same sockets (-bare), if measured.
	Bare *bareReport `json:"bare,omitempty"`

	Errors        map[string]int    `json:"errors"`
	ErrorExamples map[string]string `json:"error_examples,omitempty"`
	Notes         []string          `json:"notes,omitempty"`
}

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sanitize(r))
}

// sanitize replaces NaN (a metric the server did not expose) with 0, which
// JSON can carry; the notes say what was missing.
func sanitize(r *report) *report {
	c := *r
	for _, p := range []*float64{&c.Memory.RSSBefore, &c.Memory.RSSAfter, &c.Memory.RSSPerSession,
		&c.Memory.HeapBefore, &c.Memory.HeapAfter, &c.Memory.HeapPerSession,
		&c.Memory.StackBefore, &c.Memory.StackAfter, &c.Memory.StackPerSession, &c.CPU.Seconds, &c.CPU.Cores, &c.CPU.PerActionMs,
		&c.Frames.Sent, &c.Frames.Coalesced, &c.Goroutines.Baseline, &c.Goroutines.Peak,
		&c.Goroutines.SocketsClosed, &c.Goroutines.SessionsExpired, &c.Goroutines.SessionsLeft,
		&c.Sessions.Server, &c.Sessions.Sockets} {
		if math.IsNaN(*p) || math.IsInf(*p, 0) {
			*p = 0
		}
	}
	if c.Bare != nil {
		b := *c.Bare
		c.Bare = &b
	}
	for _, p := range c.bareFields() {
		if math.IsNaN(*p) || math.IsInf(*p, 0) {
			*p = 0
		}
	}
	return &c
}

func (r *report) writeText(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("")
	p("loadgen report: %s demo at %s", r.Demo, r.URL)
	p("  load        %d sessions, %s actions/s each, %.0f s, ramp %s (RLIMIT_NOFILE %d)",
		r.Sessions.Requested, trimFloat(r.Rate), r.DurationS, rampText(r.RampPerS), r.NoFileLimit)
	if r.Aborted != "" {
		p("  ABORTED     %s", r.Aborted)
	}
	s := r.Sessions
	p("  sessions    opened %d, ready %d, failed %d, live at measurement %d (opened in %.1f s; server says %.0f sessions, %.0f sockets)",
		s.Opened, s.Ready, s.Failed, s.Live, s.OpenS, s.Server, s.Sockets)
	if r.Rate > 0 {
		a, l, ls := r.Actions, r.Latency, r.LatencyFromSchedule
		p("  actions     sent %d of %d scheduled, answered %d, delayed %d, unanswered %d",
			a.Sent, a.Expected, a.Answered, a.Delayed, a.Unanswered)
		p("  latency     action→frame p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms, mean %.2f ms (%d samples)",
			l.P50ms, l.P95ms, l.P99ms, l.MaxMs, l.MeanMs, l.Samples)
		p("              from schedule p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms",
			ls.P50ms, ls.P95ms, ls.P99ms, ls.MaxMs)
	}
	m := r.Memory
	p("  memory      RSS %s → %s: %s per live session", mb(m.RSSBefore), mb(m.RSSAfter), kb(m.RSSPerSession))
	p("              %s %s → %s: %s per live session", m.HeapMetric, mb(m.HeapBefore), mb(m.HeapAfter), kb(m.HeapPerSession))
	p("              go_memstats_stack_inuse_bytes %s → %s: %s per live session", mb(m.StackBefore), mb(m.StackAfter), kb(m.StackPerSession))
	phase := "acting"
	if r.Rate == 0 {
		phase = "holding"
	}
	p("  server CPU  %.3f cores (%.2f s CPU over %.1f s %s)", r.CPU.Cores, r.CPU.Seconds, r.CPU.WallS, phase)
	if r.Rate > 0 {
		p("              %.3f ms of CPU per action sent", r.CPU.PerActionMs)
	}
	p("  frames      server sent %.0f, coalesced %.0f while %s; generator received %d in all",
		r.Frames.Sent, r.Frames.Coalesced, phase, r.Frames.Received)
	if r.Bare != nil {
		for _, line := range r.Bare.text() {
			p("  %s", line)
		}
	}
	g := r.Goroutines
	back := "back to baseline+10"
	if !g.BackToBaseline {
		back = "NOT back to baseline+10"
	}
	p("  goroutines  baseline %.0f, peak %.0f, sockets closed %.0f (after %.1f s), sessions expired %.0f (after %.1f s; %.0f sessions left): %s",
		g.Baseline, g.Peak, g.SocketsClosed, g.SocketsClosedS, g.SessionsExpired, g.SessionsExpiredS, g.SessionsLeft, back)
	if len(r.Errors) == 0 {
		p("  errors      none")
	} else {
		kinds := make([]string, 0, len(r.Errors))
		for k := range r.Errors {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		p("  errors")
		for _, k := range kinds {
			p("    %-28s %6d   e.g. %s", k, r.Errors[k], r.ErrorExamples[k])
		}
	}
	for _, n := range r.Notes {
		p("  note        %s", n)
	}
}

func mb(b float64) string {
	if math.IsNaN(b) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", b/(1<<20))
}

func kb(b float64) string {
	if math.IsNaN(b) || math.IsInf(b, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f KiB (%.0f B)", b/1024, b)
}

func rampText(r float64) string {
	if r == 0 {
		return "unlimited"
	}
	return trimFloat(r) + "/s"
}

func trimFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// bareFields are the bare hub's figures, for sanitize.
func (r *report) bareFields() []*float64 {
	if r.Bare == nil {
		return nil
	}
	b := r.Bare
	return []*float64{&b.RSSPerSocket, &b.HeapPerSocket, &b.StackPerSocket, &b.CPUCores, &b.RSSRatio, &b.CPUExtra}
}
