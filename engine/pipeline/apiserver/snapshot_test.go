package apiserver

import (
	"encoding/json"
	"testing"
	"time"
)

// TestAppendJSONAsMarshal: an object of every shape (each kind, with and
// without what is optional) is written by hand as json.Marshal writes
// Encode of it.
func TestAppendJSONAsMarshal(t *testing.T) {
	app := Object{Kind: KindApp, Name: "web", UID: 3, ResourceVersion: 9, Generation: 2, Spec: AppSpec{LogLevel: "debug"}}
	full := app.DeepCopy()
	full.DeletionTimestamp = Timestamp{Set: true, At: 1500 * time.Millisecond}
	full.Finalizers = []string{"demo.example/external", `odd"<name>`}
	full.Status = AppStatus{ObservedGeneration: 2, LastReconcileTime: Timestamp{Set: true, At: 2 * time.Second},
		Conditions: []Condition{{Type: "Ready", Status: "False", Reason: "NotReady", LastTransitionTime: 1999 * time.Millisecond},
			{Type: "Degraded", Status: "Unknown", Reason: "x"}}}
	zeroStamp := app.DeepCopy()
	zeroStamp.Status.LastReconcileTime = Timestamp{Set: true}
	cm := Object{Kind: KindConfigMap, Name: "web-config", UID: 5, ResourceVersion: 6, Data: ConfigData{LogLevel: "info"},
		Owner: OwnerRef{Kind: KindApp, Name: "web", UID: 3}}
	secret := Object{Kind: KindSecret, Name: "token", UID: 1, ResourceVersion: 1}
	for name, o := range map[string]Object{"app": app, "app, every field": full, "app, zero times set": zeroStamp,
		"configmap": cm, "secret": secret, "zero": {}} {
		want, err := json.Marshal(Encode(o))
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendJSON(nil, o); string(got) != string(want) {
			t.Errorf("%s: AppendJSON\n%s\njson.Marshal\n%s", name, got, want)
		}
	}
}
