// Command barehub is the yardstick of `make capacity`: a bare gorilla hub,
// as gorilla's chat example writes one — a hub goroutine owning the set of
// clients, one reader and one writer goroutine per socket — with the demo
// server's buffer sizes (1 KB read, 4 KB pooled write). It serves no page
// and no demo, so what it costs per open socket is what the transport
// alone costs; loadgen -bare opens as many sockets to it as to the server
// and prints the ratio.
//
// It listens on ADDR (loopback only) and serves /ws, /readyz and /metrics
// (Go and process collectors: RSS, CPU, heap, stacks, goroutines).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The chat example's timing, as the demo server uses it.
const (
	writeWait  = 10 * time.Second
	pongWait   = 60 * time.Second
	pingPeriod = pongWait / 2
	maxMessage = 8 << 10
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv("ADDR")); err != nil {
		fmt.Fprintln(os.Stderr, "barehub:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addr string) error {
	if addr == "" {
		addr = "127.0.0.1:8098"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("ADDR %q: a yardstick listens on loopback only", addr)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	h := newHub()
	go h.run(ctx)
	up := websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 4096, WriteBufferPool: &sync.Pool{},
		CheckOrigin: loopbackOrigin}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		c := &client{hub: h, ws: ws, send: make(chan []byte, 1)}
		h.register <- c
		go c.writePump()
		go c.readPump()
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(echoPage))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ready\n")) })
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	slog.Info("bare hub", "addr", addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// hub owns the set of clients, as the chat example's hub does.
type hub struct {
	clients    map[*client]bool
	register   chan *client
	unregister chan *client
}

func newHub() *hub {
	return &hub{clients: map[*client]bool{}, register: make(chan *client), unregister: make(chan *client)}
}

func (h *hub) run(ctx context.Context) {
	for {
		select {
		case c := <-h.register:
			h.clients[c] = true
		case c := <-h.unregister:
			if h.clients[c] {
				delete(h.clients, c)
				close(c.send)
			}
		case <-ctx.Done():
			return
		}
	}
}

// client is one socket: one reader, one writer.
type client struct {
	hub  *hub
	ws   *websocket.Conn
	send chan []byte
}

func (c *client) readPump() {
	defer func() {
		c.hub.unregister <- c
		c.ws.Close()
	}()
	c.ws.SetReadLimit(maxMessage)
	c.ws.SetReadDeadline(time.Now().Add(pongWait))
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(pongWait)) })
	for {
		if _, msg, err := c.ws.ReadMessage(); err != nil {
			return
		} else {
			select { // echo, never blocking the reader
			case c.send <- msg:
			default:
			}
		}
	}
}

func (c *client) writePump() {
	ticker := time.NewTicker(pingPeriod)
	defer func() {
		ticker.Stop()
		c.ws.Close()
	}()
	for {
		select {
		case msg, ok := <-c.send:
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if !ok {
				c.ws.WriteMessage(websocket.CloseMessage, []byte{})
				return
			}
			if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				return
			}
		case <-ticker.C:
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
		}
	}
}

// loopbackOrigin accepts a socket from a page on a loopback host, whatever
// its port: the page benchmark (web/bench) opens it from the demo server's
// origin and from this hub's own page.
func loopbackOrigin(r *http.Request) bool {
	u, err := url.Parse(r.Header.Get("Origin"))
	if err != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())
}

// echoPage is the page benchmark's yardstick in the browser: a button whose
// click sends a message on a bare WebSocket, and the echo written into the
// DOM, timed as the demo pages are (window.__bench).
const echoPage = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>echo</title>
<link rel="icon" href="data:,"></head><body>
<button id="b" type="button">send</button> <output id="o" data-value="0">0</output>
<script>
var ws = new WebSocket("ws://" + location.host + "/ws"), n = 0, t0 = 0;
window.__bench = { samples: [], open: false };
ws.onopen = function () { window.__bench.open = true; };
document.getElementById("b").addEventListener("click", function () {
  t0 = performance.now(); ws.send(String(++n));
});
ws.onmessage = function (e) {
  var o = document.getElementById("o");
  o.textContent = e.data; o.setAttribute("data-value", e.data);
  window.__bench.samples.push({ total: performance.now() - t0 });
};
</script></body></html>`
