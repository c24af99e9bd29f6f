package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	"github.com/reconcile-demo/reconcile-demo/templates"
)

// Command is one validated action from a visitor. Which fields are set
// depends on Action; a refused message sets Reject and nothing else.
type Command struct {
	Action   string
	Name     string          // the pod, member, object … the action names
	N        int             // a count
	On       bool            // a switch, pause
	Speed    sim.Speed       // speed
	Snapshot json.RawMessage // restore
	Moment   string          // restore: the page's timeline; moment: a link's
	At       int64           // timeline, moment: the moment shown, in virtual ms
	Secret   string          // room-claim: the owner secret (Name holds the room code)
	Reject   *Rejection

	// args are the action's fields as Decode read them, compacted, in the
	// order the action lists them (nil where absent): the timeline logs
	// them, and a replay decodes them again.
	args []json.RawMessage
}

// Rejection is a refused message or command: why (a metrics label), and the
// sentence shown to the visitor in their language.
type Rejection struct {
	Reason string
	Say    func(l templates.Lang) string
}

func (r *Rejection) Error() string { return r.Reason + ": " + r.Say(templates.En) }

// Text returns the visitor's sentence for r in l.
func (r *Rejection) Text(l templates.Lang) string { return strings.TrimSpace(r.Say(l)) }

// Rejection reasons, as the metrics label them.
const (
	ReasonMalformed     = "malformed"
	ReasonUnknownAction = "unknown_action"
	ReasonWrongType     = "wrong_type"
	ReasonOutOfRange    = "out_of_range"
	ReasonUnknownTarget = "unknown_target"
	ReasonRate          = "rate_limited"
	ReasonSnapshot      = "bad_snapshot"
	ReasonBinary        = "binary"
	ReasonTooBig        = "too_big"
	ReasonOrigin        = "origin"
	ReasonRoom          = "room"
	ReasonRoomClaim     = "room_claim"
	ReasonFollower      = "follower"
)

// Refuse returns a rejection whose sentence is the shared catalog's key.
func Refuse(reason, key string, args ...any) *Rejection {
	return RefuseIn(nil, reason, key, args...)
}

// RefuseIn returns a rejection whose sentence is words' key (a demo's own
// catalog, which falls back to the shared one).
func RefuseIn(words templates.Catalog, reason, key string, args ...any) *Rejection {
	return &Rejection{Reason: reason, Say: func(l templates.Lang) string { return words.F(l, key, args...) }}
}

// Action is one action of a demo's closed set: the fields it may carry
// beside "action" and "HEADERS", and how it reads them into a Command.
type Action struct {
	Fields []string
	Read   func(m Message, c *Command) error // nil: the action carries nothing
}

// The actions the demos share.
var (
	Step       = Action{}
	Reset      = Action{}
	Controller = Bool("on")
	Pause      = Bool("paused")
	Speed      = Action{Fields: []string{"speed"}, Read: func(m Message, c *Command) (err error) {
		c.Speed, err = m.Speed("speed")
		return err
	}}
	restore = Action{Fields: []string{"snapshot", "moment"}, Read: func(m Message, c *Command) (err error) {
		v, ok := m.get("snapshot")
		if !ok || !isObject(v) {
			return wrongField("snapshot")
		}
		c.Snapshot = bytes.Clone(v) // the message's buffer is the socket's
		if _, ok := m.get("moment"); ok {
			c.Moment, err = m.moment("moment")
		}
		return err
	}}
	// The timeline's: show a moment of the past (in virtual ms), show the
	// present again, continue from the moment shown; and a page opened from
	// a link starts at its moment.
	timeline = Action{Fields: []string{"at", "moment"}, Read: func(m Message, c *Command) (err error) {
		n, err := m.Int("at", 0, int(sim.MaxSnapshotNow))
		c.At = int64(n)
		if _, ok := m.get("moment"); ok && err == nil {
			c.Moment, err = m.moment("moment") // a follower's: the room's timeline
		}
		return err
	}}
	moment = Action{Fields: []string{"moment", "at"}, Read: func(m Message, c *Command) (err error) {
		if c.Moment, err = m.moment("moment"); err != nil {
			return err
		}
		n, err := m.Int("at", 0, int(sim.MaxSnapshotNow))
		c.At = int64(n)
		return err
	}}
)

// Name is an action that names something in field key (Command.Name).
func Name(key string) Action {
	return Action{Fields: []string{key}, Read: func(m Message, c *Command) (err error) {
		c.Name, err = m.Name(key)
		return err
	}}
}

// Int is an action that carries a count in [lo, hi] in field key (Command.N).
func Int(key string, lo, hi int) Action {
	return Action{Fields: []string{key}, Read: func(m Message, c *Command) (err error) {
		c.N, err = m.Int(key, lo, hi)
		return err
	}}
}

// Bool is an action that carries a switch in field key (Command.On).
func Bool(key string) Action {
	return Action{Fields: []string{key}, Read: func(m Message, c *Command) (err error) {
		c.On, err = m.Bool(key)
		return err
	}}
}

// The actions every demo accepts beside its own and restore: a teacher
// opens a room for the class to follow the demo, and closes it; the
// teacher's page, back on a socket (after a restart, or on another
// replica), claims its room back with the code and the owner secret it
// kept. The session carries them out; the demo never sees them.
const (
	RoomOpen  = "room-open"
	RoomClose = "room-close"
	RoomClaim = "room-claim"
)

// The shapes of a room claim: a code of RoomCodeLen capitals and digits
// (the rooms check its alphabet), and a secret of RoomSecretLen base64url
// characters.
const (
	RoomCodeLen   = 6
	RoomSecretLen = 43
)

// roomClaim reads {"code": …, "secret": …} into Name and Secret.
var roomClaim = Action{Fields: []string{"code", "secret"}, Read: func(m Message, c *Command) error {
	var code, secret string
	if unquote(m.value("code"), &code) != nil || len(code) != RoomCodeLen || !only(code, isCodeChar) {
		return wrongField("code")
	}
	if unquote(m.value("secret"), &secret) != nil || len(secret) != RoomSecretLen || !only(secret, isSecretChar) {
		return wrongField("secret")
	}
	c.Name, c.Secret = code, secret
	return nil
}}

func isCodeChar(b byte) bool { return b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' }

func isSecretChar(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b == '-' || b == '_'
}

func only(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// MaxNameLen bounds a name in a message.
const MaxNameLen = 40

// Message is one action message's fields, as htmx-ext-ws sends them, in
// the message's order; a field sent twice is read as its last, as
// json.Unmarshal into a map reads it.
type Message struct {
	fields []field
}

type field struct {
	key string
	val json.RawMessage // the value's bytes, without the space around it
}

// get returns field key's value.
func (m Message) get(key string) (json.RawMessage, bool) {
	for i := len(m.fields) - 1; i >= 0; i-- {
		if m.fields[i].key == key {
			return m.fields[i].val, true
		}
	}
	return nil, false
}

// value returns field key's value, nil if absent.
func (m Message) value(key string) json.RawMessage {
	v, _ := m.get(key)
	return v
}

// Decode decodes and validates one text message from the browser for a demo
// of kind k: JSON of a control's hx-vals and an input's value (and, from
// htmx-ext-ws, a HEADERS object).
// It checks shape, types and ranges; whether the named thing exists is the
// demo's question. It never returns a command with Reject set and other
// fields.
func Decode(k *Kind, msg []byte) Command {
	m, ok := readMessage(msg)
	if !ok {
		return refused(Refuse(ReasonMalformed, "err.decode"))
	}
	return decode(k, m)
}

// decode validates a message's fields as an action of kind k.
func decode(k *Kind, raw Message) Command {
	var name string
	if err := unquote(raw.value("action"), &name); err != nil || name == "" {
		if _, ok := raw.get("action"); !ok {
			return refused(Refuse(ReasonUnknownAction, "err.action", "(none)"))
		}
		return refused(wrongField("action"))
	}
	act, ok := k.action(name)
	if !ok {
		return refused(Refuse(ReasonUnknownAction, "err.action", strconv.Quote(Clip(name))))
	}
	for _, f := range raw.fields {
		key, v := f.key, f.val
		switch {
		case key == "action":
		case key == "HEADERS":
			if !isObjectOrNull(v) {
				return refused(wrongField("HEADERS"))
			}
		case !contains(act.Fields, key):
			return refused(wrongField(strconv.Quote(Clip(key))))
		}
	}
	c := Command{Action: name}
	if act.Read != nil {
		if err := act.Read(raw, &c); err != nil {
			var r *Rejection
			if errors.As(err, &r) {
				return refused(r)
			}
			return refused(Refuse(ReasonWrongType, "err.decode"))
		}
	}
	if logged(name) {
		c.args = argsOf(act.Fields, raw)
	}
	return c
}

// argsOf returns an action's fields, compacted, in the order it lists them.
func argsOf(fields []string, raw Message) []json.RawMessage {
	args := make([]json.RawMessage, len(fields))
	for i, f := range fields {
		if v, ok := raw.get(f); ok {
			var c bytes.Buffer
			if json.Compact(&c, v) == nil {
				args[i] = c.Bytes()
			}
		}
	}
	return args
}

// wireOf writes an action message: the action, then its fields in the
// order the action lists them.
func wireOf(name string, fields []string, raw Message) []byte {
	b := make([]byte, 0, 32)
	b = append(b, `{"action":`...)
	b = strconv.AppendQuote(b, name)
	for _, f := range fields {
		v, ok := raw.get(f)
		if !ok {
			continue
		}
		b = append(b, ',')
		b = strconv.AppendQuote(b, f)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}')
}

// Has reports whether name is an action of kind k's set: its own, the pace,
// restore, the rooms' and the timeline's.
func (k *Kind) Has(name string) bool {
	_, ok := k.action(name)
	return ok
}

// action returns the action name of kind k's set: its own, the pace the
// framework carries for every demo, restore, and the rooms'.
func (k *Kind) action(name string) (Action, bool) {
	if a, ok := k.Actions[name]; ok {
		return a, true
	}
	switch name {
	case "step":
		return Step, true
	case "pause":
		return Pause, true
	case "speed":
		return Speed, true
	case "reset":
		return Reset, true
	case "controller":
		return Controller, k.Controller
	case "restore":
		return restore, true
	case RoomOpen, RoomClose: // the session's, for every demo: rooms
		return Action{}, true
	case RoomClaim:
		return roomClaim, true
	case ActTimeline:
		return timeline, true
	case ActTimelineLive, ActTimelineContinue:
		return Action{}, true
	case ActMoment:
		return moment, true
	}
	return Action{}, false
}

// moment reads a timeline written as text: base64url, bounded. What it
// says is checked when it is read (Kind.DecodeMoment).
func (m Message) moment(key string) (string, error) {
	var s string
	if err := unquote(m.value(key), &s); err != nil || s == "" || len(s) > MaxMomentLen {
		return "", wrongField(key)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", wrongField(key)
		}
	}
	return s, nil
}

// refused returns the command that carries only a rejection.
func refused(r *Rejection) Command { return Command{Reject: r} }

// RateLimited is the command a socket hands on for a message it did not
// read because the visitor sends too fast.
func RateLimited() Command { return refused(Refuse(ReasonRate, "err.rate")) }

// Clip shortens a visitor's string for an error message to MaxNameLen
// bytes, on a character boundary, so the frame stays valid UTF-8.
func Clip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxNameLen {
		return s
	}
	cut := MaxNameLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func wrongField(key string) *Rejection { return Refuse(ReasonWrongType, "err.field", key) }

// OutOfRange is the rejection of a count outside [lo, hi].
func OutOfRange(key string, lo, hi int) *Rejection {
	return Refuse(ReasonOutOfRange, "err.range", key, lo, hi)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isObjectOrNull(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return bytes.Equal(v, []byte("null")) || isObject(v)
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

// Name reads a non-empty string of at most MaxNameLen bytes.
func (m Message) Name(key string) (string, error) {
	var s string
	if err := unquote(m.value(key), &s); err != nil || s == "" || len(s) > MaxNameLen {
		return "", wrongField(key)
	}
	return s, nil
}

// Int reads an integer sent as a JSON number or, as form values are, a
// string of digits, and checks it against [lo, hi].
func (m Message) Int(key string, lo, hi int) (int, error) {
	v, ok := m.get(key)
	if !ok {
		return 0, wrongField(key)
	}
	var s string
	if err := unquote(v, &s); err != nil {
		s = string(bytes.TrimSpace(v))
	}
	if len(s) > 20 {
		return 0, OutOfRange(key, lo, hi)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, wrongField(key)
		}
		if f != float64(int64(f)) || f < float64(lo) || f > float64(hi) {
			return 0, OutOfRange(key, lo, hi)
		}
		n = int64(f)
	}
	if n < int64(lo) || n > int64(hi) {
		return 0, OutOfRange(key, lo, hi)
	}
	return int(n), nil
}

// Bool reads a JSON boolean or the strings "true" and "false". null (which
// json would leave as false) is refused.
func (m Message) Bool(key string) (bool, error) {
	var b bool
	if v := bytes.TrimSpace(m.value(key)); len(v) > 0 && !bytes.Equal(v, []byte("null")) && json.Unmarshal(v, &b) == nil {
		return b, nil
	}
	var s string
	if err := unquote(m.value(key), &s); err == nil && (s == "true" || s == "false") {
		return s == "true", nil
	}
	return false, wrongField(key)
}

// Speed reads "0.5", "1" or "2", as a string or a number.
func (m Message) Speed(key string) (sim.Speed, error) {
	raw := m.value(key)
	var s string
	if err := unquote(raw, &s); err != nil {
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return 0, wrongField(key)
		}
		s = string(bytes.TrimSpace(raw))
	}
	sp, err := sim.ParseSpeed(s)
	if err != nil {
		return 0, Refuse(ReasonOutOfRange, "err.field", key)
	}
	return sp, nil
}

// Choice reads a string that must be one of options.
func (m Message) Choice(key string, options ...string) (string, error) {
	var s string
	if err := unquote(m.value(key), &s); err != nil {
		return "", wrongField(key)
	}
	if !contains(options, s) {
		return "", Refuse(ReasonOutOfRange, "err.field", key)
	}
	return s, nil
}

// readMessage reads one JSON object and nothing after it into its fields.
// A message json.Valid passes is split by hand (readObject): a message is
// a small object of short strings and numbers, and json.Unmarshal into a
// map made a map and a copy of every value. Anything else (a key with an
// escape or a byte outside ASCII, which json.Unmarshal rewrites) is read by
// json.Unmarshal, as every message once was; not an object, or invalid, is
// not a message.
func readMessage(msg []byte) (Message, bool) {
	if !json.Valid(msg) {
		return Message{}, false
	}
	if m, ok := readObject(msg); ok {
		return m, true
	}
	return unmarshalMessage(msg)
}

// unmarshalMessage reads msg as json.Unmarshal into a map does; its fields
// come in key order.
func unmarshalMessage(msg []byte) (Message, bool) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(msg, &raw); err != nil || raw == nil {
		return Message{}, false
	}
	m := Message{fields: make([]field, 0, len(raw))}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		m.fields = append(m.fields, field{key: k, val: raw[k]})
	}
	return m, true
}

// readObject splits valid JSON that is an object into its fields, each
// value the bytes of msg it spans. It reports false for anything else, and
// for a key it would have to unescape.
func readObject(msg []byte) (Message, bool) {
	i := skipSpace(msg, 0)
	if i == len(msg) || msg[i] != '{' {
		return Message{}, false
	}
	m := Message{fields: make([]field, 0, 4)}
	i = skipSpace(msg, i+1)
	if msg[i] == '}' {
		return m, true
	}
	for {
		// A key: valid JSON has its closing quote; one with an escape or
		// a byte outside ASCII is json.Unmarshal's to read.
		start := i + 1
		end := start
		for ; msg[end] != '"'; end++ {
			if c := msg[end]; c == '\\' || c >= utf8.RuneSelf {
				return Message{}, false
			}
		}
		i = skipSpace(msg, skipSpace(msg, end+1)+1) // past the colon
		v := i
		i = skipValue(msg, i)
		m.fields = append(m.fields, field{key: string(msg[start:end]), val: msg[v:i]})
		i = skipSpace(msg, i)
		if msg[i] == '}' {
			return m, true
		}
		i = skipSpace(msg, i+1) // past the comma, at the next key
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// skipString returns the end of the valid JSON string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// unquote reads a JSON string into s. One of printable ASCII without
// escapes (a name, a number sent as a form value, a code) is its bytes;
// anything else is json.Unmarshal's, which unescapes and mends.
func unquote(v json.RawMessage, s *string) error {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		plain := true
		for _, c := range v[1 : len(v)-1] {
			if c < 0x20 || c >= utf8.RuneSelf || c == '\\' || c == '"' {
				plain = false
				break
			}
		}
		if plain {
			*s = string(v[1 : len(v)-1])
			return nil
		}
	}
	return json.Unmarshal(v, s)
}
