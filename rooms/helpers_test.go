package rooms

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/reconcile-demo/reconcile-demo/sockets"
)

// waitLong bounds every wait for something that happens at once.
const waitLong = 5 * time.Second

// fast are timings that let a test see owners go and graces end in
// fractions of a second.
func fast(cfg Config) Config {
	cfg.Announce, cfg.Retry, cfg.Grace = 50*time.Millisecond, 20*time.Millisecond, 400*time.Millisecond
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Ended = func(kind, code, lang string) sockets.Frag {
		return sockets.Frag{ID: "room-banner", HTML: []byte(`<div id="room-banner" data-ended="true">` + kind + " " + code + "</div>")}
	}
	return cfg
}

// start runs rooms until the test ends.
func start(t *testing.T, cfg Config) *Rooms {
	t.Helper()
	r := New(fast(cfg))
	ctx, cancel := context.WithCancel(context.Background())
	go r.Run(ctx)
	<-r.started
	t.Cleanup(func() { cancel(); <-r.Done() })
	return r
}

// teacher is a session in miniature: its goroutine owns a demo of
// fragments, answers the rooms' requests for the whole of it, and
// publishes each change as a numbered frame, as the server's session does.
type teacher struct {
	t      *testing.T
	kind   string
	acts   chan func()
	wholes chan WholeReq
	news   chan News
	asked  chan string // the language of every whole asked

	// Owned by run.
	order []string
	html  map[string]string
	seq   map[string]uint64
	lease *Lease
}

func newTeacher(t *testing.T, kind string) *teacher {
	o := &teacher{t: t, kind: kind, acts: make(chan func()), wholes: make(chan WholeReq, 64), news: make(chan News, 1024),
		asked: make(chan string, 64), html: map[string]string{}, seq: map[string]uint64{}}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for {
			select {
			case f := <-o.acts:
				f()
			case req := <-o.wholes:
				if _, ok := o.seq[req.Lang]; !ok {
					o.seq[req.Lang] = 0
				}
				w := Whole{Kind: o.kind, Seq: o.seq[req.Lang], Frags: o.frags(req.Lang, o.order)}
				if req.Section {
					w.Section = []byte("<section>" + o.kind + "</section>")
				}
				req.Reply <- w
				select {
				case o.asked <- req.Lang:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	return o
}

func (o *teacher) Whole(req WholeReq) { o.wholes <- req }
func (o *teacher) Heard(n News)       { o.news <- n }

// do runs f on the owner's goroutine and waits for it.
func (o *teacher) do(f func()) {
	done := make(chan struct{})
	o.acts <- func() { f(); close(done) }
	<-done
}

func (o *teacher) frags(lang string, ids []string) []sockets.Frag {
	var out []sockets.Frag
	for _, id := range ids {
		out = append(out, sockets.Frag{ID: id, HTML: []byte(fmt.Sprintf(`<p id="%s">%s %s</p>`, id, lang, o.html[id]))})
	}
	return out
}

// set changes one fragment and publishes it in every language asked for.
func (o *teacher) set(id, text string) {
	o.do(func() {
		if _, ok := o.html[id]; !ok {
			o.order = append(o.order, id)
		}
		o.html[id] = text
		if o.lease == nil {
			return
		}
		for lang := range o.seq {
			o.seq[lang]++
			o.lease.Publish(lang, o.seq[lang], o.frags(lang, []string{id}))
		}
	})
}

func (o *teacher) hold(l *Lease) { o.do(func() { o.lease = l }) }

// hear waits for news that satisfies ok.
func (o *teacher) hear(what string, ok func(News) bool) News {
	o.t.Helper()
	deadline := time.After(waitLong)
	for {
		select {
		case n := <-o.news:
			if ok(n) {
				return n
			}
		case <-deadline:
			o.t.Fatalf("the owner did not hear %s", what)
		}
	}
}

// reader is a follower's socket without a socket: it keeps everything it
// was sent.
type reader struct {
	t    *testing.T
	conn *sockets.Conn
	mu   sync.Mutex
	seen strings.Builder
}

func newReader(t *testing.T) *reader { return &reader{t: t, conn: sockets.Detached()} }

// read takes what is pending and returns all it was ever sent.
func (r *reader) read() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen.Write(r.conn.Take())
	return r.seen.String()
}

// waitFor polls until what the follower was sent contains s.
func (r *reader) waitFor(s string) {
	r.t.Helper()
	eventually(r.t, waitLong, "the follower sees "+s, func() bool { return strings.Contains(r.read(), s) })
}

func (r *reader) closed() bool {
	select {
	case <-r.conn.Closed():
		return true
	default:
		return false
	}
}

func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// freePort returns a TCP port free on loopback now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startNATS runs nats-server, as a library, on port.
func startNATS(t *testing.T, port int) *natsserver.Server {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(waitLong) {
		t.Fatal("NATS did not start")
	}
	t.Cleanup(ns.Shutdown)
	return ns
}

// dial connects to NATS as a replica does, reconnecting for ever.
func dial(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// counter counts, for Metrics.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) get(label string) int { c.mu.Lock(); defer c.mu.Unlock(); return c.n[label] }

func (c *counter) label(l string) sockets.Counter { return labelled{c, l} }

type labelled struct {
	c *counter
	l string
}

func (l labelled) Inc() {
	l.c.mu.Lock()
	defer l.c.mu.Unlock()
	if l.c.n == nil {
		l.c.n = map[string]int{}
	}
	l.c.n[l.l]++
}
