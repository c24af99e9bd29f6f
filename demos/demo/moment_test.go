package demo

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// momentKind is a kind with actions of every shape a log holds: none, a
// name, a count, a switch.
var momentKind = Kind{Name: "tally", Prefix: "ty", Controller: true, Actions: map[string]Action{
	"bump": {}, "name": Name("pod"), "count": Int("n", 0, 10), "flag": Bool("on"),
}}

func sampleTimeline() *Timeline {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	return &Timeline{StartAt: 0, Entries: []Entry{
		{At: 0, Action: "bump", Args: []json.RawMessage{}},
		{At: 1500 * time.Millisecond, Action: "name", Args: []json.RawMessage{raw(`"pod-3"`)}},
		{At: 1500 * time.Millisecond, Action: "count", Args: []json.RawMessage{raw(`"7"`)}},
		{At: 62 * time.Second, Action: "flag", Args: []json.RawMessage{raw(`true`)}},
		{At: 63 * time.Second, Action: "speed", Args: []json.RawMessage{raw(`"2"`)}},
		{At: 70 * time.Second, Action: "controller", Args: []json.RawMessage{nil}},
	}}
}

// TestMomentRoundTrip: a timeline written as a link reads back the same,
// with or without a start snapshot.
func TestMomentRoundTrip(t *testing.T) {
	for _, start := range []json.RawMessage{nil, json.RawMessage(`{"v":1,"now":12000,"desired":4}`)} {
		tl := sampleTimeline()
		tl.Start = start
		if start != nil {
			tl.StartAt = 12 * time.Second
			for i := range tl.Entries {
				tl.Entries[i].At += 12 * time.Second
			}
		}
		s := encodeMoment(&momentKind, tl, deflate(start))
		got, err := momentKind.DecodeMoment(s)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if !reflect.DeepEqual(got, tl) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, tl)
		}
	}
}

// TestMomentRefusals: a damaged link, a link of another build or another
// demo, and one over the bounds are refused with the error that says which.
func TestMomentRefusals(t *testing.T) {
	good := encodeMoment(&momentKind, sampleTimeline(), nil)
	other := momentKind
	other.Replay = 2
	otherActions := momentKind
	otherActions.Actions = map[string]Action{"bump": {}, "name": Name("pod"), "count": Int("n", 0, 10)}
	for _, tc := range []struct {
		name string
		kind *Kind
		s    string
		want error
	}{
		{"empty", &momentKind, "", ErrMomentMalformed},
		{"not base64", &momentKind, "*!" + good, ErrMomentMalformed},
		{"a character changed", &momentKind, flip(good, len(good)/2), ErrMomentMalformed},
		{"truncated", &momentKind, good[:len(good)-3], ErrMomentMalformed},
		{"too long", &momentKind, strings.Repeat("A", MaxMomentLen+1), ErrMomentMalformed},
		{"a newer behaviour", &other, good, ErrMomentVersion},
		{"other actions", &otherActions, good, ErrMomentVersion},
	} {
		if _, err := tc.kind.DecodeMoment(tc.s); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func flip(s string, i int) string {
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

// FuzzDecodeMoment: reading any text as a link never panics; what reads
// is within the bounds and writes back to the same text.
func FuzzDecodeMoment(f *testing.F) {
	f.Add(encodeMoment(&momentKind, sampleTimeline(), nil))
	f.Add(encodeMoment(&momentKind, &Timeline{}, nil))
	tl := sampleTimeline()
	tl.Start = json.RawMessage(`{"v":1}`)
	f.Add(encodeMoment(&momentKind, tl, deflate(tl.Start)))
	f.Add("AQEAAAAAAA")
	f.Fuzz(func(t *testing.T, s string) {
		tl, err := momentKind.DecodeMoment(s)
		if err != nil {
			if !errors.Is(err, ErrMomentMalformed) && !errors.Is(err, ErrMomentVersion) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(tl.Entries) > MaxEntries || len(tl.Start) > maxStart {
			t.Fatalf("over the bounds: %d entries, start %d bytes", len(tl.Entries), len(tl.Start))
		}
		prev := tl.StartAt
		for _, e := range tl.Entries {
			if e.At < prev {
				t.Fatalf("time goes back: %v after %v", e.At, prev)
			}
			prev = e.At
			if !momentKind.Has(e.Action) {
				t.Fatalf("an action %q the kind does not have", e.Action)
			}
		}
		again, err := momentKind.DecodeMoment(encodeMoment(&momentKind, tl, deflate(tl.Start)))
		if err != nil || !reflect.DeepEqual(again, tl) {
			t.Fatalf("does not write back: %v", err)
		}
	})
}
