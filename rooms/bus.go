package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/reconcile-demo/reconcile-demo/sockets"
)

// bus carries rooms between replicas over NATS. Subjects, per room code:
//
//	rooms.<code>.announce       the owner's replica, every announce period: kind, tenure, seal
//	rooms.<code>.end            the owner ended the room (with its term)
//	rooms.<code>.who            request/reply: which room is this? answered by any replica that knows it
//	rooms.<code>.join           request/reply: a replica asks the owner for the whole demo in a language
//	rooms.<code>.frames.<lang>  the owner's frames for followers in a language, numbered per tenure
//	rooms.<code>.count          a replica's count of the room's followers, on change and every period
//
// Every replica listens to announce, end and who of every room (one
// wildcard subscription each), so it can check a claim and admit a
// follower of a room whose owner is away. Nothing on the bus carries an
// owner's session id or its secret: followers' frames are rendered
// without the id, and replicas know the secret only by its seal.
type bus struct {
	nc      *nats.Conn
	replica string // this process, as owners count its followers
	rooms   *Rooms
	subs    []*nats.Subscription
}

// maxBusMessage bounds what a replica takes from the bus: a join reply
// carries a whole demo, a few tens of KB.
const maxBusMessage = 512 << 10

// maxSmall bounds the small messages: announces, counts, questions.
const maxSmall = 4096

func newBus(nc *nats.Conn, r *Rooms) *bus { return &bus{nc: nc, replica: newEpoch(), rooms: r} }

func subject(code, what string) string { return "rooms." + code + "." + what }

// codeOfSubject reads the code of a room's subject.
func codeOfSubject(s string) (string, bool) {
	parts := strings.Split(s, ".")
	if len(parts) < 3 || parts[0] != "rooms" {
		return "", false
	}
	return ParseCode(parts[1])
}

type busFrag struct {
	ID   string `json:"id"`
	HTML string `json:"html"`
}

type announceMsg struct {
	Replica string `json:"replica"`
	Kind    string `json:"kind"`
	Seal    string `json:"seal"`
	Term    uint64 `json:"term"`
	Epoch   string `json:"epoch"`
	Ended   bool   `json:"ended,omitempty"` // in answers to who only
}

type endMsg struct {
	Term uint64 `json:"term"`
}

type countMsg struct {
	Replica string `json:"replica"`
	N       int    `json:"n"`
}

type joinMsg struct {
	Replica string `json:"replica"`
	Lang    string `json:"lang"`
	Section bool   `json:"section,omitempty"`
}

type joinReplyMsg struct {
	Kind    string    `json:"kind"`
	Section string    `json:"section,omitempty"`
	Frags   []busFrag `json:"frags"`
	Seq     uint64    `json:"seq"`
	Term    uint64    `json:"term"`
	Epoch   string    `json:"epoch"`
	Seal    string    `json:"seal"`
}

type frameMsg struct {
	Term  uint64    `json:"term"`
	Epoch string    `json:"epoch"`
	Seq   uint64    `json:"seq"`
	Frags []busFrag `json:"frags"`
}

// start listens to every room's announces, ends and questions, and to the
// connection's state.
func (b *bus) start() {
	post := func(m msg) { b.rooms.send(context.Background(), m) }
	b.nc.SetDisconnectErrHandler(func(_ *nats.Conn, err error) {
		b.rooms.cfg.Log.Warn("NATS disconnected", "err", err)
		post(busState{up: false})
	})
	b.nc.SetReconnectHandler(func(*nats.Conn) { post(busState{up: true}) })
	b.nc.SetErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrSlowConsumer) && sub != nil {
			post(slowConsumer{subject: sub.Subject})
			return
		}
		b.rooms.cfg.Log.Warn("NATS", "err", err)
	})
	for what, handle := range map[string]nats.MsgHandler{
		"announce": func(m *nats.Msg) {
			code, ok := codeOfSubject(m.Subject)
			var a announceMsg
			if !ok || len(m.Data) > maxSmall || json.Unmarshal(m.Data, &a) != nil {
				return
			}
			if rec, ok := a.record(); ok {
				post(announced{code: code, rec: rec})
			}
		},
		"end": func(m *nats.Msg) {
			code, ok := codeOfSubject(m.Subject)
			var e endMsg
			if ok && len(m.Data) <= maxSmall && json.Unmarshal(m.Data, &e) == nil {
				post(endHeard{code: code, term: e.Term})
			}
		},
		"who": func(m *nats.Msg) {
			code, ok := codeOfSubject(m.Subject)
			if !ok || m.Reply == "" {
				return
			}
			post(whoAsked{code: code, respond: func(rec *record) {
				data, _ := json.Marshal(announceMsg{Replica: rec.replica, Kind: rec.kind, Seal: sealText(rec),
					Term: rec.term, Epoch: rec.epoch, Ended: rec.ended})
				m.Respond(data)
			}})
		},
	} {
		sub, err := b.nc.Subscribe("rooms.*."+what, handle)
		if err != nil {
			b.rooms.cfg.Log.Error("listen to rooms on NATS", "subject", what, "err", err)
			continue
		}
		b.subs = append(b.subs, sub)
	}
}

// stop stops listening. The connection is the caller's to close.
func (b *bus) stop() {
	for _, s := range b.subs {
		s.Unsubscribe()
	}
	b.nc.SetDisconnectErrHandler(nil)
	b.nc.SetReconnectHandler(nil)
	b.nc.SetErrorHandler(nil)
}

func sealText(rec *record) string {
	if !rec.sealed {
		return ""
	}
	return rec.seal.String()
}

// record reads an announce (or an answer to who).
func (a announceMsg) record() (*record, bool) {
	rec := &record{kind: a.Kind, term: a.Term, epoch: a.Epoch, replica: a.Replica, ended: a.Ended}
	if a.Seal != "" {
		if rec.seal, rec.sealed = parseSeal(a.Seal); !rec.sealed {
			return nil, false
		}
	}
	if len(a.Kind) > 32 || len(a.Epoch) > 32 || len(a.Replica) > 64 {
		return nil, false
	}
	return rec, true
}

// serve answers the joins of a room owned here, and hears other replicas'
// counts of its followers.
func (b *bus) serve(code string) []*nats.Subscription {
	join, err := b.nc.Subscribe(subject(code, "join"), func(m *nats.Msg) {
		var req joinMsg
		if m.Reply == "" || len(m.Data) > maxSmall || json.Unmarshal(m.Data, &req) != nil || req.Replica == "" ||
			len(req.Replica) > 64 || len(req.Lang) > 8 {
			return
		}
		b.rooms.send(context.Background(), joinAsked{code: code, lang: req.Lang, replica: req.Replica, section: req.Section,
			respond: func(w Whole) {
				data, err := json.Marshal(joinReplyMsg{Kind: w.Kind, Section: string(w.Section), Frags: busFrags(w.Frags),
					Seq: w.Seq, Term: w.term, Epoch: w.epoch, Seal: w.seal.String()})
				if err == nil {
					m.Respond(data)
				}
			}})
	})
	if err != nil {
		b.rooms.cfg.Log.Error("serve a room on NATS", "room", code, "err", err)
		return nil
	}
	count, err := b.nc.Subscribe(subject(code, "count"), func(m *nats.Msg) {
		var c countMsg
		if len(m.Data) > maxSmall || json.Unmarshal(m.Data, &c) != nil || c.Replica == "" || len(c.Replica) > 64 ||
			c.N < 0 || c.N > 1<<20 {
			return
		}
		b.rooms.send(context.Background(), countHeard{code: code, replica: c.Replica, n: c.N})
	})
	if err != nil {
		join.Unsubscribe()
		b.rooms.cfg.Log.Error("serve a room on NATS", "room", code, "err", err)
		return nil
	}
	return []*nats.Subscription{join, count}
}

// subscribeFrames follows the owner's frames of a room in a language.
func (b *bus) subscribeFrames(code, lang string) *nats.Subscription {
	sub, err := b.nc.Subscribe(subject(code, "frames."+lang), func(m *nats.Msg) {
		var fm frameMsg
		if len(m.Data) > maxBusMessage || json.Unmarshal(m.Data, &fm) != nil || len(fm.Frags) > maxFrags {
			return
		}
		b.rooms.send(context.Background(), busFrame{code: code, lang: lang,
			frame: frame{term: fm.Term, epoch: fm.Epoch, seq: fm.Seq, frags: localFrags(fm.Frags)}})
	})
	if err != nil {
		b.rooms.cfg.Log.Warn("follow a room on NATS", "room", code, "err", err)
		return nil
	}
	return sub
}

func (b *bus) publish(subj string, v any) {
	data, err := json.Marshal(v)
	if err == nil {
		err = b.nc.Publish(subj, data)
	}
	if err != nil && !errors.Is(err, nats.ErrReconnectBufExceeded) {
		b.rooms.cfg.Log.Warn("publish on NATS", "subject", subj, "err", err)
	}
}

func (b *bus) publishAnnounce(code string, rec *record) {
	b.publish(subject(code, "announce"), announceMsg{Replica: rec.replica, Kind: rec.kind, Seal: sealText(rec),
		Term: rec.term, Epoch: rec.epoch})
}

func (b *bus) publishEnd(code string, term uint64) {
	b.publish(subject(code, "end"), endMsg{Term: term})
}

func (b *bus) publishCount(code string, n int) {
	b.publish(subject(code, "count"), countMsg{Replica: b.replica, N: n})
}

func (b *bus) publishFrame(code, lang string, fr frame) {
	b.publish(subject(code, "frames."+lang), frameMsg{Term: fr.term, Epoch: fr.epoch, Seq: fr.seq, Frags: busFrags(fr.frags)})
}

// join asks a room's owner, wherever it runs, for its whole demo in lang.
// ErrNoRoom: no owner answers.
func (b *bus) join(ctx context.Context, code, lang string, section bool) (Whole, error) {
	data, _ := json.Marshal(joinMsg{Replica: b.replica, Lang: lang, Section: section})
	ctx, cancel := context.WithTimeout(ctx, busTimeout)
	defer cancel()
	m, err := b.nc.RequestWithContext(ctx, subject(code, "join"), data)
	if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) {
		return Whole{}, ErrNoRoom
	}
	if err != nil {
		return Whole{}, err
	}
	var rep joinReplyMsg
	if len(m.Data) > maxBusMessage || json.Unmarshal(m.Data, &rep) != nil || rep.Kind == "" || len(rep.Frags) > maxFrags {
		return Whole{}, errors.New("a malformed join reply")
	}
	w := Whole{Kind: rep.Kind, Section: []byte(rep.Section), Frags: localFrags(rep.Frags), Seq: rep.Seq,
		term: rep.Term, epoch: rep.Epoch}
	w.seal, w.sealed = parseSeal(rep.Seal)
	return w, nil
}

// who asks the replicas what they know of a code. ErrNoRoom: nothing.
func (b *bus) who(ctx context.Context, code string) (*record, error) {
	ctx, cancel := context.WithTimeout(ctx, busTimeout)
	defer cancel()
	m, err := b.nc.RequestWithContext(ctx, subject(code, "who"), nil)
	if err != nil {
		return nil, ErrNoRoom
	}
	var a announceMsg
	if len(m.Data) > maxSmall || json.Unmarshal(m.Data, &a) != nil {
		return nil, ErrNoRoom
	}
	rec, ok := a.record()
	if !ok {
		return nil, ErrNoRoom
	}
	return rec, nil
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
