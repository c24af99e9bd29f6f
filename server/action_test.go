package server

// decodeCommand: the closed set of actions, every accepted spelling, every
// refused shape and its reason, and a fuzz target for its invariants.

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

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
		want      command
	}{
		{"reconcile", htmx("kill", "pod", "pod-1"), command{Action: "kill", Name: "pod-1"}},
		{"reconcile", htmx("replicas-inc"), command{Action: "replicas-inc"}},
		{"reconcile", htmx("replicas-dec"), command{Action: "replicas-dec"}},
		{"reconcile", htmx("set-replicas", "replicas", "5"), command{Action: "set-replicas", N: 5}},
		{"reconcile", htmx("set-replicas", "replicas", 5), command{Action: "set-replicas", N: 5}},
		{"reconcile", htmx("set-replicas", "replicas", "0"), command{Action: "set-replicas", N: 0}},
		{"reconcile", htmx("set-replicas", "replicas", sim.MaxDesired), command{Action: "set-replicas", N: sim.MaxDesired}},
		{"reconcile", htmx("controller", "on", true), command{Action: "controller", On: true}},
		{"reconcile", htmx("controller", "on", "true"), command{Action: "controller", On: true}},
		{"reconcile", htmx("controller", "on", false), command{Action: "controller", On: false}},
		{"reconcile", htmx("controller", "on", "false"), command{Action: "controller", On: false}},
		{"reconcile", htmx("step"), command{Action: "step"}},
		{"reconcile", htmx("pause", "paused", true), command{Action: "pause", On: true}},
		{"reconcile", htmx("pause", "paused", "false"), command{Action: "pause", On: false}},
		{"reconcile", htmx("speed", "speed", "0.5"), command{Action: "speed", Speed: sim.Half}},
		{"reconcile", htmx("speed", "speed", "1"), command{Action: "speed", Speed: sim.Normal}},
		{"reconcile", htmx("speed", "speed", "2"), command{Action: "speed", Speed: sim.Double}},
		{"reconcile", htmx("speed", "speed", 2), command{Action: "speed", Speed: sim.Double}},
		{"reconcile", htmx("reset"), command{Action: "reset"}},
		{"reconcile", `{"action":"restore","snapshot":{"v":1}}`, command{Action: "restore", Snapshot: json.RawMessage(`{"v":1}`)}},
		{"reconcile", `{"action":"step"}`, command{Action: "step"}},
		{"reconcile", `{"action":"step","HEADERS":null}`, command{Action: "step"}},
		{"reconcile", `{"action":"step",` + headers + `}`, command{Action: "step"}},
		{"reconcile", " \n{\"action\" : \"step\"}\n ", command{Action: "step"}},
		{"operator", htmx("kill-member", "member", "db-1"), command{Action: "kill-member", Name: "db-1"}},
		{"operator", htmx("members-inc"), command{Action: "members-inc"}},
		{"operator", htmx("members-dec"), command{Action: "members-dec"}},
		{"operator", htmx("set-members", "members", "5"), command{Action: "set-members", N: 5}},
		{"operator", htmx("set-members", "members", 5), command{Action: "set-members", N: 5}},
		{"operator", htmx("set-members", "members", sim.MinMembers), command{Action: "set-members", N: sim.MinMembers}},
		{"operator", htmx("set-members", "members", sim.MaxMembers), command{Action: "set-members", N: sim.MaxMembers}},
		{"operator", htmx("backup", "present", false), command{Action: "backup", On: false}},
		{"operator", htmx("backup", "present", "true"), command{Action: "backup", On: true}},
		{"operator", htmx("controller", "on", "true"), command{Action: "controller", On: true}},
		{"operator", htmx("step"), command{Action: "step"}},
		{"operator", htmx("pause", "paused", true), command{Action: "pause", On: true}},
		{"operator", htmx("speed", "speed", "0.5"), command{Action: "speed", Speed: sim.Half}},
		{"operator", htmx("reset"), command{Action: "reset"}},
		{"operator", `{"action":"restore","snapshot":{}}`, command{Action: "restore", Snapshot: json.RawMessage(`{}`)}},
	} {
		t.Run(tc.demo+" "+short(tc.msg), func(t *testing.T) {
			got := decodeCommand(tc.demo, []byte(tc.msg))
			if got.reject != nil {
				t.Fatalf("refused: %v", got.reject)
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
	for demo, actions := range actionFields {
		for action, fields := range actions {
			extra := samples[demo][action]
			if (extra == "") != (len(fields) == 0) {
				t.Errorf("%s %s takes fields %v: this test has no sample for them", demo, action, fields)
				continue
			}
			msg := `{"action":"` + action + `"`
			if extra != "" {
				msg += "," + extra
			}
			msg += "}"
			if c := decodeCommand(demo, []byte(msg)); c.reject != nil || c.Action != action {
				t.Errorf("%s %s: %+v", demo, msg, c)
			}
		}
	}
}

// TestDecodeCommandRefuses: every invalid shape is refused with its reason,
// and the refusal carries nothing else.
func TestDecodeCommandRefuses(t *testing.T) {
	long := strings.Repeat("p", maxNameLen+1)
	for _, tc := range []struct {
		demo, msg, reason string
	}{
		// Not one JSON object.
		{"reconcile", ``, reasonMalformed},
		{"reconcile", `   `, reasonMalformed},
		{"reconcile", `{`, reasonMalformed},
		{"reconcile", `{"action":"step"`, reasonMalformed},
		{"reconcile", `null`, reasonMalformed},
		{"reconcile", `[]`, reasonMalformed},
		{"reconcile", `[{"action":"step"}]`, reasonMalformed},
		{"reconcile", `"step"`, reasonMalformed},
		{"reconcile", `42`, reasonMalformed},
		{"reconcile", `{"action":"step"}{"action":"step"}`, reasonMalformed},
		{"reconcile", `{"action":"step"} x`, reasonMalformed},
		{"reconcile", "\xff\xfe", reasonMalformed},
		// No action, or not one of this demo's.
		{"reconcile", `{}`, reasonUnknownAction},
		{"reconcile", `{"HEADERS":{}}`, reasonUnknownAction},
		{"reconcile", `{"Action":"step"}`, reasonUnknownAction},
		{"reconcile", htmx("explode"), reasonUnknownAction},
		{"reconcile", htmx("STEP"), reasonUnknownAction},
		{"reconcile", htmx("kill-member", "member", "db-1"), reasonUnknownAction},
		{"reconcile", htmx("set-members", "members", 3), reasonUnknownAction},
		{"reconcile", htmx("backup", "present", true), reasonUnknownAction},
		{"operator", htmx("kill", "pod", "pod-1"), reasonUnknownAction},
		{"operator", htmx("set-replicas", "replicas", 3), reasonUnknownAction},
		{"pipeline", htmx("step"), reasonUnknownAction},
		{"reconcile", htmx(strings.Repeat("a", 10000)), reasonUnknownAction},
		// The action of the wrong type.
		{"reconcile", `{"action":5}`, reasonWrongType},
		{"reconcile", `{"action":true}`, reasonWrongType},
		{"reconcile", `{"action":["step"]}`, reasonWrongType},
		{"reconcile", `{"action":{"step":1}}`, reasonWrongType},
		{"reconcile", `{"action":null}`, reasonWrongType},
		{"reconcile", `{"action":""}`, reasonWrongType},
		// Fields the action does not take.
		{"reconcile", htmx("step", "evil", 1), reasonWrongType},
		{"reconcile", htmx("step", "replicas", 3), reasonWrongType},
		{"reconcile", htmx("kill", "pod", "pod-1", "member", "db-1"), reasonWrongType},
		{"reconcile", `{"action":"step","HEADERS":"x"}`, reasonWrongType},
		{"reconcile", `{"action":"step","HEADERS":[]}`, reasonWrongType},
		{"reconcile", `{"action":"step","HEADERS":1}`, reasonWrongType},
		// Names.
		{"reconcile", htmx("kill"), reasonWrongType},
		{"reconcile", htmx("kill", "pod", 123), reasonWrongType},
		{"reconcile", htmx("kill", "pod", ""), reasonWrongType},
		{"reconcile", htmx("kill", "pod", nil), reasonWrongType},
		{"reconcile", htmx("kill", "pod", true), reasonWrongType},
		{"reconcile", htmx("kill", "pod", []string{"pod-1"}), reasonWrongType},
		{"reconcile", htmx("kill", "pod", long), reasonWrongType},
		{"operator", htmx("kill-member"), reasonWrongType},
		{"operator", htmx("kill-member", "member", 1), reasonWrongType},
		{"operator", htmx("kill-member", "member", long), reasonWrongType},
		// Counts of the wrong type.
		{"reconcile", htmx("set-replicas"), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", "abc"), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", ""), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", " 5"), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", "5 "), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", "0x5"), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", "5replicas"), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", true), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", nil), reasonWrongType},
		{"reconcile", htmx("set-replicas", "replicas", []int{5}), reasonWrongType},
		{"reconcile", `{"action":"set-replicas","replicas":{"n":5}}`, reasonWrongType},
		{"operator", htmx("set-members"), reasonWrongType},
		{"operator", htmx("set-members", "members", "three"), reasonWrongType},
		// Counts out of range, or not whole.
		{"reconcile", htmx("set-replicas", "replicas", sim.MaxDesired+1), reasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", "11"), reasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", -1), reasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", "-1"), reasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":2.5}`, reasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":"2.5"}`, reasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":1e308}`, reasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":-1e308}`, reasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":99999999999999999999}`, reasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":9223372036854775807}`, reasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":-9223372036854775808}`, reasonOutOfRange},
		{"reconcile", `{"action":"set-replicas","replicas":4294967299}`, reasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", "NaN"), reasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", "Inf"), reasonOutOfRange},
		{"reconcile", htmx("set-replicas", "replicas", strings.Repeat("9", 1000)), reasonOutOfRange},
		{"operator", htmx("set-members", "members", sim.MinMembers-1), reasonOutOfRange},
		{"operator", htmx("set-members", "members", sim.MaxMembers+1), reasonOutOfRange},
		{"operator", htmx("set-members", "members", "-3"), reasonOutOfRange},
		// Switches.
		{"reconcile", htmx("controller"), reasonWrongType},
		{"reconcile", htmx("controller", "on", "yes"), reasonWrongType},
		{"reconcile", htmx("controller", "on", "TRUE"), reasonWrongType},
		{"reconcile", htmx("controller", "on", "1"), reasonWrongType},
		{"reconcile", htmx("controller", "on", 1), reasonWrongType},
		{"reconcile", htmx("controller", "on", nil), reasonWrongType},
		{"reconcile", htmx("pause", "paused", nil), reasonWrongType},
		{"operator", htmx("backup", "present", nil), reasonWrongType},
		{"reconcile", htmx("pause", "paused", "no"), reasonWrongType},
		{"operator", htmx("backup", "present", "yes"), reasonWrongType},
		{"operator", htmx("backup"), reasonWrongType},
		// Speed: a value not offered is out of range; a value that is not a
		// speed at all is of the wrong type, as for every other field.
		{"reconcile", htmx("speed", "speed", "3"), reasonOutOfRange},
		{"reconcile", htmx("speed", "speed", "fast"), reasonOutOfRange},
		{"reconcile", htmx("speed", "speed", "0.50"), reasonOutOfRange},
		{"reconcile", htmx("speed"), reasonWrongType},
		{"reconcile", htmx("speed", "speed", true), reasonWrongType},
		// Snapshots that are not objects.
		{"reconcile", `{"action":"restore"}`, reasonWrongType},
		{"reconcile", `{"action":"restore","snapshot":null}`, reasonWrongType},
		{"reconcile", `{"action":"restore","snapshot":"{}"}`, reasonWrongType},
		{"reconcile", `{"action":"restore","snapshot":[]}`, reasonWrongType},
		{"operator", `{"action":"restore","snapshot":1}`, reasonWrongType},
	} {
		t.Run(tc.demo+" "+short(tc.msg), func(t *testing.T) {
			got := decodeCommand(tc.demo, []byte(tc.msg))
			if got.reject == nil {
				t.Fatalf("accepted as %+v, want refused (%s)", got, tc.reason)
			}
			if got.reject.Reason != tc.reason {
				t.Errorf("reason %q (%v), want %q", got.reject.Reason, got.reject, tc.reason)
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
		{"long action cut inside a character", htmx(strings.Repeat("x", maxNameLen-1) + "éé")},
		{"long field cut inside a character", htmx("step", strings.Repeat("x", maxNameLen-1)+"éé", 1)},
		{"long field of kana", htmx("step", strings.Repeat("あ", 20), 1)},
		{"field that is not UTF-8", htmx("step", "\xff\xfe", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := decodeCommand("reconcile", []byte(tc.msg))
			if c.reject == nil {
				t.Fatal("accepted")
			}
			for _, l := range []tmpl.Lang{tmpl.Ja, tmpl.En} {
				if text := errorText(l, c.reject); !utf8.ValidString(text) {
					t.Errorf("%s refusal text is not valid UTF-8: %q", l, text)
				}
			}
		})
	}
}

// checkRefusal checks what every refusal must hold: a known reason, a
// sentence in each language, and no command beside it.
func checkRefusal(t *testing.T, c command) {
	t.Helper()
	reasons := []string{reasonMalformed, reasonUnknownAction, reasonWrongType, reasonOutOfRange}
	if !slices.Contains(reasons, c.reject.Reason) {
		t.Errorf("reason %q is not one decodeCommand gives", c.reject.Reason)
	}
	if c.Action != "" || c.Name != "" || c.N != 0 || c.On || c.Speed != 0 || c.Snapshot != nil {
		t.Errorf("a refusal carries a command too: %+v", c)
	}
	for _, l := range []tmpl.Lang{tmpl.Ja, tmpl.En} {
		text := errorText(l, c.reject)
		if text == "" || strings.Contains(text, "%!") || text == c.reject.Key {
			t.Errorf("%s refusal text %q for %v", l, text, c.reject)
		}
		// Skipped unless SERVER_KNOWN_BUGS is set: see TestRefusalTextIsValidUTF8.
		if os.Getenv("SERVER_KNOWN_BUGS") != "" && !utf8.ValidString(text) {
			t.Errorf("%s refusal text is not valid UTF-8: %q", l, text)
		}
	}
}

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

// FuzzDecodeCommand: decodeCommand never panics, and whatever it accepts is
// an action of the demo with its values in range.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range []string{
		htmx("kill", "pod", "pod-1"), htmx("set-replicas", "replicas", "5"), htmx("set-replicas", "replicas", 5),
		htmx("controller", "on", true), htmx("speed", "speed", "0.5"), htmx("kill-member", "member", "db-1"),
		htmx("set-members", "members", 7), htmx("backup", "present", "false"), htmx("pause", "paused", true),
		`{"action":"restore","snapshot":{"v":1,"desired":3}}`, `{"action":"set-replicas","replicas":1e308}`,
		`{"action":"set-replicas","replicas":"99999999999999999999"}`, `{"action":"step","HEADERS":null}`,
		`[]`, `{`, `null`, ``, `{"action":5}`, htmx("step", "x", 1),
	} {
		f.Add("reconcile", s)
		f.Add("operator", s)
	}
	f.Fuzz(func(t *testing.T, demo, msg string) {
		c := decodeCommand(demo, []byte(msg))
		if c.reject != nil {
			checkRefusal(t, c)
			return
		}
		if _, ok := actionFields[demo][c.Action]; !ok {
			t.Fatalf("accepted %q for demo %q: not in actionFields", c.Action, demo)
		}
		switch c.Action {
		case "set-replicas":
			if c.N < 0 || c.N > sim.MaxDesired {
				t.Fatalf("set-replicas %d accepted, out of [0, %d]", c.N, sim.MaxDesired)
			}
		case "set-members":
			if c.N < sim.MinMembers || c.N > sim.MaxMembers {
				t.Fatalf("set-members %d accepted, out of [%d, %d]", c.N, sim.MinMembers, sim.MaxMembers)
			}
		case "kill", "kill-member":
			if c.Name == "" || len(c.Name) > maxNameLen {
				t.Fatalf("%s of %q accepted", c.Action, c.Name)
			}
		case "speed":
			if c.Speed < sim.Half || c.Speed > sim.Double {
				t.Fatalf("speed %d accepted", c.Speed)
			}
		case "restore":
			if !isObject(c.Snapshot) || !json.Valid(c.Snapshot) {
				t.Fatalf("restore of %q accepted", c.Snapshot)
			}
		default:
			if c.N != 0 || c.Name != "" || c.Snapshot != nil {
				t.Fatalf("%s carries values: %+v", c.Action, c)
			}
		}
	})
}
