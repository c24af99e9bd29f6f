package rooms

import (
	"context"
	"time"

	"github.com/reconcile-demo/reconcile-demo/sockets"
)

// busTimeout bounds a round trip on the bus (a join, a question) and an
// owner's answer to a join.
const busTimeout = 2 * time.Second

// staleAfter is how many silent announce periods make an owner gone (and
// another replica's count stale).
const staleAfter = 3

// Record retention: a room heard of but silent is forgotten once its
// followers would all have been told it ended; an ended one is remembered
// a while, so a late claim of its code is refused rather than reopening it.
const (
	endedKeep  = 10 * time.Minute
	maxRecords = 100_000
	maxLookups = 10_000 // addresses whose wrong codes are remembered
)

// Run serves the rooms until ctx ends. Then every follower socket here
// closes with 1012 (its page reconnects, to this process restarted or to
// another replica) and nothing is said on the bus: to the other replicas
// this replica's rooms fall silent, and their owners' pages, back on
// another replica, take them back.
func (r *Rooms) Run(ctx context.Context) {
	defer close(r.done)
	if r.bus != nil {
		r.bus.start()
		defer r.bus.stop()
		r.busUp = r.bus.nc.IsConnected()
	}
	close(r.started)
	tick := time.NewTicker(r.cfg.Retry)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.stop()
			return
		case m := <-r.in:
			r.handle(m, time.Now())
		case now := <-tick.C:
			r.tick(now)
		}
	}
}

// handle carries out one message. Nothing here waits for a session, a
// socket or the bus: owners hear through their inboxes, sockets through
// their mailboxes, and round trips on the bus run on goroutines of their
// own that answer with a message.
func (r *Rooms) handle(m msg, now time.Time) {
	switch m := m.(type) {
	case openReq:
		m.reply <- r.open(m, now)
	case claimReq:
		r.claim(m, now)
	case published:
		r.published(m, now)
	case closeReq:
		if rm := r.rooms[m.lease.code]; rm != nil && rm.owner != nil && rm.owner.lease == m.lease {
			if r.bus != nil {
				r.bus.publishEnd(rm.code, rm.term)
			}
			r.end(rm, now, "closed by its owner")
		}
	case lookupReq:
		b := r.lookups[m.addr]
		m.reply <- lookupReply{limited: b != nil && !b.Peek(now), here: r.rooms[m.code] != nil, known: r.records[m.code] != nil}
	case missed:
		r.miss(m.addr, now)
	case recordHeard:
		if r.records[m.code] == nil {
			r.remember(m.code, m.rec, now)
		}
	case pageReq:
		rm := r.rooms[m.code]
		m.found <- rm != nil && rm.owner != nil
		if rm != nil && rm.owner != nil {
			rm.owner.o.Whole(WholeReq{Code: m.code, Lang: m.lang, Section: true, Reply: m.reply})
		}
	case followReq:
		r.follow(m, now)
	case unfollowReq:
		r.unfollow(m)
	case joined:
		r.joined(m, now)
	case busFrame:
		r.busFrame(m, now)
	case announced:
		r.announced(m, now)
	case endHeard:
		r.endHeard(m, now)
	case countHeard:
		if rm := r.rooms[m.code]; rm != nil && rm.owner != nil && m.replica != r.bus.replica {
			if m.n <= 0 {
				delete(rm.remote, m.replica)
			} else {
				rm.remote[m.replica] = remoteCount{n: m.n, seen: now}
			}
			r.tellCount(rm)
		}
	case joinAsked:
		r.joinAsked(m, now)
	case whoAsked:
		if rm := r.rooms[m.code]; rm != nil && rm.owner != nil {
			m.respond(rm.record(r.bus.replica))
		} else if rec := r.records[m.code]; rec != nil {
			m.respond(rec)
		}
	case busState:
		r.busState(m.up, now)
	case slowConsumer:
		if code, ok := codeOfSubject(m.subject); ok {
			if rm := r.rooms[code]; rm != nil && rm.owner == nil {
				for _, f := range rm.feeds {
					r.resync(rm, f, "slow", now)
				}
			}
		}
	}
}

// open opens a room with a fresh code and secret.
func (r *Rooms) open(m openReq, now time.Time) openReply {
	if r.perAddr[m.addr] >= r.cfg.PerAddr {
		return openReply{err: ErrTooManyRooms}
	}
	code := newCode()
	for r.rooms[code] != nil || r.records[code] != nil {
		code = newCode()
	}
	rm := r.newRoom(code, m.kind)
	lease := r.own(rm, m.owner, m.addr, newSecret(), 1, now)
	r.cfg.Log.Info("room opened", "room", code, "demo", m.kind)
	return openReply{lease: lease}
}

// claim carries out a claim of a code with its owner secret: refused
// unless the secret matches the seal known of the room (here, or heard on
// the bus); granted, the claimant becomes the room's owner in a new
// tenure, and the owner before it, here or elsewhere, hands over.
func (r *Rooms) claim(m claimReq, now time.Time) {
	refuse := func(err error) {
		r.cfg.Log.Info("room claim refused", "room", m.code, "why", err.Error())
		m.owner.Heard(News{Code: m.code, Refused: err})
	}
	rm := r.rooms[m.code]
	if rm != nil && rm.owner != nil {
		ow := rm.owner
		switch {
		case ow.o == m.owner:
			m.owner.Heard(News{Code: m.code, Lease: ow.lease})
			return
		case !rm.seal.matches(m.seal):
			refuse(ErrWrongSecret)
			return
		case rm.kind != m.kind:
			refuse(ErrOtherDemo)
			return
		}
		n := r.perAddr[m.addr]
		if ow.addr == m.addr {
			n-- // the room moves between two sessions of one address
		}
		if n >= r.cfg.PerAddr {
			refuse(ErrTooManyRooms)
			return
		}
		term := rm.term + 1
		r.release(rm, true)
		r.grant(rm, m, term, now)
		return
	}
	rec := r.records[m.code]
	if rm != nil && rm.sealed {
		rec = rm.record("")
	}
	if rec == nil && r.bus != nil && r.busUp && !m.asked {
		// Nobody here knows the code: ask the other replicas, then decide.
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), busTimeout)
			defer cancel()
			m.asked = true
			if heard, err := r.bus.who(ctx, m.code); err == nil {
				m.heard = heard
			}
			r.send(context.Background(), m)
		}()
		return
	}
	if rec == nil {
		rec = m.heard
	}
	switch {
	case rec != nil && rec.ended:
		refuse(ErrEnded)
		return
	case rec != nil && rec.sealed && !rec.seal.matches(m.seal):
		refuse(ErrWrongSecret)
		return
	case rec != nil && rec.kind != "" && rec.kind != m.kind:
		refuse(ErrOtherDemo)
		return
	case r.perAddr[m.addr] >= r.cfg.PerAddr:
		refuse(ErrTooManyRooms)
		return
	}
	term := uint64(1)
	if rec != nil {
		term = rec.term + 1
	}
	if rm == nil {
		rm = r.newRoom(m.code, m.kind)
	}
	if rec == nil {
		// Known nowhere: a lone process restarted, or every replica that
		// knew it is gone. The first claim takes the code.
		r.cfg.Log.Info("room claimed while unknown", "room", m.code)
	}
	r.grant(rm, m, term, now)
}

// grant makes a claimant the owner of rm in tenure term.
func (r *Rooms) grant(rm *room, m claimReq, term uint64, now time.Time) {
	if rm.kind == "" {
		rm.kind = m.kind
	}
	lease := r.own(rm, m.owner, m.addr, m.secret, term, now)
	inc(r.cfg.Metrics.Takeovers)
	r.cfg.Log.Info("room claimed", "room", rm.code, "demo", rm.kind, "term", term)
	m.owner.Heard(News{Code: rm.code, Lease: lease})
	r.rejoin(rm, now)
	r.tellCount(rm)
}

// newRoom registers an empty room.
func (r *Rooms) newRoom(code, kind string) *room {
	rm := &room{code: code, kind: kind, followers: map[*sockets.Conn]follower{}, feeds: map[string]*feed{}, told: -1}
	r.rooms[code] = rm
	return rm
}

// own makes o the owner of rm here, in a new tenure. Its feeds are then to
// join it (rejoin): the followers here read the owner's frames in memory.
func (r *Rooms) own(rm *room, o Owner, addr, secret string, term uint64, now time.Time) *Lease {
	lease := &Lease{rooms: r, code: rm.code, secret: secret}
	rm.owner = &owner{o: o, lease: lease, addr: addr}
	rm.term, rm.epoch = term, newEpoch()
	rm.seal, rm.sealed = sealOf(secret), true
	rm.heard, rm.lostAt = now, time.Time{}
	rm.remote, rm.told = map[string]remoteCount{}, -1
	r.perAddr[addr]++
	gauge(r.cfg.Metrics.Rooms, 1)
	replica := ""
	if r.bus != nil {
		replica = r.bus.replica
		rm.owner.subs = r.bus.serve(rm.code)
		r.announce(rm, now)
	}
	r.remember(rm.code, rm.record(replica), now)
	return lease
}

// rejoin has every feed of a room just owned here join its new owner:
// after the owner holds its lease, so that it can publish what follows.
func (r *Rooms) rejoin(rm *room, now time.Time) {
	r.source(rm)
	for _, f := range rm.feeds {
		r.resync(rm, f, "owner", now)
	}
}

// release ends the owner's tenure here. lost: another page of the owner
// took the room, and the session is told; the room lives on.
func (r *Rooms) release(rm *room, lost bool) {
	ow := rm.owner
	if ow == nil {
		return
	}
	rm.owner = nil
	for _, s := range ow.subs {
		s.Unsubscribe()
	}
	if r.perAddr[ow.addr]--; r.perAddr[ow.addr] <= 0 {
		delete(r.perAddr, ow.addr)
	}
	gauge(r.cfg.Metrics.Rooms, -1)
	rm.remote = nil
	if lost {
		ow.o.Heard(News{Code: rm.code, Lost: true})
	}
}

// source points the room's feeds at its owner: in memory when it is here
// (no subscription), on the bus otherwise.
func (r *Rooms) source(rm *room) {
	for _, f := range rm.feeds {
		switch {
		case rm.owner != nil && f.sub != nil:
			f.sub.Unsubscribe()
			f.sub = nil
		case rm.owner == nil && f.sub == nil && r.bus != nil:
			f.sub = r.bus.subscribeFrames(rm.code, f.lang)
		}
	}
}

// end ends a room: its followers here are told (they can still fork its
// last state) and their sockets close normally; its code is remembered
// as ended.
func (r *Rooms) end(rm *room, now time.Time, why string) {
	r.release(rm, false)
	for c, f := range rm.followers {
		r.endFollower(rm, c, f)
	}
	gauge(r.cfg.Metrics.Followers, -float64(len(rm.followers)))
	rm.followers = nil
	r.drop(rm)
	rec := r.records[rm.code]
	if rec == nil {
		rec = rm.record("")
		r.remember(rm.code, rec, now)
	}
	rec.ended, rec.heard = true, now
	r.cfg.Log.Info("room ended", "room", rm.code, "why", why)
}

func (r *Rooms) endFollower(rm *room, c *sockets.Conn, f follower) {
	kind := rm.kind
	if kind == "" {
		kind = f.kind
	}
	if fr := r.cfg.Ended(kind, rm.code, f.lang); fr.ID != "" {
		c.Put([]sockets.Frag{fr})
	}
	c.CloseWith(sockets.CloseNormal, "room ended")
}

// drop forgets a room that has no owner here and no followers (or ended).
func (r *Rooms) drop(rm *room) {
	for _, f := range rm.feeds {
		if f.sub != nil {
			f.sub.Unsubscribe()
		}
	}
	rm.feeds = nil
	delete(r.rooms, rm.code)
	if r.bus != nil && r.busUp && rm.counted > 0 {
		r.bus.publishCount(rm.code, 0) // the owner counts this replica out
	}
}

// follow adds a follower, and sends it the demo if its feed has it.
func (r *Rooms) follow(m followReq, now time.Time) {
	rm := r.rooms[m.code]
	if rm == nil {
		rec := r.records[m.code]
		if rec != nil && rec.ended {
			r.endFollower(&room{code: m.code, kind: rec.kind}, m.conn, follower{lang: m.lang, kind: m.kind})
			return
		}
		rm = r.newRoom(m.code, "")
		if rec != nil {
			rm.kind, rm.term, rm.epoch, rm.seal, rm.sealed, rm.heard = rec.kind, rec.term, rec.epoch, rec.seal, rec.sealed, rec.heard
		} else {
			// Known nowhere (yet): its followers wait for their owner's
			// page to claim it, for the grace.
			rm.heard, rm.lostAt = now, now
		}
	}
	if len(rm.followers) >= r.cfg.Followers {
		m.conn.CloseWith(sockets.CloseTryAgainLater, "the room is full")
		if len(rm.followers) == 0 && rm.owner == nil {
			r.drop(rm)
		}
		return
	}
	rm.followers[m.conn] = follower{lang: m.lang, kind: m.kind}
	gauge(r.cfg.Metrics.Followers, 1)
	f := rm.feeds[m.lang]
	switch {
	case f == nil:
		f = &feed{lang: m.lang, html: map[string][]byte{}}
		rm.feeds[m.lang] = f
		r.source(rm)
		r.join(rm, f, now)
	case f.joined:
		m.conn.Put(f.all())
	}
	if rm.owner != nil {
		r.tellCount(rm)
	} else {
		r.publishCount(rm, now, true)
	}
}

// unfollow removes a follower whose socket ended.
func (r *Rooms) unfollow(m unfollowReq) {
	rm := r.rooms[m.code]
	if rm == nil {
		return
	}
	if _, ok := rm.followers[m.conn]; !ok {
		return
	}
	delete(rm.followers, m.conn)
	gauge(r.cfg.Metrics.Followers, -1)
	switch {
	case rm.owner != nil:
		r.tellCount(rm)
	case len(rm.followers) == 0:
		r.drop(rm)
	default:
		r.publishCount(rm, time.Now(), true)
	}
}

// join asks the room's owner for the whole demo in f's language: its
// session here, or its replica over the bus. The answer comes as joined.
// Without an owner to ask, the feed waits for one (a claim here, an
// announce on the bus) or for its next retry.
func (r *Rooms) join(rm *room, f *feed, now time.Time) {
	r.joinIDs++
	id := r.joinIDs
	f.joining, f.retryAt = id, time.Time{}
	code, lang := rm.code, f.lang
	switch {
	case rm.owner != nil:
		reply := make(chan Whole, 1)
		term, epoch, sl := rm.term, rm.epoch, rm.seal
		rm.owner.o.Whole(WholeReq{Code: code, Lang: lang, Reply: reply})
		go func() {
			timer := time.NewTimer(busTimeout)
			defer timer.Stop()
			j := joined{code: code, lang: lang, id: id, err: ErrNoRoom}
			select {
			case w := <-reply:
				w.term, w.epoch, w.seal, w.sealed = term, epoch, sl, true
				j.whole, j.err = w, w.Err
			case <-timer.C:
			case <-r.done:
				return
			}
			r.send(context.Background(), j)
		}()
	case r.bus != nil && r.busUp:
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), busTimeout)
			defer cancel()
			w, err := r.bus.join(ctx, code, lang, false)
			r.send(context.Background(), joined{code: code, lang: lang, id: id, whole: w, err: err})
		}()
	default:
		f.joining, f.retryAt = 0, now.Add(r.cfg.Retry)
	}
}

// resync joins again a feed that missed something, before it applies any
// more frames.
func (r *Rooms) resync(rm *room, f *feed, reason string, now time.Time) {
	if f.epoch != "" {
		r.count(r.cfg.Metrics.Resyncs, reason)
	}
	f.joined, f.pending = false, nil
	r.join(rm, f, now)
}

// joined applies the owner's whole demo to a feed, sends it to the feed's
// followers, then applies the frames that came meanwhile.
func (r *Rooms) joined(m joined, now time.Time) {
	rm := r.rooms[m.code]
	if rm == nil {
		return
	}
	f := rm.feeds[m.lang]
	if f == nil || f.joining != m.id {
		return // a join that a newer one replaced
	}
	f.joining = 0
	w := m.whole
	if m.err != nil || (rm.owner == nil && (newer(rm.term, rm.epoch, w.term, w.epoch) ||
		rm.sealed && !(w.sealed && rm.seal.matches(w.seal)))) {
		// No owner answered, or one older than the room's, or the owner of
		// another secret (a code taken elsewhere as unknown): ask again later.
		f.retryAt = now.Add(r.cfg.Retry)
		return
	}
	if rm.owner == nil {
		rm.term, rm.epoch = w.term, w.epoch
		if !rm.sealed {
			rm.seal, rm.sealed = w.seal, w.sealed
		}
		if rm.kind == "" {
			rm.kind = w.Kind
		}
		if rec := r.records[rm.code]; rec == nil || newer(rm.term, rm.epoch, rec.term, rec.epoch) {
			r.remember(rm.code, rm.record(""), now) // claims here are checked against it
		}
		r.heardOwner(rm, now)
	}
	f.replace(w)
	r.fanOut(rm, f, f.all())
	for _, fr := range f.takePending() {
		r.replay(rm, f, fr)
	}
}

// replay applies a frame kept while joining if it is the next one, and
// drops it otherwise: the whole demo was taken after every frame its owner
// had published, so a frame it does not lead to is stale or not the
// owner's, and joining again for it could go on for ever.
func (r *Rooms) replay(rm *room, f *feed, fr frame) {
	if fr.term != f.term || fr.epoch != f.epoch || fr.seq != f.seq+1 {
		return
	}
	f.seq = fr.seq
	f.store(fr.frags)
	r.fanOut(rm, f, fr.frags)
}

// fanOut puts fragments in the mailboxes of the feed's followers.
func (r *Rooms) fanOut(rm *room, f *feed, frags []sockets.Frag) {
	for c, fl := range rm.followers {
		if fl.lang == f.lang {
			c.Put(frags)
		}
	}
}

// heardOwner notes that the owner elsewhere is alive.
func (r *Rooms) heardOwner(rm *room, now time.Time) {
	rm.heard = now
	if !rm.lostAt.IsZero() {
		rm.lostAt = time.Time{}
		r.cfg.Log.Info("room owner heard again", "room", rm.code)
	}
}

// apply applies one of the owner's frames to a feed and fans it out, if
// it is the next one; a gap, or a newer owner, makes the feed join again
// first, and an older one's frame is dropped.
func (r *Rooms) apply(rm *room, f *feed, fr frame, now time.Time) {
	switch {
	case !f.joined:
		if f.joining != 0 {
			f.keep(fr)
		}
		return
	case newer(f.term, f.epoch, fr.term, fr.epoch):
		return
	case newer(fr.term, fr.epoch, f.term, f.epoch):
		r.resync(rm, f, "owner", now)
		f.keep(fr)
		return
	case fr.seq <= f.seq:
		return
	case fr.seq != f.seq+1:
		r.resync(rm, f, "gap", now)
		f.keep(fr)
		return
	}
	f.seq = fr.seq
	f.store(fr.frags)
	r.fanOut(rm, f, fr.frags)
}

// published takes a frame from the owner's session here: out on the bus
// when other replicas follow, and into the feed of its language here.
func (r *Rooms) published(m published, now time.Time) {
	rm := r.rooms[m.lease.code]
	if rm == nil || rm.owner == nil || rm.owner.lease != m.lease {
		return // no longer the owner's room
	}
	fr := frame{term: rm.term, epoch: rm.epoch, seq: m.seq, frags: m.frags}
	if r.bus != nil && len(rm.remote) > 0 {
		r.bus.publishFrame(rm.code, m.lang, fr)
	}
	if f := rm.feeds[m.lang]; f != nil {
		r.apply(rm, f, fr, now)
	}
}

// busFrame takes a frame of an owner elsewhere.
func (r *Rooms) busFrame(m busFrame, now time.Time) {
	rm := r.rooms[m.code]
	if rm == nil || rm.owner != nil {
		return
	}
	f := rm.feeds[m.lang]
	if f == nil || m.frame.term != rm.term || m.frame.epoch != rm.epoch {
		// Not the owner this room follows: a room moves to a new owner by
		// its announce (or a join), whose seal is checked, never by a frame.
		return
	}
	r.heardOwner(rm, now)
	r.apply(rm, f, m.frame, now)
}

// announced takes an owner's announce of its room: the directory keeps
// it; a room followed here hears its owner (a new one: its feeds join
// it); a room owned here by an older tenure hands over.
func (r *Rooms) announced(m announced, now time.Time) {
	rec := m.rec
	if rec.replica == r.bus.replica {
		return
	}
	if known, ok := r.sealOf(m.code); ok && !(rec.sealed && known.matches(rec.seal)) {
		// Another secret's owner of a room known here: a claim granted
		// where the room was not known (a code taken as unknown). The room
		// stays with the secret it has here.
		r.cfg.Log.Warn("room announced with another owner secret: ignored", "room", m.code)
		if rm := r.rooms[m.code]; rm != nil && rm.owner != nil {
			r.announce(rm, now)
		}
		return
	}
	if old := r.records[m.code]; old == nil || !newer(old.term, old.epoch, rec.term, rec.epoch) {
		rec.heard = now
		r.remember(m.code, rec, now)
	}
	rm := r.rooms[m.code]
	if rm == nil {
		return
	}
	if rm.owner != nil {
		switch {
		case newer(rec.term, rec.epoch, rm.term, rm.epoch):
			r.cfg.Log.Info("room handed over to another replica", "room", rm.code, "term", rec.term)
			r.release(rm, true)
		case newer(rm.term, rm.epoch, rec.term, rec.epoch):
			r.announce(rm, now) // the older owner hands over when it hears this
			return
		default:
			return
		}
	} else if newer(rm.term, rm.epoch, rec.term, rec.epoch) {
		return // an older owner still talking
	}
	changed := rm.term != rec.term || rm.epoch != rec.epoch
	rm.term, rm.epoch, rm.seal, rm.sealed = rec.term, rec.epoch, rec.seal, rec.sealed
	if rm.kind == "" {
		rm.kind = rec.kind
	}
	r.heardOwner(rm, now)
	if len(rm.followers) == 0 {
		r.drop(rm)
		return
	}
	r.source(rm)
	for _, f := range rm.feeds {
		switch {
		case changed && f.epoch != "" && (f.term != rm.term || f.epoch != rm.epoch):
			r.resync(rm, f, "owner", now)
		case !f.joined && f.joining == 0:
			r.join(rm, f, now)
		}
	}
	r.publishCount(rm, now, changed)
}

// sealOf is the seal of a live room known here: its own, or its record's.
func (r *Rooms) sealOf(code string) (seal, bool) {
	if rm := r.rooms[code]; rm != nil && rm.sealed {
		return rm.seal, true
	}
	if rec := r.records[code]; rec != nil && rec.sealed && !rec.ended {
		return rec.seal, true
	}
	return seal{}, false
}

// endHeard takes an owner's end of its room.
func (r *Rooms) endHeard(m endHeard, now time.Time) {
	if rec := r.records[m.code]; rec != nil {
		if m.term < rec.term {
			return // an older owner's end: the room has moved on
		}
		rec.ended, rec.heard = true, now
	} else {
		r.remember(m.code, &record{term: m.term, ended: true}, now)
	}
	if rm := r.rooms[m.code]; rm != nil && m.term >= rm.term {
		r.end(rm, now, "ended by its owner")
	}
}

// joinAsked answers another replica's join from the owner's session here,
// and from then on publishes the room's frames on the bus.
func (r *Rooms) joinAsked(m joinAsked, now time.Time) {
	rm := r.rooms[m.code]
	if rm == nil || rm.owner == nil {
		return
	}
	if m.replica != r.bus.replica {
		c := rm.remote[m.replica]
		c.seen = now
		rm.remote[m.replica] = c
	}
	reply := make(chan Whole, 1)
	term, epoch, sl := rm.term, rm.epoch, rm.seal
	rm.owner.o.Whole(WholeReq{Code: m.code, Lang: m.lang, Section: m.section, Reply: reply})
	go func() {
		timer := time.NewTimer(busTimeout)
		defer timer.Stop()
		select {
		case w := <-reply:
			if w.Err == nil {
				w.term, w.epoch, w.seal, w.sealed = term, epoch, sl, true
				m.respond(w)
			}
		case <-timer.C:
		case <-r.done:
		}
	}()
}

// busState takes the bus going down or coming back. While it is down
// nobody is judged gone (nothing can be heard); when it is back every
// feed here joins again (frames were surely missed) and every owner here
// announces at once.
func (r *Rooms) busState(up bool, now time.Time) {
	if r.busUp == up {
		return
	}
	r.busUp = up
	if !up {
		r.cfg.Log.Warn("NATS disconnected: rooms wait for it")
		return
	}
	r.cfg.Log.Info("NATS reconnected: rooms re-sync")
	for _, rm := range r.rooms {
		if rm.owner != nil {
			r.announce(rm, now)
			for id, c := range rm.remote {
				c.seen = now
				rm.remote[id] = c
			}
			continue
		}
		rm.heard, rm.lostAt = now, time.Time{}
		for _, f := range rm.feeds {
			if f.epoch != "" {
				r.resync(rm, f, "reconnect", now)
			} else if f.joining == 0 {
				r.join(rm, f, now)
			}
		}
		r.publishCount(rm, now, true)
	}
}

// tick checks every deadline: announces and counts due, owners gone
// silent, graces run out, joins to ask again, stale counts and records.
func (r *Rooms) tick(now time.Time) {
	stale := staleAfter * r.cfg.Announce
	for _, rm := range r.rooms {
		if rm.owner != nil {
			if r.bus != nil && now.Sub(rm.owner.announced) >= r.cfg.Announce {
				r.announce(rm, now)
			}
			if r.busUp {
				for id, c := range rm.remote {
					if now.Sub(c.seen) > stale {
						delete(rm.remote, id)
					}
				}
			}
			r.tellCount(rm)
		} else {
			listening := r.bus == nil || r.busUp // while the bus is down, nobody can be heard
			if listening && rm.lostAt.IsZero() && (r.bus == nil || now.Sub(rm.heard) > stale) {
				rm.lostAt = now
				inc(r.cfg.Metrics.Losses)
				r.cfg.Log.Warn("room owner gone", "room", rm.code, "silent", now.Sub(rm.heard).Round(time.Millisecond).String())
			}
			if listening && !rm.lostAt.IsZero() && now.Sub(rm.lostAt) >= r.cfg.Grace {
				r.end(rm, now, "its owner did not come back")
				continue
			}
			if r.bus != nil && r.busUp {
				r.publishCount(rm, now, false)
			}
		}
		for _, f := range rm.feeds {
			if !f.joined && f.joining == 0 && !now.Before(f.retryAt) {
				r.join(rm, f, now)
			}
		}
	}
	r.prune(now)
}

// announce says on the bus that the room's owner is here, and who it is.
func (r *Rooms) announce(rm *room, now time.Time) {
	r.bus.publishAnnounce(rm.code, rm.record(r.bus.replica))
	rm.owner.announced = now
}

// publishCount tells the owner elsewhere how many followers its room has
// here: when it changed (or force), and every announce period.
func (r *Rooms) publishCount(rm *room, now time.Time, force bool) {
	if r.bus == nil || !r.busUp {
		return
	}
	n := len(rm.followers)
	if !force && n == rm.counted && now.Sub(rm.countedAt) < r.cfg.Announce {
		return
	}
	r.bus.publishCount(rm.code, n)
	rm.counted, rm.countedAt = n, now
}

// tellCount tells the owner here its followers' total when it changed.
func (r *Rooms) tellCount(rm *room) {
	if n := rm.total(); n != rm.told {
		rm.told = n
		rm.owner.o.Heard(News{Code: rm.code, Followers: n})
	}
}

// remember keeps a record, within bounds.
func (r *Rooms) remember(code string, rec *record, now time.Time) {
	if r.records[code] == nil && len(r.records) >= maxRecords {
		r.prune(now)
		if len(r.records) >= maxRecords {
			return
		}
	}
	if rec.heard.IsZero() {
		rec.heard = now
	}
	r.records[code] = rec
}

// prune forgets records no longer useful: silent ones whose followers
// would all have been told the room ended, and ended ones after a while.
func (r *Rooms) prune(now time.Time) {
	silent := staleAfter*r.cfg.Announce + r.cfg.Grace + time.Minute
	for code, rec := range r.records {
		if r.rooms[code] != nil {
			continue
		}
		if age := now.Sub(rec.heard); (rec.ended && age > endedKeep) || (!rec.ended && age > silent) {
			delete(r.records, code)
		}
	}
}

// miss charges addr one unknown code.
func (r *Rooms) miss(addr string, now time.Time) {
	b := r.lookups[addr]
	if b == nil {
		if len(r.lookups) >= maxLookups {
			clear(r.lookups) // forget old debts rather than grow without bound
		}
		b = sockets.NewBucket(r.cfg.Lookups/60, r.cfg.LookupBurst)
		r.lookups[addr] = b
	}
	b.Allow(now)
}

// stop closes every follower socket here with 1012, and lets go of the
// bus, saying nothing.
func (r *Rooms) stop() {
	for _, rm := range r.rooms {
		for c := range rm.followers {
			c.CloseWith(sockets.CloseServiceRestart, "server restarting")
		}
		gauge(r.cfg.Metrics.Followers, -float64(len(rm.followers)))
		if rm.owner != nil {
			for _, s := range rm.owner.subs {
				s.Unsubscribe()
			}
			gauge(r.cfg.Metrics.Rooms, -1)
		}
		for _, f := range rm.feeds {
			if f.sub != nil {
				f.sub.Unsubscribe()
			}
		}
	}
	clear(r.rooms)
}

func inc(c sockets.Counter) {
	if c != nil {
		c.Inc()
	}
}

func gauge(g Gauge, d float64) {
	if g != nil {
		g.Add(d)
	}
}
