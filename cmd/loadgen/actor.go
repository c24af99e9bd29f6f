package main

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/gorilla/websocket"
)

// answerTimeout is how long an action may wait for its frame before it is
// given up as unanswered (a refused action, for instance, never shows).
const answerTimeout = 10 * time.Second

// maxSendRate caps a session's sends per second while it catches up after
// a slow answer, below the server's 20 actions/s per socket.
const maxSendRate = 16

// act sends actions at rate per second until ctx ends, cycling through the
// demo's load steps so every action changes the state and produces a
// frame. The schedule is jittered (each gap uniform in [0.5, 1.5] of the
// mean, from a random phase, so sessions do not act in lockstep) and fixed
// in advance. At most one action is in flight: one that falls due while
// the previous is unanswered is sent as soon as that answer arrives (at
// most maxSendRate a second), and its latency is also measured from when
// it fell due, so a slow server shows as latency, not as a lower rate
// (no coordinated omission).
func (c *client) act(ctx context.Context) {
	interval := time.Duration(float64(time.Second) / c.r.cfg.Rate)
	spacing := min(time.Second/maxSendRate, interval/2)
	due := time.Now().Add(time.Duration(rand.Float64() * float64(interval)))
	var last time.Time
	step := 0
	for {
		if !c.sleepUntil(ctx, due) {
			return
		}
		if !c.waitAnswered(ctx) {
			return
		}
		if !c.sleepUntil(ctx, last.Add(spacing)) {
			return
		}
		i := step
		step = (step + 1) % len(c.r.shape.steps)
		now := time.Now()
		if now.Sub(due) > spacing {
			c.r.delayed.Add(1)
		}
		c.mu.Lock()
		c.inflight = &pendingAction{step: i, due: due, sent: now}
		c.mu.Unlock()
		c.conn.SetWriteDeadline(now.Add(10 * time.Second))
		if err := c.conn.WriteMessage(websocket.TextMessage, c.r.shape.actionMessage(i)); err != nil {
			if !c.closing.Load() && !c.dead.Load() {
				c.r.errs.add(classify("write", err), err)
			}
			return
		}
		c.r.actionsSent.Add(1)
		last = now
		due = due.Add(time.Duration(float64(interval) * (0.5 + rand.Float64())))
	}
}

// sleepUntil waits until t; false if the phase or the socket ended first.
func (c *client) sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
	case <-c.done:
	}
	return false
}

// waitAnswered waits until no action is in flight, giving the one in
// flight up as unanswered after answerTimeout; false if the phase or the
// socket ended first.
func (c *client) waitAnswered(ctx context.Context) bool {
	for {
		c.mu.Lock()
		p := c.inflight
		c.mu.Unlock()
		if p == nil {
			return true
		}
		left := time.Until(p.sent.Add(answerTimeout))
		if left <= 0 {
			c.mu.Lock()
			if c.inflight == p {
				c.inflight = nil
				c.r.unanswered.Add(1)
			}
			c.mu.Unlock()
			continue
		}
		timer := time.NewTimer(left)
		select {
		case <-c.freed:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-c.done:
			timer.Stop()
			return false
		}
		timer.Stop()
	}
}

// pendingCount is 1 while an action waits for its frame, else 0.
func (c *client) pendingCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight != nil {
		return 1
	}
	return 0
}
