package templates

import (
	"encoding/json"
	"testing"
	"time"
)

// TestValsWritesWhatEncodingJSONWrites: the direct path for plain values
// writes byte for byte what encoding/json writes for the same map, and
// whatever it cannot write goes through encoding/json.
func TestValsWritesWhatEncodingJSONWrites(t *testing.T) {
	for _, kv := range [][]any{
		{},
		{"action", "replicas-inc"},
		{"action", "kill", "pod", "web-7f2k"},
		{"pod", "web-1", "action", "kill"},
		{"on", true, "component", "scheduler", "action", "component"},
		{"n", 4, "action", "set-replicas"},
		{"n", -3, "z", false, "a", "x", "m", "y"},
		{"action", "preset", "preset", "<script>"}, // escaped by encoding/json
		{"action", "x", "name", "ノード"},             // not ASCII
		{"action", "x", "action", "y"},             // a repeated key: the last wins
		{"a", 1, "b", 2, "c", 3, "d", 4, "e", 5},   // more pairs than the direct path takes
		{"action", "x", "f", 1.5},                  // a float
		{"quote\"key", "v"},                        // a key that needs escaping
	} {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := Vals(kv...); got != string(want) {
			t.Errorf("Vals(%v) = %s, want %s", kv, got, want)
		}
	}
}

// TestClockText: mm:ss.s, rounded to the tenth.
func TestClockText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                        "00:00.0",
		1234 * time.Millisecond:  "00:01.2",
		59960 * time.Millisecond: "01:00.0",
		(9*60 + 5) * time.Second: "09:05.0",
		(123*60+7)*time.Second + 450*time.Millisecond: "123:07.5",
	} {
		if got := ClockText(d); got != want {
			t.Errorf("ClockText(%v) = %q, want %q", d, got, want)
		}
	}
}
