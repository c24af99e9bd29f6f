package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// bareReport is what the yardstick costs for the same number of sockets:
// a bare gorilla hub (cmd/barehub) holding them for the same time.
type bareReport struct {
	URL            string  `json:"url"`
	Sockets        int     `json:"sockets"`
	RSSPerSocket   float64 `json:"rss_per_socket_bytes"`
	HeapPerSocket  float64 `json:"heap_per_socket_bytes"`
	StackPerSocket float64 `json:"stack_per_socket_bytes"`
	CPUCores       float64 `json:"cpu_cores"`
	// RSSRatio is the demo's RSS per live session over the hub's per socket.
	RSSRatio float64 `json:"rss_ratio"`
	// CPUExtra is the demo's cores over the hub's while both hold the
	// sockets for the same time.
	CPUExtra float64 `json:"cpu_extra_cores"`
}

// measureBare opens as many sockets to the bare hub as sessions are live
// on the server, at the same ramp, holds them for the same duration, and
// measures what the hub costs; then closes them.
func (r *runner) measureBare(ctx context.Context, rep *report) {
	n := rep.Sessions.Live
	if n == 0 || ctx.Err() != nil {
		return
	}
	scr := &scraper{client: r.scr.client, url: r.cfg.Bare.JoinPath("/metrics").String()}
	base, err := scr.scrape(ctx)
	if err != nil {
		r.errs.add("bare_metrics", err)
		return
	}
	wsURL := *r.cfg.Bare
	wsURL.Scheme = "ws"
	wsURL.Path = "/ws"
	hdr := http.Header{"Origin": {origin(r.cfg.Bare)}}
	conns := make([]*websocket.Conn, 0, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var failed atomic.Int64
	sem := make(chan struct{}, openConcurrency)
	start := time.Now()
	for i := 0; i < n && ctx.Err() == nil; i++ {
		if r.cfg.Ramp > 0 {
			sleep(ctx, time.Until(start.Add(time.Duration(float64(i)/r.cfg.Ramp*float64(time.Second)))))
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			dctx, cancel := context.WithTimeout(ctx, openTimeout)
			defer cancel()
			c, _, err := r.dialer.DialContext(dctx, wsURL.String(), hdr)
			if err != nil {
				failed.Add(1)
				r.errs.add(classify("bare_dial", err), err)
				return
			}
			go func() { // read, so pings are answered as a browser does
				for {
					if _, _, err := c.ReadMessage(); err != nil {
						return
					}
				}
			}()
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r.logf("bare hub: %d sockets open (%d failed)", len(conns), failed.Load())
	sleep(ctx, r.cfg.Settle)
	held, _ := scr.scrape(ctx)
	t0 := time.Now()
	sleep(ctx, r.cfg.Duration)
	end, _ := scr.scrape(ctx)
	b := &bareReport{URL: r.cfg.Bare.String(), Sockets: len(conns)}
	if k := float64(len(conns)); k > 0 && len(held) > 0 {
		b.RSSPerSocket = (held.get("process_resident_memory_bytes") - base.get("process_resident_memory_bytes")) / k
		b.HeapPerSocket = (held.get("go_memstats_heap_inuse_bytes") - base.get("go_memstats_heap_inuse_bytes")) / k
		b.StackPerSocket = (held.get("go_memstats_stack_inuse_bytes") - base.get("go_memstats_stack_inuse_bytes")) / k
	}
	if wall := time.Since(t0).Seconds(); len(end) > 0 && wall > 0 {
		b.CPUCores = (end.get("process_cpu_seconds_total") - held.get("process_cpu_seconds_total")) / wall
	}
	if b.RSSPerSocket > 0 {
		b.RSSRatio = rep.Memory.RSSPerSession / b.RSSPerSocket
	}
	b.CPUExtra = rep.CPU.Cores - b.CPUCores
	rep.Bare = b
	for _, c := range conns {
		c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
			time.Now().Add(time.Second))
		c.Close()
	}
	r.logf("bare hub: %s per socket, %.3f cores", kb(b.RSSPerSocket), b.CPUCores)
}

// bareText is the bare hub's part of the text report.
func (b *bareReport) text() []string {
	return []string{
		fmt.Sprintf("bare hub    %d sockets at %s: RSS %s per socket (heap %s, stacks %s), %.3f cores",
			b.Sockets, b.URL, kb(b.RSSPerSocket), kb(b.HeapPerSocket), kb(b.StackPerSocket), b.CPUCores),
		fmt.Sprintf("ratio       demo/bare RSS %.2f×; demo CPU %+.3f cores over the bare hub", b.RSSRatio, b.CPUExtra),
	}
}
