package demo_test

// Decode: the closed set of actions, every accepted spelling, every
// refused shape and its reason, and a fuzz target for its invariants.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/operator"
	"github.com/reconcile-demo/reconcile-demo/demos/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	tmpl "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestDecodeCommandAccepts: every action of each demo decodes, in the
// spellings htmx-ext-ws sends (form values are strings, hx-vals keep their
// JSON types).
func TestDecodeCommandAccepts(t *testing.T) {
	headers := `"HEADERS":{"HX-Request":"true","HX-Trigger":"rc-step","HX-Trigger-Name":null,"HX-Target":"rc","HX-Current-URL":"http://x/"}`
	for _, tc := range []struct {
		demo, msg string
		want      demo.Command
	}{
		{"reconcile", htmx("kill", "pod", "pod-1"), demo.Command{Action: "kill", Name: "pod-1"}},
		{"reconcile", htmx("replicas-inc"), demo.Command{Action: "replicas-inc"}},
		{"reconcile", htmx("replicas-dec"), demo.Command{Action: "replicas-dec"}},
		{"reconcile", htmx("set-replicas", "replicas", "5"), demo.Command{Action: "set-replicas", N: 5}},
		{"reconcile", htmx("set-replicas", "replicas", 5), demo.Command{Action: "set-replicas", N: 5}},
		{"reconcile", htmx("set-replicas", "replicas", "0"), demo.Command{Action: "set-replicas", N: 0}},
		{"reconcile", htmx("set-replicas", "replicas", reconcile.MaxDesired), demo.Command{Action: "set-replicas", N: reconcile.MaxDesired}},
		{"reconcile", htmx("controller", "on", true), demo.Command{Action: "controller", On: true}},
		{"reconcile", htmx("controller", "on", "true"), demo.Command{Action: "controller", On: true}},
		{"reconcile", htmx("controller", "on", false), demo.Command{Action: "controller", On: false}},
		{"reconcile", htmx("controller", "on", "false"), demo.Command{Action: "controller", On: false}},
		{"reconcile", htmx("step"), demo.Command{Action: "step"}},
		{"reconcile", htmx("pause", "paused", true), demo.Command{Action: "pause", On: true}},
		{"reconcile", htmx("pause", "paused", "false"), demo.Command{Action: "pause", On: false}},
		{"reconcile", htmx("speed", "speed", "0.5"), demo.Command{Action: "speed", Speed: sim.Half}},
		{"reconcile", htmx("speed", "speed", "1"), demo.Command{Action: "speed", Speed: sim.Normal}},
		{"reconcile", htmx("speed", "speed", "2"), demo.Command{Action: "speed", Speed: sim.Double}},
		{"reconcile", htmx("speed", "speed", 2), demo.Command{Action: "speed", Speed: sim.Double}},
		{"reconcile", htmx("reset"), demo.Command{Action: "reset"}},
		{"reconcile", `{"action":"restore","snapshot":{"v":1}}`, demo.Command{Action: "restore", Snapshot: json.RawMessage(`{"v":1}`)}},
		{"reconcile", `{"action":"room-claim","code":"ABC234","secret":"` + secret + `"}`, demo.Command{Action: "room-claim", Name: "ABC234", Secret: secret}},
		{"operator", `{"action":"room-open"}`, demo.Command{Action: "room-open"}},
		{"reconcile", `{"action":"step"}`, demo.Command{Action: "step"}},
		{"reconcile", `{"action":"step","HEADERS":null}`, demo.Command{Action: "step"}},
		{"reconcile", `{"action":"step",` + headers + `}`, demo.Command{Action: "step"}},
		{"reconcile", " \n{\"action\" : \"step\"}\n ", demo.Command{Action: "step"}},
		{"operator", htmx("kill-member", "member", "db-1"), demo.Command{Action: "kill-member", Name: "db-1"}},
		{"operator", htmx("members-inc"), demo.Command{Action: "members-inc"}},
		{"operator", htmx("members-dec"), demo.Command{Action: "members-dec"}},
		{"operator", htmx("set-members", "members", "5"), demo.Command{Action: "set-members", N: 5}},
		{"operator", htmx("set-members", "members", 5), demo.Command{Action: "set-members", N: 5}},
		{"operator", htmx("set-members", "members", operator.MinMembers), demo.Command{Action: "set-members", N: operator.MinMembers}},
		{"operator", htmx("set-members", "members", operator.MaxMembers), demo.Command{Action: "set-members", N: operator.MaxMembers}},
		{"operator", htmx("backup", "present", false), demo.Command{Action: "backup", On: false}},
		{"operator", htmx("backup", "present", "true"), demo.Command{Action: "backup", On: true}},
		{"operator", htmx("controller", "on", "true"), demo.Command{Action: "controller", On: true}},
		{"operator", htmx("step"), demo.Command{Action: "step"}},
		{"operator", htmx("pause", "paused", true), demo.Command{Action: "pause", On: true}},
		{"operator", htmx("speed", "speed", "0.5"), demo.Command{Action: "speed", Speed: sim.Half}},
		{"operator", htmx("reset"), demo.Command{Action: "reset"}},
		{"operator", `{"action":"restore","snapshot":{}}`, demo.Command{Action: "restore", Snapshot: json.RawMessage(`{}`)}},
	} {
		t.Run(tc.demo+" "+short(tc.msg), func(t *testing.T) {
			got := demo.Decode(kindOf(tc.demo), []byte(tc.msg))
			if got.Reject != nil {
				t.Fatalf("refused: %v", got.Reject)
			}
			if got.Action != tc.want.Action || got.Name != tc.want.Name || got.N != tc.want.N || got.On != tc.want.On ||
				got.Speed != tc.want.Speed || string(got.Snapshot) != string(tc.want.Snapshot) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestDecodeCommandCoversActionFields: the accept table above names every
// action of actionFields, so a new action cannot go untested.
func TestDecodeCommandCoversActionFields(t *testing.T) {
	samples := map[string]map[string]string{
		"reconcile": {"kill": `"pod":"pod-1"`, "set-replicas": `"replicas":1`, "controller": `"on":true`,
			"pause": `"paused":true`, "speed": `"speed":"1"`, "restore": `"snapshot":{}`},
		"operator": {"kill-member": `"member":"db-1"`, "set-members": `"members":1`, "backup": `"present":true`,
			"controller": `"on":true`, "pause": `"paused":true`, "speed": `"speed":"1"`, "restore": `"snapshot":{}`},
	}
	for _, k := range []*demo.Kind{&reconcile.Kind, &operator.Kind} {
		actions := map[string][]string{"restore": {"snapshot"}}
		for name, a := range k.Actions {
			actions[name] = a.Fields
		}
		for action, fields := range actions {
			extra := samples[k.Name][action]
			if (extra == "") != (len(fields) == 0) {
				t.Errorf("%s %s takes fields %v: this test has no sample for them", k.Name, action, fields)
				continue
			}
			msg := `{"action":"` + action + `"`
			if extra != "" {
				msg += "," + extra
			}
			msg += "}"
			if c := demo.Decode(k, []byte(msg)); c.Reject != nil || c.Action != action {
				t.Errorf("%s %s: %+v", k.Name, msg, c)
			}
		}
	}
}

// TestDecodeCommandRefuses: every invalid shape is refused with its reason,
// and the refusal carries nothing else.
func TestDecodeCommandRefuses(t *testing.T) {
	long := strings.Repeat("p", demo.MaxNameLen+1)
	for _, tc := range []struct {
		demo, msg, reason string
	}{
		// Not one JSON object.
		{"reconcile", ``, demo.ReasonMalformed},
		{"reconcile", `   `, demo.ReasonMalformed},
		{"reconcile", `{`, demo.ReasonMalformed},
		{"reconcile", `{"action":"step"`, demo.ReasonMalformed},
		{"reconcile", `null`, demo.ReasonMalformed},
		{"reconcile", `[]`, demo.ReasonMalformed},
		{"reconcile", `[{"action":"step"}]`, demo.ReasonMalformed},
		{"reconcile", `"step"`, demo.ReasonMalformed},
		{"reconcile", `42`, demo.ReasonMalformed},
		{"reconcile", `{"action":"step"}{"action":"step"}`, demo.ReasonMalformed},
		{"reconcile", `{"action":"step"} x`, demo.ReasonMalformed},
		{"reconcile", "\xff\xfe", demo.ReasonMalformed},
		// No action, or not one of this demo's.
		{"reconcile", `{}`, demo.ReasonUnknownAction},
		{"reconcile", `{"HEADERS":{}}`, demo.ReasonUnknownAction},
		{"reconcile", `{"Action":"step"}`, demo.ReasonUnknownAction},
		{"reconcile", htmx("explode"), demo.ReasonUnknownAction},
		{"reconcile", htmx("STEP"), demo.ReasonUnknownAction},
		{"reconcile", htmx("kill-member", "member", "db-1"), demo.ReasonUnknownAction},
		{"reconcile", htmx("set-members", "members", 3), demo.ReasonUnknownAction},
		{"reconcile", htmx("backup", "present", true), demo.ReasonUnknownAction},
		{"operator", htmx("kill", "pod", "pod-1"), demo.ReasonUnknownAction},
		{"operator", htmx("set-replicas", "replicas", 3), demo.ReasonUnknownAction},
		{"pipeline", htmx("kill", "pod", "pod-1"), demo.ReasonUnknownAction},
		{"pipeline", htmx("controller", "on", true), demo.ReasonUnknownAction}, // it has no controller switch
		{"reconcile", htmx(strings.Repeat("a", 10000)), demo.ReasonUnknownAction},
		// The action of the wrong type.
		{"reconcile", `{"action":5}`, demo.ReasonWrongType},
		{"reconcile", `{"action":true}`, demo.ReasonWrongType},
		{"reconcile", `{"action":["step"]}`, demo.ReasonWrongType},
		{"reconcile", `{"action":{"step":1}}`, demo.ReasonWrongType},
		{"reconcile", `{"action":null}`, demo.ReasonWrongType},
		{"reconcile", `{"action":""}`, demo.ReasonWrongType},
		// Fields the action does not take.
		{"reconcile", htmx("step", "evil", 1), demo.ReasonWrongType},
		{"reconcile", htmx("step", "replicas", 3), demo.ReasonWrongType},
		{"reconcile", htmx("kill", "pod", "pod-1", "member", "db-1"), demo.ReasonWrongType},
		{"reconcile", `{"action":"step","HEADERS":"x"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"step","HEADERS":[]}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"step","HEADERS":1}`, demo.ReasonWrongType},
		// Names.
		{"reconcile", htmx("kill"), demo.ReasonWrongType},
		{"reconcile", htmx("kill", "pod", 123), demo.ReasonWrongType},
		{"reconcile", htmx("kill", "pod", ""), demo.ReasonWrongType},
		{"reconcile", htmx("kill", "pod", nil), demo.ReasonWrongType},
		{"reconcile", htmx("kill", "pod", true), demo.ReasonWrongType},
		{"reconcile", htmx("kill", "pod", []string{"pod-1"}), demo.ReasonWrongType},
		{"reconcile", htmx("kill", "pod", long), demo.ReasonWrongType},
		{"operator", htmx("kill-member"), demo.ReasonWrongType},
		{"operator", htmx("kill-member", "member", 1), demo.ReasonWrongType},
		{"operator", htmx("kill-member", "member", long), demo.ReasonWrongType},
		// Counts of the wrong type.
		{"reconcile", htmx("set-replicas"), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", "abc"), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", ""), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", " 5"), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", "5 "), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", "0x5"), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", "5replicas"), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", true), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", nil), demo.ReasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", []int{5}), demo.ReasonWrongType},
		{"reconcile", `{"action":"set-replicas","replicas":{"n":5}}`, demo.ReasonWrongType},
		{"operator", htmx("set-members"), demo.ReasonWrongType},
		{"operator", htmx("set-members", "members", "three"), demo.ReasonWrongType},
		// Counts out of range, or not whole.
		{"reconcile", htmx("set-replicas", "replicas", reconcile.MaxDesired+1), demo.ReasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", "11"), demo.ReasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", -1), demo.ReasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", "-1"), demo.ReasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":2.5}`, demo.ReasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":"2.5"}`, demo.ReasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":1e308}`, demo.ReasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":-1e308}`, demo.ReasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":99999999999999999999}`, demo.ReasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":9223372036854775807}`, demo.ReasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":-9223372036854775808}`, demo.ReasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":4294967299}`, demo.ReasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", "NaN"), demo.ReasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", "Inf"), demo.ReasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", strings.Repeat("9", 1000)), demo.ReasonOutOfRange},
		{"operator", htmx("set-members", "members", operator.MinMembers-1), demo.ReasonOutOfRange},
		{"operator", htmx("set-members", "members", operator.MaxMembers+1), demo.ReasonOutOfRange},
		{"operator", htmx("set-members", "members", "-3"), demo.ReasonOutOfRange},
		// Switches.
		{"reconcile", htmx("controller"), demo.ReasonWrongType},
		{"reconcile", htmx("controller", "on", "yes"), demo.ReasonWrongType},
		{"reconcile", htmx("controller", "on", "TRUE"), demo.ReasonWrongType},
		{"reconcile", htmx("controller", "on", "1"), demo.ReasonWrongType},
		{"reconcile", htmx("controller", "on", 1), demo.ReasonWrongType},
		{"reconcile", htmx("controller", "on", nil), demo.ReasonWrongType},
		{"reconcile", htmx("pause", "paused", nil), demo.ReasonWrongType},
		{"operator", htmx("backup", "present", nil), demo.ReasonWrongType},
		{"reconcile", htmx("pause", "paused", "no"), demo.ReasonWrongType},
		{"operator", htmx("backup", "present", "yes"), demo.ReasonWrongType},
		{"operator", htmx("backup"), demo.ReasonWrongType},
		// Speed: a value not offered is out of range; a value that is not a
		// speed at all is of the wrong type, as for every other field.
		{"reconcile", htmx("speed", "speed", "3"), demo.ReasonOutOfRange},
		{"reconcile", htmx("speed", "speed", "fast"), demo.ReasonOutOfRange},
		{"reconcile", htmx("speed", "speed", "0.50"), demo.ReasonOutOfRange},
		{"reconcile", htmx("speed"), demo.ReasonWrongType},
		{"reconcile", htmx("speed", "speed", true), demo.ReasonWrongType},
		// Snapshots that are not objects.
		{"reconcile", `{"action":"restore"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"room-claim","code":"ABC234"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"room-claim","secret":"` + secret + `"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"room-claim","code":"abc234","secret":"` + secret + `"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"room-claim","code":"ABC2345","secret":"` + secret + `"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"room-claim","code":"ABC234","secret":"` + secret[1:] + `"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"room-claim","code":"ABC234","secret":"` + secret[1:] + `="}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"room-claim","code":"ABC234","secret":` + strconvQuote(secret) + `,"sid":"x"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"room-claim","code":6,"secret":"` + secret + `"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"restore","snapshot":null}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"restore","snapshot":"{}"}`, demo.ReasonWrongType},
		{"reconcile", `{"action":"restore","snapshot":[]}`, demo.ReasonWrongType},
		{"operator", `{"action":"restore","snapshot":1}`, demo.ReasonWrongType},
	} {
		t.Run(tc.demo+" "+short(tc.msg), func(t *testing.T) {
			got := demo.Decode(kindOf(tc.demo), []byte(tc.msg))
			if got.Reject == nil {
				t.Fatalf("accepted as %+v, want refused (%s)", got, tc.reason)
			}
			if got.Reject.Reason != tc.reason {
				t.Errorf("reason %q (%v), want %q", got.Reject.Reason, got.Reject, tc.reason)
			}
			checkRefusal(t, got)
		})
	}
}

// TestRefusalTextIsValidUTF8: the sentence shown for a refusal is valid
// UTF-8 however the visitor's input is cut, or the text frame carrying it
// is invalid and the browser fails the socket (1007).
func TestRefusalTextIsValidUTF8(t *testing.T) {
	for _, tc := range []struct{ name, msg string }{
		{"long action cut inside a character", htmx(strings.Repeat("x", demo.MaxNameLen-1) + "éé")},
		{"long field cut inside a character", htmx("step", strings.Repeat("x", demo.MaxNameLen-1)+"éé", 1)},
		{"long field of kana", htmx("step", strings.Repeat("あ", 20), 1)},
		{"field that is not UTF-8", htmx("step", "\xff\xfe", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := demo.Decode(kindOf("reconcile"), []byte(tc.msg))
			if c.Reject == nil {
				t.Fatal("accepted")
			}
			for _, l := range []tmpl.Lang{tmpl.Ja, tmpl.En} {
				if text := c.Reject.Text(l); !utf8.ValidString(text) {
					t.Errorf("%s refusal text is not valid UTF-8: %q", l, text)
				}
			}
		})
	}
}

// checkRefusal checks what every refusal must hold: a known reason, a
// sentence in each language, and no command beside it.
func checkRefusal(t *testing.T, c demo.Command) {
	t.Helper()
	reasons := []string{demo.ReasonMalformed, demo.ReasonUnknownAction, demo.ReasonWrongType, demo.ReasonOutOfRange}
	if !slices.Contains(reasons, c.Reject.Reason) {
		t.Errorf("reason %q is not one decodeCommand gives", c.Reject.Reason)
	}
	if c.Action != "" || c.Name != "" || c.N != 0 || c.On || c.Speed != 0 || c.Snapshot != nil {
		t.Errorf("a refusal carries a command too: %+v", c)
	}
	for _, l := range []tmpl.Lang{tmpl.Ja, tmpl.En} {
		text := c.Reject.Text(l)
		if text == "" || strings.Contains(text, "%!") {
			t.Errorf("%s refusal text %q for %v", l, text, c.Reject)
		}
		if !utf8.ValidString(text) {
			t.Errorf("%s refusal text is not valid UTF-8: %q", l, text)
		}
	}
}

// secret has the shape of an owner secret.
var secret = "0123456789abcdefghijklmnopqrstuvwxyzABC-_xY"

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// short names a message in a subtest: without its HEADERS, cut at 60 bytes.
func short(msg string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(msg), &m) == nil && m != nil {
		delete(m, "HEADERS")
		b, _ := json.Marshal(m)
		msg = string(b)
	}
	if len(msg) > 60 {
		msg = msg[:60] + "…"
	}
	return msg
}

// FuzzDecodeCommand: Decode never panics, and whatever it accepts is
// an action of the demo with its values in range.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range []string{
		htmx("kill", "pod", "pod-1"), htmx("set-replicas", "replicas", "5"), htmx("set-replicas", "replicas", 5),
		htmx("controller", "on", true), htmx("speed", "speed", "0.5"), htmx("kill-member", "member", "db-1"),
		htmx("set-members", "members", 7), htmx("backup", "present", "false"), htmx("pause", "paused", true),
		`{"action":"restore","snapshot":{"v":1,"desired":3}}`, `{"action":"set-replicas","replicas":1e308}`,
		`{"action":"set-replicas","replicas":"99999999999999999999"}`, `{"action":"step","HEADERS":null}`,
		`[]`, `{`, `null`, ``, `{"action":5}`, htmx("step", "x", 1), `{"action":"room-open"}`,
		`{"action":"room-claim","code":"ABCDEF","secret":"` + strings.Repeat("a", demo.RoomSecretLen) + `"}`,
	} {
		f.Add("reconcile", s)
		f.Add("operator", s)
	}
	f.Fuzz(func(t *testing.T, kind, msg string) {
		k := kindOf(kind)
		c := demo.Decode(k, []byte(msg))
		if c.Reject != nil {
			checkRefusal(t, c)
			return
		}
		if !k.Has(c.Action) {
			t.Fatalf("accepted %q for demo %q: not one of its actions", c.Action, kind)
		}
		switch c.Action {
		case "set-replicas":
			if c.N < 0 || c.N > reconcile.MaxDesired {
				t.Fatalf("set-replicas %d accepted, out of [0, %d]", c.N, reconcile.MaxDesired)
			}
		case "set-members":
			if c.N < operator.MinMembers || c.N > operator.MaxMembers {
				t.Fatalf("set-members %d accepted, out of [%d, %d]", c.N, operator.MinMembers, operator.MaxMembers)
			}
		case "kill", "kill-member":
			if c.Name == "" || len(c.Name) > demo.MaxNameLen {
				t.Fatalf("%s of %q accepted", c.Action, c.Name)
			}
		case "speed":
			if c.Speed < sim.Half || c.Speed > sim.Double {
				t.Fatalf("speed %d accepted", c.Speed)
			}
		case demo.RoomClaim:
			if len(c.Name) != demo.RoomCodeLen || len(c.Secret) != demo.RoomSecretLen || c.N != 0 || c.Snapshot != nil {
				t.Fatalf("room-claim accepted with %+v", c)
			}
		case "restore":
			if !strings.HasPrefix(strings.TrimSpace(string(c.Snapshot)), "{") || !json.Valid(c.Snapshot) {
				t.Fatalf("restore of %q accepted", c.Snapshot)
			}
		default:
			if c.N != 0 || c.Name != "" || c.Snapshot != nil || c.Secret != "" {
				t.Fatalf("%s carries values: %+v", c.Action, c)
			}
		}
	})
}

// kindOf returns the demo a test names; any other name is a demo with no
// actions at all.
func kindOf(name string) *demo.Kind {
	switch name {
	case "reconcile":
		return &reconcile.Kind
	case "operator":
		return &operator.Kind
	}
	return &demo.Kind{Name: name}
}

// htmx returns the message htmx-ext-ws sends for a control: its values
// (hx-vals and form fields) and a HEADERS object with a null in it.
func htmx(action string, kv ...any) string {
	m := map[string]any{"action": action, "HEADERS": map[string]any{
		"HX-Request": "true", "HX-Trigger": "rc-" + action, "HX-Trigger-Name": nil,
		"HX-Target": "rc", "HX-Current-URL": "http://127.0.0.1/reconcile"}}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}
