package demo

import (
	"bytes"
	"encoding/json"
	"testing"
)

// messageSeeds are messages of every shape the hand-split reader meets.
var messageSeeds = []string{
	`{"action":"kill","pod":"pod-1","HEADERS":{"HX-Request":"true","HX-Trigger":null}}`,
	`{"action":"set-replicas","replicas":5}`, `{ "action" : "step" , "x" : [1, {"a":"]}"}, "\"}"] }`,
	`{"action":"a","action":"b"}`, `{}`, ` {"a":true,"b":false,"c":null,"d":-1.5e3} `, `{"a":"\u00e9"}`,
	`{"\u0061ction":"step"}`, `{"ключ":1}`, `{"a":"\ud800"}`, `{"a":"x\\"}`, `[]`, `null`, `5`, `"s"`, `{`, ``,
	`{"a":1}{"b":2}`, `{"a":1} x`, `{"snapshot":{"v":1,"pods":[{"name":"p","phase":"Running"}]},"action":"restore"}`,
	"{\"a\":\t\"b\"\n}", `{"a":"<&>"}`,
}

// FuzzReadMessageAsUnmarshal: a message is read into the fields
// json.Unmarshal into a map reads, whichever reader reads it: the same
// keys, each with the same value, the last of a key sent twice.
func FuzzReadMessageAsUnmarshal(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		var want map[string]json.RawMessage
		wantOK := json.Unmarshal([]byte(msg), &want) == nil && want != nil
		m, ok := readMessage([]byte(msg))
		if ok != wantOK {
			t.Fatalf("%q: read %v, json.Unmarshal %v", msg, ok, wantOK)
		}
		if !ok {
			return
		}
		keys := map[string]bool{}
		for _, f := range m.fields {
			keys[f.key] = true
		}
		if len(keys) != len(want) {
			t.Fatalf("%q: keys %v, json.Unmarshal %v", msg, keys, want)
		}
		for k, v := range want {
			if got, ok := m.get(k); !ok || !bytes.Equal(got, v) {
				t.Fatalf("%q: field %q is %q, json.Unmarshal %q", msg, k, got, v)
			}
		}
	})
}

// FuzzUnquoteAsUnmarshal: a field's string is read as json.Unmarshal
// reads it, or refused where it refuses.
func FuzzUnquoteAsUnmarshal(f *testing.F) {
	for _, s := range []string{`"pod-1"`, `""`, `"a\"b"`, `"日本"`, `"\u00e9"`, `"\xff"`, `5`, `null`, `"tab	"`, `"`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		var got, want string
		gotErr := unquote(json.RawMessage(v), &got)
		wantErr := json.Unmarshal([]byte(v), &want)
		if (gotErr == nil) != (wantErr == nil) || got != want {
			t.Fatalf("%q: %q (%v), json.Unmarshal %q (%v)", v, got, gotErr, want, wantErr)
		}
	})
}

// TestReadMessageSplitsByHand: the messages the pages send are split by
// hand, not by json.Unmarshal; a key with an escape or outside ASCII is
// json.Unmarshal's.
func TestReadMessageSplitsByHand(t *testing.T) {
	for msg, byHand := range map[string]bool{
		`{"action":"kill","pod":"pod-1","HEADERS":{"HX-Request":"true"}}`: true,
		` { "action" : "speed", "speed" : 0.5 } `:                         true,
		`{}`:                  true,
		`{"\u0061ction":"x"}`: false,
		`{"ключ":1}`:          false,
	} {
		if _, ok := readObject([]byte(msg)); ok != byHand {
			t.Errorf("%s: split by hand %v, want %v", msg, ok, byHand)
		}
	}
}
