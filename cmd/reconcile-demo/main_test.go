package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigRejectsBadValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"max sessions not a number", map[string]string{"MAX_SESSIONS": "many"}, "MAX_SESSIONS"},
		{"max sessions zero", map[string]string{"MAX_SESSIONS": "0"}, "MAX_SESSIONS"},
		{"per addr negative", map[string]string{"MAX_SESSIONS_PER_ADDR": "-3"}, "MAX_SESSIONS_PER_ADDR"},
		{"ttl without unit", map[string]string{"SESSION_TTL": "10"}, "SESSION_TTL"},
		{"unknown log format", map[string]string{"LOG_FORMAT": "xml"}, "LOG_FORMAT"},
		{"trusted proxy not an address", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, lb.example"}, "TRUSTED_PROXIES"},
		{"followers zero", map[string]string{"ROOM_MAX_FOLLOWERS": "0"}, "ROOM_MAX_FOLLOWERS"},
		{"rooms per addr a word", map[string]string{"MAX_ROOMS_PER_ADDR": "few"}, "MAX_ROOMS_PER_ADDR"},
		{"room grace without unit", map[string]string{"ROOM_GRACE": "30"}, "ROOM_GRACE"},
		{"room announce negative", map[string]string{"ROOM_ANNOUNCE": "-5s"}, "ROOM_ANNOUNCE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := config(env(tc.env), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("config(%v) error = %v, want one naming %s", tc.env, err, tc.want)
			}
		})
	}
}

func TestConfigDefaultsAndValues(t *testing.T) {
	cfg, addr, err := config(env(map[string]string{"MAX_SESSIONS": "7", "SESSION_TTL": "90s", "FRAME_ANCESTORS": "https://book.example"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if addr != "127.0.0.1:8080" || cfg.MaxSessions != 7 || cfg.SessionTTL != 90*time.Second || cfg.FrameAncestors != "https://book.example" {
		t.Fatalf("config = %+v, addr %q", cfg, addr)
	}
	cfg, _, err = config(env(map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7,fd00::/8",
		"ROOM_MAX_FOLLOWERS": "40", "MAX_ROOMS_PER_ADDR": "3", "NATS_URL": "nats://127.0.0.1:4222",
		"ROOM_ANNOUNCE": "1s", "ROOM_GRACE": "20s", "ROOM_RETRY": "250ms"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.7/32", "fd00::/8"}
	if len(cfg.TrustedProxies) != len(want) || cfg.RoomFollowers != 40 || cfg.RoomsPerAddr != 3 || cfg.NATSURL != "nats://127.0.0.1:4222" ||
		cfg.RoomAnnounce != time.Second || cfg.RoomGrace != 20*time.Second || cfg.RoomRetry != 250*time.Millisecond {
		t.Fatalf("config = %+v", cfg)
	}
	for i, p := range cfg.TrustedProxies {
		if p.String() != want[i] {
			t.Errorf("trusted proxy %d = %s, want %s", i, p, want[i])
		}
	}
}

func TestRunRefusesArguments(t *testing.T) {
	if err := run(context.Background(), []string{"--port", "1"}, env(nil), io.Discard); err == nil {
		t.Fatal("run with arguments: want an error")
	}
}

// TestGracefulStop is SIGTERM's path: cancelling run's context closes every
// socket with 1012 at once and run returns well within 10 s.
func TestGracefulStop(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, nil, env(map[string]string{"ADDR": addr}), io.Discard) }()
	t.Cleanup(cancel)

	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never became ready: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // polling a starting process, not waiting on a state we control
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws?demo=reconcile&lang=ja&sid=0123456789abcdef0123456789abcdef", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"action":"step"}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.ReadMessage(); err != nil {
		t.Fatalf("first frame: %v", err)
	}

	start := time.Now()
	cancel()
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	var closeErr *websocket.CloseError
	for {
		_, _, err := ws.ReadMessage()
		if err == nil {
			continue
		}
		if !errors.As(err, &closeErr) {
			t.Fatalf("socket ended with %v, want a close frame", err)
		}
		break
	}
	if closeErr.Code != websocket.CloseServiceRestart {
		t.Fatalf("close code %d, want 1012", closeErr.Code)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return within 10 s of the stop")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("stop took %v", d)
	}
}
