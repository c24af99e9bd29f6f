package demo

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// A timeline is a demo's start and the actions taken since, each at its
// virtual time: the engines are pure and seeded, so replaying it gives
// every moment of the session exactly. Written compactly, it is a link to
// a moment (with the moment's time beside it) and what a page keeps with
// its snapshot so that its timeline survives a restart.

// Timeline is where a session's log starts and what was done since.
type Timeline struct {
	// Start is the state the log starts from: nil for the kind's starting
	// state, or a snapshot (the page's, after a restart; or older history
	// folded away).
	Start   json.RawMessage
	StartAt time.Duration // the virtual time of Start
	Entries []Entry
}

// Entry is one accepted action of the log.
type Entry struct {
	At     time.Duration     // virtual time, whole milliseconds
	Action string            // one of the kind's actions
	Args   []json.RawMessage // its fields, in the order the action lists them; nil where absent
}

// Limits of a timeline, in memory and in a link.
const (
	// MaxEntries bounds the log: older history is folded into the start.
	MaxEntries = 1000
	// foldEntries is how many of the oldest entries a fold drops at once.
	foldEntries = 250
	// MaxMomentLen bounds a timeline written as text: a link, or what a
	// page sends back with its snapshot.
	MaxMomentLen = 24 << 10
	// maxStart bounds a start snapshot once inflated.
	maxStart = 16 << 10
	// maxArg bounds one field of one action.
	maxArg = 256
	// MaxReplay bounds how far past its last action a timeline is replayed:
	// an hour of virtual time, which a replay runs through in milliseconds.
	MaxReplay = time.Hour
)

// momentFormat is the version of the written form; the kind's Replay
// version and its action table are checked beside it.
const momentFormat = 1

// Errors of reading a timeline.
var (
	ErrMomentMalformed = errors.New("the link is damaged or incomplete")
	ErrMomentVersion   = errors.New("the link was made by another version of this demo")
)

// actionTable returns the names of every action of k that a log holds,
// sorted: the demo's own and the pace. Every link written reads it: it is
// made once per kind (a Kind's actions do not change once it serves).
func (k *Kind) actionTable() []string { return k.table().names }

// tableHash is 16 bits of the action table (names and fields): a link
// written by a build whose actions differ is refused, never misread.
func (k *Kind) tableHash() uint16 { return k.table().hash }

type actionTable struct {
	names []string
	hash  uint16
}

var actionTables sync.Map // *Kind → *actionTable

func (k *Kind) table() *actionTable {
	if t, ok := actionTables.Load(k); ok {
		return t.(*actionTable)
	}
	names := make([]string, 0, len(k.Actions)+5)
	for n := range k.Actions {
		names = append(names, n)
	}
	for _, n := range []string{"step", "pause", "speed", "reset"} {
		if _, own := k.Actions[n]; !own {
			names = append(names, n)
		}
	}
	if _, own := k.Actions["controller"]; k.Controller && !own {
		names = append(names, "controller")
	}
	slices.Sort(names)
	h := fnv.New32a()
	for _, n := range names {
		a, _ := k.action(n)
		h.Write([]byte(n))
		h.Write([]byte{':'})
		for _, f := range a.Fields {
			h.Write([]byte(f))
			h.Write([]byte{','})
		}
		h.Write([]byte{';'})
	}
	s := h.Sum32()
	t, _ := actionTables.LoadOrStore(k, &actionTable{names: names, hash: uint16(s ^ s>>16)})
	return t.(*actionTable)
}

// replayVersion is the kind's Replay, at least 1.
func (k *Kind) replayVersion() uint64 { return uint64(max(k.Replay, 1)) }

// encodeMoment writes tl for kind k: base64url of the format, the kind's
// versions, the start (deflated), the entries (time deltas in ms, action
// indexes, fields) and a CRC-32 of it all.
func encodeMoment(k *Kind, tl *Timeline, startZ []byte) string {
	table := k.actionTable()
	scratch := getBuffer()
	defer buffers.Put(scratch)
	b := scratch.AvailableBuffer()
	b = append(b, momentFormat)
	b = binary.AppendUvarint(b, k.replayVersion())
	b = binary.BigEndian.AppendUint16(b, k.tableHash())
	b = binary.AppendUvarint(b, uint64(tl.StartAt.Milliseconds()))
	b = binary.AppendUvarint(b, uint64(len(startZ)))
	b = append(b, startZ...)
	b = binary.AppendUvarint(b, uint64(len(tl.Entries)))
	prev := tl.StartAt
	for _, e := range tl.Entries {
		b = binary.AppendUvarint(b, uint64((e.At - prev).Milliseconds()))
		prev = e.At
		idx, _ := slices.BinarySearch(table, e.Action)
		b = binary.AppendUvarint(b, uint64(idx))
		for _, a := range e.Args {
			if a == nil {
				b = append(b, 0) // absent
				continue
			}
			b = binary.AppendUvarint(b, uint64(len(a))+1)
			b = append(b, a...)
		}
	}
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	scratch.Write(b) // keeps what it grew to for the next
	// The link's text is the only copy that stays: written once, then
	// read as a string.
	enc := base64.RawURLEncoding
	out := enc.AppendEncode(make([]byte, 0, enc.EncodedLen(len(b))), b)
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// deflate compresses a start snapshot for a link.
func deflate(start []byte) []byte {
	if start == nil {
		return nil
	}
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(start)
	w.Close()
	return buf.Bytes()
}

// DecodeMoment reads a timeline that k's encodeMoment wrote, checking
// every length and bound; the actions themselves are checked when they are
// replayed. ErrMomentVersion: another build wrote it.
func (k *Kind) DecodeMoment(s string) (*Timeline, error) {
	if len(s) == 0 || len(s) > MaxMomentLen {
		return nil, ErrMomentMalformed
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 5 {
		return nil, ErrMomentMalformed
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, ErrMomentMalformed
	}
	r := &reader{b: body}
	if r.byte() != momentFormat {
		return nil, ErrMomentVersion
	}
	if r.uvarint() != k.replayVersion() || r.uint16() != k.tableHash() {
		if r.err != nil {
			return nil, ErrMomentMalformed
		}
		return nil, ErrMomentVersion
	}
	tl := &Timeline{StartAt: r.millis()}
	if z := r.bytes(1 << 16); len(z) > 0 {
		start, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), maxStart+1))
		if err != nil || len(start) > maxStart || !json.Valid(start) {
			return nil, ErrMomentMalformed
		}
		tl.Start = start
	}
	n := r.uvarint()
	if n > MaxEntries {
		return nil, ErrMomentMalformed
	}
	table := k.actionTable()
	at := tl.StartAt
	for range n {
		at += r.millis()
		idx := r.uvarint()
		if r.err != nil || idx >= uint64(len(table)) || at > sim.MaxClock {
			return nil, ErrMomentMalformed
		}
		act, _ := k.action(table[idx])
		e := Entry{At: at, Action: table[idx], Args: make([]json.RawMessage, len(act.Fields))}
		for i := range act.Fields {
			if l := r.uvarint(); l > 0 {
				if l-1 == 0 || l-1 > maxArg {
					return nil, ErrMomentMalformed
				}
				e.Args[i] = json.RawMessage(r.take(int(l - 1)))
			}
		}
		tl.Entries = append(tl.Entries, e)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, ErrMomentMalformed
	}
	return tl, nil
}

// reader reads the binary form; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = ErrMomentMalformed
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) uint16() uint16 {
	if b := r.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = ErrMomentMalformed
		return 0
	}
	r.b = r.b[n:]
	return v
}

// millis reads a count of milliseconds within the clock's range.
func (r *reader) millis() time.Duration {
	v := r.uvarint()
	if v > uint64(sim.MaxSnapshotNow) {
		r.err = ErrMomentMalformed
		return 0
	}
	return time.Duration(v) * time.Millisecond
}

func (r *reader) bytes(max uint64) []byte {
	n := r.uvarint()
	if n > max {
		r.err = ErrMomentMalformed
		return nil
	}
	return r.take(int(n))
}

// wire writes an entry as the message Decode reads.
func (e Entry) wire(k *Kind) []byte {
	act, _ := k.action(e.Action)
	var raw Message
	for i, a := range e.Args {
		if a != nil && i < len(act.Fields) {
			raw.fields = append(raw.fields, field{key: act.Fields[i], val: a})
		}
	}
	return wireOf(e.Action, act.Fields, raw)
}

// entryOf makes a log entry of a decoded command applied at virtual time
// at.
func entryOf(k *Kind, c Command, at time.Duration) (Entry, bool) {
	act, ok := k.action(c.Action)
	if !ok || c.args == nil && len(act.Fields) > 0 {
		return Entry{}, false
	}
	return Entry{At: at, Action: c.Action, Args: c.args}, true
}

// momentURLAt formats a moment's time for a link's query.
func momentURLAt(at time.Duration) string { return strconv.FormatInt(at.Milliseconds(), 10) }

// ParseMomentAt reads a link's moment, in virtual milliseconds.
func ParseMomentAt(s string) (time.Duration, error) {
	if len(s) == 0 || len(s) > 13 {
		return 0, fmt.Errorf("moment %q: %w", Clip(s), ErrMomentMalformed)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > sim.MaxSnapshotNow {
		return 0, fmt.Errorf("moment %q: %w", Clip(s), ErrMomentMalformed)
	}
	return time.Duration(n) * time.Millisecond, nil
}
