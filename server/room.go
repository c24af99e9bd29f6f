package server

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/a-h/templ"
	qr "github.com/piglig/go-qr"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/rooms"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// A session's room, as its session sees it. The rooms package fans the
// room out to followers on every replica; the session only renders: its
// owner's panel (code, join URL, QR code, count, and the owner secret for
// its own page only) and, per language followers read, the demo as they
// see it (followerFrags), numbered frames of what changed (flushRoom) and,
// when the rooms ask, the whole demo (answerWhole).

// roomHost is all a session asks of the rooms: open a room, claim one back.
type roomHost interface {
	Open(o rooms.Owner, kind, addr string) (*rooms.Lease, error)
	Claim(o rooms.Owner, kind, addr, code, secret string)
}

// ownedRoom is the room of a session, owned by its goroutine.
type ownedRoom struct {
	lease     *rooms.Lease
	url       string // the join URL, absolute
	qr        string // its QR code as SVG path data
	qrSize    int
	followers int                    // on every replica, as the rooms last said
	langs     map[ui.Lang]*roomFrame // the languages followers read (asked for once, kept)
}

// roomFrame is what followers in one language were last sent (the
// renderer of their frames) and the seq of the last frame.
type roomFrame struct {
	out *demo.Renderer
	seq uint64
}

// roomInbox is where the rooms leave their requests and news for a
// session (rooms.Owner): putting them never waits for the session, whose
// goroutine takes them, in order, when poked.
type roomInbox struct {
	mu    sync.Mutex
	items []roomItem
	poke  chan struct{} // one slot: there is mail
}

// roomItem is one piece of the rooms' mail: a request for the whole demo
// or news.
type roomItem struct {
	whole *rooms.WholeReq
	news  *rooms.News
}

// maxRoomMail bounds a session's unread mail; over it requests are
// answered "busy" at once and counts dropped (a newer one follows).
const maxRoomMail = 256

// Whole takes the rooms' request for the whole demo (rooms.Owner).
func (s *session) Whole(req rooms.WholeReq) {
	if !s.inbox.put(roomItem{whole: &req}, false) {
		req.Reply <- rooms.Whole{Err: errBusy}
	}
}

// Heard takes news of the session's room (rooms.Owner).
func (s *session) Heard(n rooms.News) {
	s.inbox.put(roomItem{news: &n}, n.Lease != nil || n.Refused != nil || n.Lost)
}

// put adds an item and pokes the session; over the bound it takes only
// items that must not be lost.
func (b *roomInbox) put(it roomItem, must bool) bool {
	b.mu.Lock()
	if len(b.items) >= maxRoomMail && !must {
		b.mu.Unlock()
		return false
	}
	b.items = append(b.items, it)
	b.mu.Unlock()
	select {
	case b.poke <- struct{}{}:
	default:
	}
	return true
}

// take returns the mail, oldest first.
func (b *roomInbox) take() []roomItem {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := b.items
	b.items = nil
	return items
}

// readRoomMail carries out the rooms' requests and news, in order.
func (s *session) readRoomMail(srv *Server) {
	for _, it := range s.inbox.take() {
		if it.whole != nil {
			s.answerWhole(*it.whole, srv)
		} else {
			s.heard(*it.news, srv)
		}
	}
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

// openRoom opens a room for the session, if it has none (and claims none).
func (s *session) openRoom(srv *Server) {
	if s.room != nil || s.claiming != "" {
		return
	}
	lease, err := s.host.Open(s, s.kind.Name, s.addr)
	if err != nil {
		s.refused(demo.Refuse(demo.ReasonRoom, "err.room"), srv)
		return
	}
	s.holdRoom(lease, srv)
}

// claimRoom asks for the page's room back, with the owner secret it kept:
// the answer comes as news (heard).
func (s *session) claimRoom(c demo.Command, srv *Server) {
	code, ok := rooms.ParseCode(c.Name)
	switch {
	case !ok || !rooms.ValidSecret(c.Secret):
		s.refusedClaim(demo.Refuse(demo.ReasonRoomClaim, "err.room.claim"), srv)
		return
	case s.room != nil && s.room.lease.Code() == code, s.claiming == code:
		return // it is ours already, or on its way
	case s.room != nil || s.claiming != "":
		s.refusedClaim(demo.Refuse(demo.ReasonRoomClaim, "err.room.claim"), srv)
		return
	}
	s.claiming = code
	s.host.Claim(s, s.kind.Name, s.addr, code, c.Secret)
}

// refusedClaim shows a refused claim, counts it, and makes it a strike of
// the socket that sent it.
func (s *session) refusedClaim(r *demo.Rejection, srv *Server) {
	s.refused(r, srv)
	s.claimRefused = true
	if s.conn != nil {
		s.conn.Strike()
	}
}

// holdRoom makes a lease the session's room.
func (s *session) holdRoom(lease *rooms.Lease, srv *Server) {
	url := strings.TrimSuffix(s.origin, "/") + "/room/" + lease.Code()
	path, size, err := qrPath(url)
	if err != nil {
		srv.log.Error("room QR code", "err", err)
	}
	s.room = &ownedRoom{lease: lease, url: url, qr: path, qrSize: size, langs: map[ui.Lang]*roomFrame{}}
	s.claimRefused = false
}

// heard carries out news of the session's room.
func (s *session) heard(n rooms.News, srv *Server) {
	switch {
	case n.Lease != nil:
		if s.claiming == n.Code && s.room == nil {
			s.claiming = ""
			s.holdRoom(n.Lease, srv)
			s.errText = ""
		}
	case n.Refused != nil:
		if s.claiming != n.Code {
			return
		}
		s.claiming = ""
		key := "err.room.claim"
		switch {
		case errors.Is(n.Refused, rooms.ErrWrongSecret), errors.Is(n.Refused, rooms.ErrOtherDemo):
			key = "err.room.secret"
		case errors.Is(n.Refused, rooms.ErrEnded):
			key = "err.room.ended"
		case errors.Is(n.Refused, rooms.ErrTooManyRooms):
			key = "err.room"
		}
		s.refusedClaim(demo.Refuse(demo.ReasonRoomClaim, key), srv)
	case n.Lost:
		if s.room != nil && s.room.lease.Code() == n.Code {
			srv.log.Info("room taken back by another page of its owner", "room", n.Code)
			s.room = nil
		}
	default:
		if s.room != nil && s.room.lease.Code() == n.Code {
			s.room.followers = n.Followers
		}
	}
}

// closeRoom ends the session's room: its followers are told, everywhere.
func (s *session) closeRoom() {
	if s.room == nil {
		return
	}
	s.room.lease.Close()
	s.room = nil
}

// answerWhole answers the rooms' request for the whole demo in a
// language: first every frame its state calls for is published, so the
// whole is exactly as of the last of them; from then on that language's
// frames are published too.
func (s *session) answerWhole(req rooms.WholeReq, srv *Server) {
	if s.room == nil || s.room.lease.Code() != req.Code {
		req.Reply <- rooms.Whole{Err: rooms.ErrNoRoom}
		return
	}
	s.advance(srv.cfg.TimeScale)
	s.flush(srv)
	l := ui.ParseLang(req.Lang)
	rf := s.room.langs[l]
	if rf == nil {
		rf = &roomFrame{out: s.live.Renderer(followerView(l))}
		s.room.langs[l] = rf
	}
	all, err := rf.out.All() // as of the frame just published: nothing left to send
	if err != nil {
		req.Reply <- rooms.Whole{Err: err}
		return
	}
	w := rooms.Whole{Kind: s.kind.Name, Frags: frags(all), Seq: rf.seq}
	if req.Section {
		var buf bytes.Buffer
		v := followerView(l)
		v.WSURL = followerSocket(s.room.lease.Code(), s.kind.Name, l)
		if err := s.live.Section(v).Render(context.Background(), &buf); err != nil {
			w = rooms.Whole{Err: err}
		}
		w.Section = buf.Bytes()
	}
	req.Reply <- w
}

// followerView is the demo as a follower sees it: without the owner's
// session id, read-only.
func followerView(l ui.Lang) demo.View { return demo.View{Lang: l, Role: demo.RoleFollower} }

// flushRoom publishes, in each language followers read, a frame of what
// changed for them (their renderer renders only what changed).
func (s *session) flushRoom() {
	r := s.room
	if r == nil {
		return
	}
	for l, rf := range r.langs {
		changed, err := rf.out.Frame(nil)
		if err != nil || len(changed) == 0 {
			continue
		}
		rf.seq++
		r.lease.Publish(string(l), rf.seq, frags(changed))
	}
}

// retargetRoom points the room's renderers at a restored demo: its
// followers are sent everything next.
func (s *session) retargetRoom() {
	if s.room == nil {
		return
	}
	for _, rf := range s.room.langs {
		rf.out.Retarget(s.live)
	}
}

// roomProps is the owner's room panel (the fragment <prefix>-room): its
// code, join URL, QR code, count and owner secret, or a closed panel that
// says whether the page's claim was refused.
func (s *session) roomProps() *ui.RoomProps {
	if r := s.room; r != nil {
		return &ui.RoomProps{Open: true, Code: r.lease.Code(), URL: r.url, QR: r.qr, QRSize: r.qrSize,
			Followers: r.followers, Secret: r.lease.Secret()}
	}
	if s.claimRefused {
		return &ui.RoomProps{Refused: true}
	}
	return nil
}

// watched reports whether anyone looks at the demo: its owner, or a
// follower here or elsewhere. A watched demo keeps its clock and frames.
func (s *session) watched() bool {
	return s.conn != nil || (s.room != nil && s.room.followers > 0)
}

// followerSocket is the socket URL of a follower's page.
func followerSocket(code, kind string, l ui.Lang) string {
	return "/ws?room=" + code + "&lang=" + string(l) + "&demo=" + kind
}

// forkURL is the demo's own page in the follower's language: the fork
// starts there, from the snapshot the follower's page carries along.
func forkURL(kind string, l ui.Lang) string {
	if l == ui.En {
		return "/" + kind + "?lang=en"
	}
	return "/" + kind
}

// endedBanner renders the banner that tells a follower its room ended
// (rooms.Config.Ended); kind is "" when the room was never known here.
func (s *Server) endedBanner(kind, code, lang string) sockets.Frag {
	l := ui.ParseLang(lang)
	b := ui.BannerProps{Code: code, ForkURL: "/", Ended: true}
	if k := s.kinds[kind]; k != nil {
		b.Title, b.ForkURL = k.Title(l), forkURL(k.Name, l)
	}
	var buf bytes.Buffer
	if err := ui.RoomBanner(l, b).Render(context.Background(), &buf); err != nil {
		return sockets.Frag{}
	}
	return sockets.Frag{ID: "room-banner", HTML: buf.Bytes()}
}

// raw wraps rendered HTML as a component.
func raw(b []byte) templ.Component { return templ.Raw(string(b)) }
