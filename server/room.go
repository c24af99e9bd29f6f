package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"hash/maphash"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	qr "github.com/piglig/go-qr"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// A room lets a class follow one session's demo: its owner (the teacher)
// opens it and gets a short code; followers (the students) open
// /room/<code> and see the demo live, read-only, rendered for them without
// the owner's session id. The owner's session goroutine owns the room like
// everything else of its demo: it renders the followers' frames, one set
// per language, and fans them out in memory, and (with NATS) publishes them
// for followers on other replicas (bus.go, mirror.go).

// codeAlphabet has no look-alikes: no 0/O, 1/I/L, 5/S, 2/Z or 8/B, so a
// code read off a projector is typed right.
const codeAlphabet = "23456789ACDEFGHJKMNPQRTUVWXY"

// codeLen is the length of a room code: 28^6, about 480 million codes, far
// beyond what the bounded bad lookups let anyone try.
const codeLen = 6

// newCode returns a random room code.
func newCode() string {
	var b [codeLen]byte
	rand.Read(b[:]) // never returns an error (crypto/rand, Go 1.24+)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b[:])
}

// parseCode normalizes a code as a visitor may type it (lower case) and
// reports whether it can be one at all.
func parseCode(s string) (string, bool) {
	s = strings.ToUpper(s)
	if len(s) != codeLen {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(codeAlphabet, s[i]) < 0 {
			return "", false
		}
	}
	return s, true
}

// follower is one socket following a room.
type follower struct {
	conn *sockets.Conn
	lang ui.Lang
}

// ownedRoom is the room of a session, owned by its goroutine.
type ownedRoom struct {
	code      string
	url       string // the join URL, absolute
	qr        string // its QR code as SVG path data
	qrSize    int
	followers map[*follower]struct{}
	sent      map[ui.Lang][]uint64 // what the followers of each language were last sent, by position
	seq       map[ui.Lang]uint64   // frames published per language (bus)
	remote    map[string]remoteCount
	unbus     func() // stops serving the room on the bus; nil without one
}

// remoteCount is how many followers another replica has, and when it last
// said so; it counts until it goes stale.
type remoteCount struct {
	n    int
	seen time.Time
}

// remoteStale is how long a replica's count holds without news: mirrors
// repeat theirs every mirrorHeartbeat.
const remoteStale = 3 * mirrorHeartbeat

// followersTotal counts the room's followers, here and on other replicas.
func (r *ownedRoom) followersTotal(now time.Time) int {
	n := len(r.followers)
	for id, c := range r.remote {
		if now.Sub(c.seen) > remoteStale {
			delete(r.remote, id)
			continue
		}
		n += c.n
	}
	return n
}

// langs are the languages the room renders for: its local followers' and,
// when other replicas follow it, both.
func (r *ownedRoom) langs() []ui.Lang {
	if len(r.remote) > 0 {
		return []ui.Lang{ui.Ja, ui.En}
	}
	var ja, en bool
	for f := range r.followers {
		ja, en = ja || f.lang == ui.Ja, en || f.lang == ui.En
	}
	var out []ui.Lang
	if ja {
		out = append(out, ui.Ja)
	}
	if en {
		out = append(out, ui.En)
	}
	return out
}

// qrPath returns the QR code of text as SVG path data in module units, with
// a quiet zone of 4 modules, and its size.
func qrPath(text string) (string, int, error) {
	code, err := qr.EncodeText(text, qr.Medium)
	if err != nil {
		return "", 0, err
	}
	const quiet = 4
	n := code.Size()
	var b strings.Builder
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if code.Module(x, y) {
				b.WriteString("M")
				b.WriteString(strconv.Itoa(x + quiet))
				b.WriteByte(' ')
				b.WriteString(strconv.Itoa(y + quiet))
				b.WriteString("h1v1h-1z")
			}
		}
	}
	return b.String(), n + 2*quiet, nil
}

// Errors of opening a room.
var (
	errTooManyRooms = errors.New("too many rooms from this address")
	errNoRoom       = errors.New("no such room")
	errRoomFull     = errors.New("the room is full")
	errLookups      = errors.New("too many wrong codes from this address")
)

// openRoom opens a room for the session, if it has none.
func (s *session) openRoom(srv *Server) {
	if s.room != nil {
		return
	}
	code, err := srv.hub.openRoom(s, srv.cfg.RoomsPerAddr)
	if err != nil {
		s.refused(demo.Refuse(demo.ReasonRoom, "err.room"), srv)
		return
	}
	url := strings.TrimSuffix(s.origin, "/") + "/room/" + code
	path, size, err := qrPath(url)
	if err != nil {
		srv.log.Error("room QR code", "err", err)
	}
	s.room = &ownedRoom{code: code, url: url, qr: path, qrSize: size, followers: map[*follower]struct{}{},
		sent: map[ui.Lang][]uint64{}, seq: map[ui.Lang]uint64{}, remote: map[string]remoteCount{}}
	if srv.bus != nil {
		s.room.unbus = srv.bus.serveRoom(code, s)
	}
	srv.metrics.rooms.Inc()
	srv.log.Info("room opened", "demo", s.kind.Name, "room", code)
}

// closeRoom ends the session's room: its followers are told, with a last
// banner, and their sockets close normally (the page keeps the last state,
// which they can still fork).
func (s *session) closeRoom(srv *Server) {
	r := s.room
	if r == nil {
		return
	}
	s.room = nil
	for f := range r.followers {
		endFollower(f, s.kind, r.code, srv)
	}
	srv.metrics.followers.Sub(float64(len(r.followers)))
	if r.unbus != nil {
		r.unbus()
	}
	srv.hub.closeRoom(r.code)
	srv.metrics.rooms.Dec()
	srv.log.Info("room closed", "demo", s.kind.Name, "room", r.code)
}

// endFollower tells one follower of a room of kind its room ended, and
// lets it go.
func endFollower(f *follower, kind *demo.Kind, code string, srv *Server) {
	b := ui.BannerProps{Code: code, Title: kind.Title(f.lang), ForkURL: forkURL(kind.Name, f.lang), Ended: true}
	var buf bytes.Buffer
	if err := ui.RoomBanner(f.lang, b).Render(context.Background(), &buf); err == nil {
		f.conn.Put([]sockets.Frag{{ID: "room-banner", HTML: buf.Bytes()}})
	}
	f.conn.CloseWith(sockets.CloseNormal, "room ended")
}

// forkURL is the demo's own page in the follower's language: the fork
// starts there, from the snapshot the follower's page carries along.
func forkURL(kind string, l ui.Lang) string {
	if l == ui.En {
		return "/" + kind + "?lang=en"
	}
	return "/" + kind
}

// follow adds a local follower and sends it everything; the owner's panel
// counts it.
func (s *session) follow(f *follower, srv *Server) {
	if s.room == nil {
		endFollower(f, s.kind, "", srv)
		return
	}
	if s.room.followersTotal(time.Now()) >= srv.cfg.RoomFollowers {
		f.conn.CloseWith(sockets.CloseTryAgainLater, "the room is full")
		return
	}
	s.room.followers[f] = struct{}{}
	srv.metrics.followers.Inc()
	frags, _ := s.followerFrags(f.lang, nil)
	if len(frags) > 0 {
		f.conn.Put(frags)
	}
}

// unfollow removes a local follower whose socket ended.
func (s *session) unfollow(f *follower, srv *Server) {
	if s.room == nil {
		return
	}
	if _, ok := s.room.followers[f]; ok {
		delete(s.room.followers, f)
		srv.metrics.followers.Dec()
	}
}

// followerView is the demo as a follower sees it: without the owner's
// session id, read-only.
func followerView(l ui.Lang) demo.View { return demo.View{Lang: l, Role: "follower"} }

// followerFrags renders the demo's fragments for followers in l, and
// returns those that differ from sent (all of them when sent is nil) with
// the hashes of all of them.
func (s *session) followerFrags(l ui.Lang, sent []uint64) ([]sockets.Frag, []uint64) {
	frags := s.demo.Fragments(followerView(l))
	hashes := make([]uint64, len(frags))
	var out []sockets.Frag
	var buf bytes.Buffer
	for i, f := range frags {
		buf.Reset()
		if err := f.Comp.Render(context.Background(), &buf); err != nil {
			return nil, nil
		}
		hashes[i] = maphash.Bytes(hashSeed, buf.Bytes()) | 1
		if len(sent) == len(frags) && sent[i] == hashes[i] {
			continue
		}
		out = append(out, sockets.Frag{ID: f.ID, HTML: bytes.Clone(buf.Bytes())})
	}
	return out, hashes
}

// flushRoom sends the followers what changed, in each language they read,
// and publishes it for other replicas.
func (s *session) flushRoom(srv *Server) {
	r := s.room
	if r == nil {
		return
	}
	for _, l := range r.langs() {
		changed, hashes := s.followerFrags(l, r.sent[l])
		if hashes == nil || len(changed) == 0 {
			continue
		}
		r.sent[l] = hashes
		for f := range r.followers {
			if f.lang == l {
				f.conn.Put(changed)
			}
		}
		if srv.bus != nil && len(r.remote) > 0 {
			r.seq[l]++
			srv.bus.publishFrame(r.code, l, r.seq[l], changed)
		}
	}
}

// roomPanel renders the owner's room panel: the fragment <prefix>-room.
func (s *session) roomPanel() demo.Fragment {
	p := ui.RoomProps{Prefix: s.kind.Prefix}
	if r := s.room; r != nil {
		p = ui.RoomProps{Prefix: s.kind.Prefix, Open: true, Code: r.code, URL: r.url, QR: r.qr, QRSize: r.qrSize,
			Followers: r.followersTotal(time.Now())}
	}
	return demo.Fragment{ID: s.kind.Prefix + "-room", Comp: ui.RoomPanel(s.lang, p)}
}

// watched reports whether anyone looks at the demo: its owner, or a
// follower here or elsewhere. A watched demo keeps its clock and frames.
func (s *session) watched() bool {
	return s.conn != nil || (s.room != nil && s.room.followersTotal(time.Now()) > 0)
}

// sectionReq asks a session for its demo as a follower's page shows it.
type sectionReq struct {
	lang  ui.Lang
	reply chan sectionReply
}

type sectionReply struct {
	kind    string
	section []byte
	frags   []sockets.Frag // every fragment, for a mirror's first followers
	seq     uint64         // the frames published so far in lang
	err     error
}

// section renders the demo for a follower's page.
func (s *session) section(l ui.Lang) sectionReply {
	if s.room == nil {
		return sectionReply{err: errNoRoom}
	}
	var buf bytes.Buffer
	v := followerView(l)
	v.WSURL = followerSocket(s.room.code, l)
	if err := s.demo.Section(v).Render(context.Background(), &buf); err != nil {
		return sectionReply{err: err}
	}
	frags, _ := s.followerFrags(l, nil)
	return sectionReply{kind: s.kind.Name, section: buf.Bytes(), frags: frags, seq: s.room.seq[l]}
}

// followerSocket is the socket URL of a follower's page.
func followerSocket(code string, l ui.Lang) string {
	return "/ws?room=" + code + "&lang=" + string(l)
}

// raw wraps rendered HTML as a component.
func raw(b []byte) templ.Component { return templ.Raw(string(b)) }
