package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/reconcile-demo/reconcile-demo/server"
)

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestPercentile(t *testing.T) {
	ten := []time.Duration{ms(1), ms(2), ms(3), ms(4), ms(5), ms(6), ms(7), ms(8), ms(9), ms(10)}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(float64(i + 1))
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample, p50", []time.Duration{ms(7)}, 50, ms(7)},
		{"one sample, p99", []time.Duration{ms(7)}, 99, ms(7)},
		{"two samples, p50 is the lower", []time.Duration{ms(1), ms(2)}, 50, ms(1)},
		{"two samples, p51 is the upper", []time.Duration{ms(1), ms(2)}, 51, ms(2)},
		{"ten, p50", ten, 50, ms(5)},
		{"ten, p95 rounds up", ten, 95, ms(10)},
		{"ten, p90", ten, 90, ms(9)},
		{"ten, p100 is the max", ten, 100, ms(10)},
		{"ten, p0 is the min", ten, 0, ms(1)},
		{"ten, p1 is the min", ten, 1, ms(1)},
		{"hundred, p50", hundred, 50, ms(50)},
		{"hundred, p95", hundred, 95, ms(95)},
		{"hundred, p99", hundred, 99, ms(99)},
		{"hundred, p99.5", hundred, 99.5, ms(100)},
		{"over 100 is the max", ten, 150, ms(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%v, %g) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	// Unsorted input; summarize sorts it.
	s := summarize([]time.Duration{ms(4), ms(1), ms(3), ms(2)})
	want := latencySummary{Samples: 4, P50ms: 2, P95ms: 4, P99ms: 4, MaxMs: 4, MeanMs: 2.5}
	if s != want {
		t.Errorf("summarize = %+v, want %+v", s, want)
	}
	if s := summarize(nil); s != (latencySummary{}) {
		t.Errorf("summarize(nil) = %+v, want zero", s)
	}
}

func TestRecorderKeepsExactCountAndMax(t *testing.T) {
	var r recorder
	for i := 1; i <= 1000; i++ {
		r.add(ms(float64(i)))
	}
	s := r.summary()
	if s.Samples != 1000 || s.MaxMs != 1000 || s.P50ms != 500 || s.P99ms != 990 {
		t.Errorf("summary = %+v", s)
	}
}

func TestParseMetrics(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    metrics
		wantErr string
	}{
		{"empty", "", metrics{}, ""},
		{"comments and blank lines", "# HELP go_goroutines Number.\n# TYPE go_goroutines gauge\n\ngo_goroutines 12\n",
			metrics{"go_goroutines": 12}, ""},
		{"scientific notation", "process_resident_memory_bytes 1.4082048e+07\n",
			metrics{"process_resident_memory_bytes": 14082048}, ""},
		{"several series", "reconcile_demo_sessions 3\nreconcile_demo_sockets 2\nprocess_cpu_seconds_total 0.25\n",
			metrics{"reconcile_demo_sessions": 3, "reconcile_demo_sockets": 2, "process_cpu_seconds_total": 0.25}, ""},
		{"labels kept in the key", `reconcile_demo_actions_total{action="set-replicas",demo="reconcile"} 7` + "\n",
			metrics{`reconcile_demo_actions_total{action="set-replicas",demo="reconcile"}`: 7}, ""},
		{"label values with spaces, braces and escaped quotes",
			`go_info{version="go 1.26 {x} \"y\""} 1` + "\n",
			metrics{`go_info{version="go 1.26 {x} \"y\""}`: 1}, ""},
		{"empty label set is the bare name", "up{} 1\n", metrics{"up": 1}, ""},
		{"timestamp ignored", "go_goroutines 12 1700000000000\n", metrics{"go_goroutines": 12}, ""},
		{"leading and trailing spaces, CRLF", "  go_goroutines   12  \r\n", metrics{"go_goroutines": 12}, ""},
		{"special values", "a NaN\nb +Inf\nc -Inf\n", metrics{"a": math.NaN(), "b": math.Inf(1), "c": math.Inf(-1)}, ""},
		{"last sample of a series wins", "x 1\nx 2\n", metrics{"x": 2}, ""},
		{"no value", "go_goroutines\n", nil, "line 1"},
		{"bad value", "go_goroutines twelve\n", nil, "line 1"},
		{"too many fields", "# c\ngo_goroutines 1 2 3\n", nil, "line 2"},
		{"unterminated labels", `x{a="b} 1` + "\n", nil, "unterminated"},
		{"no name", "{a=\"b\"} 1\n", nil, "no metric name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMetrics(strings.NewReader(tt.text))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, w := range tt.want {
				g, ok := got[k]
				if !ok || !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
					t.Errorf("%s = %v (present %v), want %v", k, g, ok, w)
				}
			}
		})
	}
}

func TestMetricsGetAndFirst(t *testing.T) {
	m := metrics{"go_memstats_heap_alloc_bytes": 5}
	if v := m.get("absent"); !math.IsNaN(v) {
		t.Errorf("get(absent) = %v, want NaN", v)
	}
	v, name := m.first("go_memstats_heap_inuse_bytes", "go_memstats_heap_alloc_bytes")
	if v != 5 || name != "go_memstats_heap_alloc_bytes" {
		t.Errorf("first = %v, %q", v, name)
	}
}

func TestCheckLoopbackURL(t *testing.T) {
	tests := []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8080", true},
		{"http://127.0.0.1", true},
		{"http://127.1.2.3:9000/some/path?q=1", true},
		{"http://127.255.255.254:1", true},
		{"http://[::1]:8080", true},
		{"https://[::1]", true},
		{"http://localhost:8080", true},
		{"http://LocalHost:8080", true},
		{"http://[::ffff:127.0.0.1]:8080", true}, // IPv4-mapped loopback
		{"http://128.0.0.1:8080", false},
		{"http://10.0.0.1:8080", false},
		{"http://192.168.1.10", false},
		{"http://0.0.0.0:8080", false},
		{"http://[::]:8080", false},
		{"http://[fe80::1%25lo]:8080", false},
		{"http://example.com", false},
		{"http://localhost.example.com", false},
		{"http://127.0.0.1.nip.io", false},
		{"http://2130706433", false}, // 127.0.0.1 as a number: resolved by DNS, not parsed as IP
		{"http://user:pw@127.0.0.1", false},
		{"ftp://127.0.0.1", false},
		{"ws://127.0.0.1:8080", false},
		{"127.0.0.1:8080", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u, err := checkLoopbackURL(tt.url)
			if tt.ok != (err == nil) {
				t.Fatalf("checkLoopbackURL(%q) err = %v, want ok=%v", tt.url, err, tt.ok)
			}
			if err == nil && (u.Path != "" || u.RawQuery != "") {
				t.Errorf("base URL keeps path or query: %v", u)
			}
		})
	}
}

func TestLoopbackDialerRefusesOtherHosts(t *testing.T) {
	d := loopbackDialer()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// TEST-NET-1: refused by Control before any packet is sent.
	if _, err := d.DialContext(ctx, "tcp", "192.0.2.1:80"); !errors.Is(err, errNotLoopback) {
		t.Fatalf("dial 192.0.2.1: err = %v, want errNotLoopback", err)
	}
}

func TestRunRefusesNonLoopbackURL(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"-url", "http://192.0.2.1:8080"}, func(string) string { return "" }, &out)
	if err == nil || !errors.Is(err, errNotLoopback) {
		t.Fatalf("run = %v, want a loopback refusal", err)
	}
	err = run(context.Background(), nil, func(k string) string {
		if k == "LOADGEN_URL" {
			return "http://example.com"
		}
		return ""
	}, &out)
	if !errors.Is(err, errNotLoopback) {
		t.Fatalf("run with LOADGEN_URL=example.com = %v, want a loopback refusal", err)
	}
}

func TestParseConfigBounds(t *testing.T) {
	for _, args := range [][]string{
		{"-sessions", "0"}, {"-sessions", "1000000"}, {"-rate", "-1"}, {"-rate", "1000"},
		{"-duration", "0s"}, {"-duration", "10m"}, {"-timeout", "0s"}, {"-timeout", "100h"},
		{"-demo", "other"}, {"-ramp", "fast"}, {"-ramp", "5/h"}, {"extra"},
	} {
		if _, err := parseConfig(args, func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("parseConfig(%q) accepted", args)
		}
	}
	cfg, err := parseConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Sessions != 100 || cfg.Rate != 1 || cfg.Duration != 30*time.Second || cfg.Timeout != 5*time.Minute ||
		cfg.Demo != "reconcile" || cfg.URL.String() != "http://127.0.0.1:8080" || cfg.Ramp != 200 {
		t.Errorf("defaults = %+v", cfg)
	}
}

func TestParseRamp(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"200/s", 200, true}, {"200", 200, true}, {"0", 0, true}, {"600/m", 10, true}, {"2.5/s", 2.5, true},
		{"-1/s", 0, false}, {"x", 0, false}, {"10/h", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		got, err := parseRamp(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseRamp(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// TestEveryKindHasAShape: the generator can drive every registered demo,
// and each step's answer is what a frame shows once the step is done.
func TestEveryKindHasAShape(t *testing.T) {
	for _, name := range kindNames() {
		sh, ok := shapeOf(name)
		if !ok {
			t.Errorf("%s: no shape (Kind.Load has fewer than two steps)", name)
			continue
		}
		for i := range sh.steps {
			if !sh.answers(i, []byte("<p>"+sh.steps[i].Expect+"</p>")) || sh.answers(i, []byte("<p></p>")) {
				t.Errorf("%s step %d: answers() does not match its Expect", name, i)
			}
		}
	}
	if _, ok := shapeOf("nope"); ok {
		t.Error("an unknown kind has a shape")
	}
	echo, ok := shapeOf(echoKind)
	for i := range echo.steps {
		if msg := echo.actionMessage(i); !ok || !echo.answers(i, msg) || echo.answers(1-i, msg) {
			t.Errorf("echo step %d: its echo %s does not answer it alone", i, msg)
		}
	}
}

func TestShownError(t *testing.T) {
	rc, _ := shapeOf("reconcile")
	tests := []struct {
		frame string
		want  bool
	}{
		{`<div id="rc-error" class="error" data-testid="error" data-value="true" role="alert"><strong>x</strong></div>`, true},
		{`<div id="rc-error" class="error" data-testid="error" data-value="" role="alert" hidden></div>`, false},
		{`<div id="rc-clock">00:01.0</div>`, false},
		{`<div id="rc-error" data-value=""></div><span data-value="true"></span>`, false},
	}
	for _, tt := range tests {
		if got := rc.shownError([]byte(tt.frame)); got != tt.want {
			t.Errorf("shownError(%s) = %v, want %v", tt.frame, got, tt.want)
		}
	}
}

func TestActionMessage(t *testing.T) {
	var m map[string]any
	rc, _ := shapeOf("reconcile")
	if err := json.Unmarshal(rc.actionMessage(0), &m); err != nil {
		t.Fatal(err)
	}
	if m["action"] != "set-replicas" || m["replicas"] != "4" {
		t.Errorf("message = %v", m)
	}
	if h, ok := m["HEADERS"].(map[string]any); !ok || h["HX-Request"] != "true" {
		t.Errorf("HEADERS = %v", m["HEADERS"])
	}
}

func TestParsePage(t *testing.T) {
	page, _ := url.Parse("http://127.0.0.1:8099/reconcile")
	sid := "0123456789abcdef0123456789abcdef"
	body := `<section data-sid="" hx-ext="ws" ws-connect="/ws?demo=reconcile&amp;lang=ja&amp;sid="></section>` +
		`<p id="sids" hidden>` + sid + ` ffffffffffffffffffffffffffffffff`
	ps, err := parsePage([]byte(body), page)
	if err != nil {
		t.Fatal(err)
	}
	want := "ws://127.0.0.1:8099/ws?demo=reconcile&lang=ja&sid=" + sid
	if ps.SID != sid || ps.WSURL != want {
		t.Errorf("parsePage = %+v, want sid %s url %s", ps, sid, want)
	}
	if origin(page) != "http://127.0.0.1:8099" {
		t.Errorf("origin = %s", origin(page))
	}
	if _, err := parsePage([]byte("<html></html>"), page); err == nil {
		t.Error("page without a session accepted")
	}
	other := strings.Replace(body, "&amp;sid=", "&amp;sid=ffffffffffffffffffffffffffffffff", 1)
	if _, err := parsePage([]byte(other), page); err == nil {
		t.Error("ws-connect naming another session accepted")
	}
}

// TestRunEndToEnd loads an in-process server with 5 sessions acting 5
// times a second for 2 s, and checks the report.
func TestRunEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	srv, err := server.New(server.Config{SessionTTL: 300 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { srv.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()

	var out bytes.Buffer
	args := []string{"-url", ts.URL, "-sessions", "5", "-rate", "5", "-duration", "2s", "-ramp", "0",
		"-settle", "100ms", "-drain-wait", "10s", "-timeout", "1m", "-json"}
	if err := run(context.Background(), args, func(string) string { return "" }, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	var rep report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out.String())
	}
	t.Logf("report:\n%s", out.String())
	if rep.Sessions.Opened != 5 || rep.Sessions.Ready != 5 || rep.Sessions.Failed != 0 {
		t.Errorf("sessions = %+v, want 5 opened and ready, 0 failed", rep.Sessions)
	}
	if len(rep.Errors) != 0 {
		t.Errorf("errors = %v (%v), want none", rep.Errors, rep.ErrorExamples)
	}
	if a := rep.Actions; a.Sent == 0 || a.Answered != a.Sent || a.Unanswered != 0 {
		t.Errorf("actions = %+v, want some sent, all answered", a)
	}
	l := rep.Latency
	if l.Samples == 0 || l.P50ms <= 0 || l.P95ms <= 0 || l.P99ms <= 0 || l.MaxMs <= 0 {
		t.Errorf("latency = %+v, want every figure > 0", l)
	}
	if !(l.P50ms <= l.P95ms && l.P95ms <= l.P99ms && l.P99ms <= l.MaxMs) {
		t.Errorf("latency percentiles out of order: %+v", l)
	}
	if ls := rep.LatencyFromSchedule; ls.Samples != l.Samples || ls.P50ms < l.P50ms {
		t.Errorf("latency from schedule = %+v, want as many samples, no shorter than %+v", ls, l)
	}
	if rep.Frames.Sent <= 0 || rep.Frames.Received <= 0 {
		t.Errorf("frames = %+v, want some", rep.Frames)
	}
	if rep.Memory.RSSBefore <= 0 || rep.Goroutines.Baseline <= 0 || rep.Goroutines.Peak < rep.Goroutines.Baseline {
		t.Errorf("metrics not scraped: memory %+v goroutines %+v", rep.Memory, rep.Goroutines)
	}
	if rep.Goroutines.SessionsLeft != 0 {
		t.Errorf("%v sessions left after the TTL", rep.Goroutines.SessionsLeft)
	}
}

// TestRunEchoEndToEnd: -demo echo drives an echoing hub as the demos are
// driven: no page, a socket at /ws, each action answered by its echo.
func TestRunEchoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var echoed atomic.Int64
	mux := http.NewServeMux()
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		go func() {
			defer ws.Close()
			for {
				mt, msg, err := ws.ReadMessage()
				if err != nil || ws.WriteMessage(mt, msg) != nil {
					return
				}
				echoed.Add(1)
			}
		}()
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	var out bytes.Buffer
	args := []string{"-url", ts.URL, "-demo", "echo", "-sessions", "4", "-rate", "5", "-duration", "1s", "-ramp", "0",
		"-settle", "50ms", "-timeout", "1m", "-json"}
	if err := run(context.Background(), args, func(string) string { return "" }, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	var rep report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out.String())
	}
	if rep.Sessions.Opened != 4 || rep.Sessions.Ready != 4 {
		t.Errorf("sessions = %+v, want 4 opened and ready", rep.Sessions)
	}
	if a := rep.Actions; a.Sent == 0 || a.Answered != a.Sent || a.Sent != echoed.Load() {
		t.Errorf("actions = %+v, echoed %d: want some sent, each echoed and answered", a, echoed.Load())
	}
	if len(rep.Errors) != 0 || rep.LatencyFromSchedule.Samples == 0 || rep.CPU.Seconds < 0 {
		t.Errorf("errors %v, latency %+v, cpu %+v", rep.Errors, rep.LatencyFromSchedule, rep.CPU)
	}
}
