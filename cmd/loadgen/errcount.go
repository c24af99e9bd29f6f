package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/gorilla/websocket"
)

// errCounts counts failures by kind, keeping the first message of each kind
// as an example, so one bad socket among thousands is reported, not fatal.
type errCounts struct {
	mu       sync.Mutex
	counts   map[string]int
	examples map[string]string
}

func newErrCounts() *errCounts {
	return &errCounts{counts: map[string]int{}, examples: map[string]string{}}
}

func (e *errCounts) add(kind string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.counts[kind]++
	if _, ok := e.examples[kind]; !ok && err != nil {
		e.examples[kind] = err.Error()
	}
}

func (e *errCounts) snapshot() (map[string]int, map[string]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := make(map[string]int, len(e.counts))
	x := make(map[string]string, len(e.examples))
	for k, v := range e.counts {
		c[k] = v
	}
	for k, v := range e.examples {
		x[k] = v
	}
	return c, x
}

// classify names the kind of a network or WebSocket error: close_<code>
// for a close frame from the server, else prefix_<cause>.
func classify(prefix string, err error) string {
	var ce *websocket.CloseError
	var ne net.Error
	switch {
	case errors.As(err, &ce):
		return fmt.Sprintf("close_%d", ce.Code)
	case errors.Is(err, errNotLoopback):
		return prefix + "_not_loopback"
	case errors.Is(err, syscall.ECONNREFUSED):
		return prefix + "_refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return prefix + "_reset"
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return prefix + "_too_many_open_files"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return prefix + "_no_local_ports"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return prefix + "_timeout"
	case errors.Is(err, context.Canceled):
		return prefix + "_canceled"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return prefix + "_eof"
	}
	return prefix + "_error"
}
