// Command roomlab is the test bed of the rooms' browser story
// (web/tests/rooms.spec.ts): a nats-server embedded as a library, two
// reconcile-demo replicas joined by it, and a reverse proxy in front of
// them, as a load balancer would be. The proxy routes each browser by its
// cookie replica=a|b and falls back to the live replica when that one is
// dead, so a page whose replica is killed reconnects to the other.
//
// Environment: ADDR (the proxy's address, default 127.0.0.1:8090), BIN
// (the replica binary, default bin/reconcile-demo); everything else (for
// example ROOM_ANNOUNCE) is passed on to the replicas.
//
// Routes beside the proxied site:
//
//	GET  /_lab/ready               200 when both replicas are ready
//	POST /_lab/kill?replica=a|b    SIGKILLs that replica's process, with no goodbye
//
// It stops (replicas and NATS with it) on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "roomlab:", err)
		os.Exit(1)
	}
}

// replica is one reconcile-demo process behind the proxy.
type replica struct {
	name string
	addr string
	cmd  *exec.Cmd
	mu   sync.Mutex
	dead bool
}

func (r *replica) alive() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.dead
}

func (r *replica) kill() {
	r.mu.Lock()
	r.dead = true // route away first, so no reconnect reaches it
	r.mu.Unlock()
	r.cmd.Process.Signal(syscall.SIGKILL)
}

func run(ctx context.Context, getenv func(string) string, stderr io.Writer) error {
	addr, bin := getenv("ADDR"), getenv("BIN")
	if addr == "" {
		addr = "127.0.0.1:8090"
	}
	if bin == "" {
		bin = "bin/reconcile-demo"
	}
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		return err
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		return errors.New("NATS did not start")
	}
	defer ns.Shutdown()

	replicas := map[string]*replica{}
	for _, name := range []string{"a", "b"} {
		r, err := start(name, bin, ns.ClientURL(), stderr)
		if err != nil {
			return err
		}
		defer r.cmd.Process.Kill()
		replicas[name] = r
	}

	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			r := pick(pr.In, replicas)
			pr.SetURL(&url.URL{Scheme: "http", Host: r.addr})
			pr.Out.Host = pr.In.Host // the replicas check a socket's Origin against its Host
		},
		ErrorLog: log.New(io.Discard, "", 0), // a killed replica's broken sockets are the point
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_lab/ready", func(w http.ResponseWriter, _ *http.Request) {
		for _, r := range replicas {
			resp, err := http.Get("http://" + r.addr + "/readyz")
			if err != nil {
				http.Error(w, r.name+" not ready", http.StatusServiceUnavailable)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				http.Error(w, r.name+" not ready", http.StatusServiceUnavailable)
				return
			}
		}
		w.Write([]byte("ready\n"))
	})
	mux.HandleFunc("POST /_lab/kill", func(w http.ResponseWriter, req *http.Request) {
		r := replicas[req.URL.Query().Get("replica")]
		if r == nil {
			http.Error(w, "replica=a|b", http.StatusBadRequest)
			return
		}
		r.kill()
		fmt.Fprintf(stderr, "roomlab: killed replica %s\n", r.name)
		w.Write([]byte("killed\n"))
	})
	mux.Handle("/", proxy)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(stderr, "roomlab: proxy on %s, NATS on %s\n", ln.Addr(), ns.ClientURL())
	<-ctx.Done()
	srv.Close()
	return nil
}

// pick routes a request by its replica cookie, to the other replica when
// that one is dead.
func pick(req *http.Request, replicas map[string]*replica) *replica {
	name := "a"
	if c, err := req.Cookie("replica"); err == nil && replicas[c.Value] != nil {
		name = c.Value
	}
	if r := replicas[name]; r.alive() {
		return r
	}
	for _, r := range replicas {
		if r.alive() {
			return r
		}
	}
	return replicas[name]
}

// start runs one replica on a free port, joined to NATS.
func start(name, bin, natsURL string, stderr io.Writer) (*replica, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ADDR="+addr, "NATS_URL="+natsURL)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start replica %s (%s): %w", name, bin, err)
	}
	r := &replica{name: name, addr: addr, cmd: cmd}
	go func() {
		cmd.Wait()
		r.mu.Lock()
		r.dead = true
		r.mu.Unlock()
	}()
	return r, nil
}
