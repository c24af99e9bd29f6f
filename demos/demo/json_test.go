package demo_test

import (
	"encoding/json"
	"testing"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

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
