package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// bus carries rooms between replicas over NATS (NATS_URL). Without it a
// room lives on its owner's process and only followers there can join.
//
// Subjects, per room code:
//
//	rooms.<code>.join           request/reply: a replica asks the owner for the demo as followers see it
//	rooms.<code>.frames.<lang>  the owner's frames for followers in a language, numbered
//	rooms.<code>.count          a replica's count of the room's followers, repeated while it has any
//	rooms.<code>.end            the owner ended the room
//
// Nothing on the bus carries the owner's session id: followers' frames are
// rendered without it, and the room code is all a replica knows.
type bus struct {
	nc      *nats.Conn
	replica string // this process, as owners count its followers
	log     *slog.Logger
}

// busTimeout bounds a join's round trip and a hand-over to a session.
const busTimeout = 2 * time.Second

// maxBusMessage bounds what the bus hands a session: a join reply carries a
// whole demo, a few tens of KB.
const maxBusMessage = 512 << 10

type busFrag struct {
	ID   string `json:"id"`
	HTML string `json:"html"`
}

type joinMsg struct {
	Replica string `json:"replica"`
	Lang    string `json:"lang"`
}

type joinReplyMsg struct {
	Kind    string    `json:"kind"`
	Section string    `json:"section"`
	Frags   []busFrag `json:"frags"`
	Seq     uint64    `json:"seq"`
}

type frameMsg struct {
	Seq   uint64    `json:"seq"`
	Frags []busFrag `json:"frags"`
}

type countMsg struct {
	Replica string `json:"replica"`
	N       int    `json:"n"`
}

// remoteJoin is a join from another replica, handed to the owner's session.
type remoteJoin struct {
	lang    ui.Lang
	replica string
	reply   chan sectionReply
}

// remoteCountMsg is another replica's count, handed to the owner's session.
type remoteCountMsg struct {
	replica string
	n       int
}

// dialBus connects to NATS. The client reconnects by itself; rooms opened
// meanwhile serve their local followers.
func dialBus(url string, log *slog.Logger) (*bus, error) {
	b := &bus{replica: newSID()[:12], log: log}
	nc, err := nats.Connect(url, nats.Name("demo server "+b.replica), nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { log.Warn("NATS disconnected", "err", err) }),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("NATS reconnected") }))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	b.nc = nc
	return b, nil
}

// close drains the connection: what was published is sent.
func (b *bus) close() {
	if b != nil {
		b.nc.Drain()
	}
}

func subject(code, what string) string { return "rooms." + code + "." + what }

// serveRoom makes the owner's session answer for its room on the bus. It
// returns the function that stops it and tells the other replicas the room
// ended.
func (b *bus) serveRoom(code string, s *session) func() {
	join, err := b.nc.Subscribe(subject(code, "join"), func(m *nats.Msg) {
		var req joinMsg
		if len(m.Data) > 4096 || json.Unmarshal(m.Data, &req) != nil || req.Replica == "" || len(req.Replica) > 64 {
			return
		}
		reply := make(chan sectionReply, 1)
		if !handTo(s, remoteJoin{lang: ui.ParseLang(req.Lang), replica: req.Replica, reply: reply}) {
			return
		}
		select {
		case rep := <-reply:
			if rep.err == nil {
				data, _ := json.Marshal(joinReplyMsg{Kind: rep.kind, Section: string(rep.section), Frags: busFrags(rep.frags), Seq: rep.seq})
				m.Respond(data)
			}
		case <-time.After(busTimeout):
		}
	})
	if err != nil {
		b.log.Error("serve room on NATS", "room", code, "err", err)
		return func() {}
	}
	count, err := b.nc.Subscribe(subject(code, "count"), func(m *nats.Msg) {
		var c countMsg
		if len(m.Data) > 4096 || json.Unmarshal(m.Data, &c) != nil || c.Replica == "" || len(c.Replica) > 64 || c.N < 0 || c.N > 1<<20 {
			return
		}
		handTo(s, remoteCountMsg{replica: c.Replica, n: c.N})
	})
	if err != nil {
		join.Unsubscribe()
		b.log.Error("serve room on NATS", "room", code, "err", err)
		return func() {}
	}
	return func() {
		join.Unsubscribe()
		count.Unsubscribe()
		b.nc.Publish(subject(code, "end"), nil)
	}
}

// handTo hands m to a session's goroutine, unless the session ends or is
// too busy to take it in time.
func handTo(s *session, m any) bool {
	select {
	case s.ctl <- m:
		return true
	case <-s.done:
	case <-time.After(busTimeout):
	}
	return false
}

func busFrags(frags []sockets.Frag) []busFrag {
	out := make([]busFrag, len(frags))
	for i, f := range frags {
		out[i] = busFrag{ID: f.ID, HTML: string(f.HTML)}
	}
	return out
}

func localFrags(in []busFrag) []sockets.Frag {
	out := make([]sockets.Frag, len(in))
	for i, f := range in {
		out[i] = sockets.Frag{ID: f.ID, HTML: []byte(f.HTML)}
	}
	return out
}

// publishFrame sends the followers of other replicas what changed.
func (b *bus) publishFrame(code string, l ui.Lang, seq uint64, frags []sockets.Frag) {
	data, err := json.Marshal(frameMsg{Seq: seq, Frags: busFrags(frags)})
	if err == nil {
		err = b.nc.Publish(subject(code, "frames."+string(l)), data)
	}
	if err != nil {
		b.log.Warn("publish a room's frame", "room", code, "err", err)
	}
}

// publishCount tells a room's owner how many of its followers this replica
// holds.
func (b *bus) publishCount(code string, n int) {
	data, _ := json.Marshal(countMsg{Replica: b.replica, N: n})
	b.nc.Publish(subject(code, "count"), data)
}

// join asks a room's owner, wherever it runs, for its demo as followers in
// l see it. errNoRoom: no replica answers for the code.
func (b *bus) join(ctx context.Context, code string, l ui.Lang) (sectionReply, error) {
	data, _ := json.Marshal(joinMsg{Replica: b.replica, Lang: string(l)})
	ctx, cancel := context.WithTimeout(ctx, busTimeout)
	defer cancel()
	m, err := b.nc.RequestWithContext(ctx, subject(code, "join"), data)
	if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) {
		return sectionReply{}, errNoRoom
	}
	if err != nil {
		return sectionReply{}, err
	}
	var rep joinReplyMsg
	if len(m.Data) > maxBusMessage || json.Unmarshal(m.Data, &rep) != nil || rep.Kind == "" {
		return sectionReply{}, errors.New("a malformed join reply")
	}
	return sectionReply{kind: rep.Kind, section: []byte(rep.Section), frags: localFrags(rep.Frags), seq: rep.Seq}, nil
}
