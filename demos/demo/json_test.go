package demo_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// TestAppendJSONStringAsMarshal: a snapshot's strings are written as
// json.Marshal writes them, whether or not they need escaping.
func TestAppendJSONStringAsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []string{"", "pod-1", "dropped", `a"b`, `a\b`, "<x>", "a&b", "tab\there", "日本", "\u2028", "\x7f", "\xff"}
	for range 500 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := demo.AppendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendJSONString(%q) = %s, json.Marshal %s", s, got[1:], want)
		}
	}
}

// TestAppendEnvelopeAsMarshal: an envelope, closed, is json.Marshal's, with
// and without its kind.
func TestAppendEnvelopeAsMarshal(t *testing.T) {
	for _, env := range []sim.Envelope{
		{V: 1, Kind: "reconcile", Now: 1234, Paused: true, Speed: "2x"},
		{V: 2, Now: 0, Speed: "0.5x"},
		{V: 1, Kind: `k"<`, Now: -5, Speed: ""},
	} {
		want, _ := json.Marshal(env)
		if got := string(demo.AppendEnvelope(nil, env)) + "}"; got != string(want) {
			t.Errorf("AppendEnvelope(%+v) = %s, json.Marshal %s", env, got, want)
		}
	}
}
