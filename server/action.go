package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// command is one validated action from a visitor. Which fields are set
// depends on Action.
type command struct {
	Action   string
	Name     string          // kill: the pod; kill-member: the member
	N        int             // set-replicas, set-members
	On       bool            // controller, pause, backup
	Speed    sim.Speed       // speed
	Snapshot json.RawMessage // restore
	reject   *rejection      // set instead of the rest when the message was refused
}

// rejection is a refused message: why (a metrics label), and the catalog
// key and arguments of the sentence shown to the visitor.
type rejection struct {
	Reason string
	Key    string
	Args   []any
}

func (r *rejection) Error() string { return r.Reason + ": " + fmt.Sprint(r.Key, r.Args) }

// Rejection reasons, as the metrics label them.
const (
	reasonMalformed     = "malformed"
	reasonUnknownAction = "unknown_action"
	reasonWrongType     = "wrong_type"
	reasonOutOfRange    = "out_of_range"
	reasonUnknownTarget = "unknown_target"
	reasonRate          = "rate_limited"
	reasonSnapshot      = "bad_snapshot"
	reasonBinary        = "binary"
	reasonTooBig        = "too_big"
	reasonOrigin        = "origin"
)

// actionFields is the closed set of actions of each demo, and for each the
// fields it may carry beside "action" and "HEADERS".
var actionFields = map[string]map[string][]string{
	"reconcile": {
		"kill":         {"pod"},
		"replicas-inc": nil,
		"replicas-dec": nil,
		"set-replicas": {"replicas"},
		"controller":   {"on"},
		"step":         nil,
		"pause":        {"paused"},
		"speed":        {"speed"},
		"reset":        nil,
		"restore":      {"snapshot"},
	},
	"operator": {
		"kill-member": {"member"},
		"members-inc": nil,
		"members-dec": nil,
		"set-members": {"members"},
		"backup":      {"present"},
		"controller":  {"on"},
		"step":        nil,
		"pause":       {"paused"},
		"speed":       {"speed"},
		"reset":       nil,
		"restore":     {"snapshot"},
	},
}

// maxNameLen bounds a pod or member name in a message.
const maxNameLen = 40

// decodeCommand decodes and validates one text message from the browser:
// htmx-ext-ws JSON (form values, hx-vals and a HEADERS object). It checks
// shape, types and ranges; whether the named pod exists is the session's
// question. It never returns a command with reject set and other fields.
func decodeCommand(demo string, msg []byte) command {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(msg))
	if err := dec.Decode(&raw); err != nil || raw == nil || dec.More() {
		return refuse(reasonMalformed, "err.decode")
	}
	var action string
	if err := json.Unmarshal(raw["action"], &action); err != nil || action == "" {
		if _, ok := raw["action"]; !ok {
			return refuse(reasonUnknownAction, "err.action", "(none)")
		}
		return refuse(reasonWrongType, "err.field", "action")
	}
	fields, ok := actionFields[demo][action]
	if !ok {
		return refuse(reasonUnknownAction, "err.action", strconv.Quote(clip(action)))
	}
	for k, v := range raw {
		switch {
		case k == "action":
		case k == "HEADERS":
			if !isObjectOrNull(v) {
				return refuse(reasonWrongType, "err.field", "HEADERS")
			}
		case !contains(fields, k):
			return refuse(reasonWrongType, "err.field", strconv.Quote(clip(k)))
		}
	}
	c := command{Action: action}
	var err error
	switch action {
	case "kill":
		c.Name, err = nameField(raw, "pod")
	case "kill-member":
		c.Name, err = nameField(raw, "member")
	case "set-replicas":
		c.N, err = intField(raw, "replicas", 0, sim.MaxDesired)
	case "set-members":
		c.N, err = intField(raw, "members", sim.MinMembers, sim.MaxMembers)
	case "controller":
		c.On, err = boolField(raw, "on")
	case "pause":
		c.On, err = boolField(raw, "paused")
	case "backup":
		c.On, err = boolField(raw, "present")
	case "speed":
		c.Speed, err = speedField(raw, "speed")
	case "restore":
		v, ok := raw["snapshot"]
		if !ok || !isObject(v) {
			err = &rejection{Reason: reasonWrongType, Key: "err.field", Args: []any{"snapshot"}}
		}
		c.Snapshot = v
	}
	if err != nil {
		var r *rejection
		if errors.As(err, &r) {
			return command{reject: r}
		}
		return refuse(reasonWrongType, "err.decode")
	}
	return c
}

// clip shortens a visitor's string for an error message to maxNameLen
// bytes, on a character boundary, so the frame stays valid UTF-8.
func clip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxNameLen {
		return s
	}
	cut := maxNameLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func refuse(reason, key string, args ...any) command {
	return command{reject: &rejection{Reason: reason, Key: key, Args: args}}
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

func nameField(raw map[string]json.RawMessage, key string) (string, error) {
	var s string
	if err := json.Unmarshal(raw[key], &s); err != nil || s == "" || len(s) > maxNameLen {
		return "", &rejection{Reason: reasonWrongType, Key: "err.field", Args: []any{key}}
	}
	return s, nil
}

// intField reads an integer sent as a JSON number or, as form values are, a
// string of digits, and checks it against [lo, hi].
func intField(raw map[string]json.RawMessage, key string, lo, hi int) (int, error) {
	wrong := &rejection{Reason: reasonWrongType, Key: "err.field", Args: []any{key}}
	v, ok := raw[key]
	if !ok {
		return 0, wrong
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		s = string(bytes.TrimSpace(v))
	}
	if len(s) > 20 {
		return 0, &rejection{Reason: reasonOutOfRange, Key: "err.range", Args: []any{key, lo, hi}}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, wrong
		}
		if f != float64(int64(f)) || f < float64(lo) || f > float64(hi) {
			return 0, &rejection{Reason: reasonOutOfRange, Key: "err.range", Args: []any{key, lo, hi}}
		}
		n = int64(f)
	}
	if n < int64(lo) || n > int64(hi) {
		return 0, &rejection{Reason: reasonOutOfRange, Key: "err.range", Args: []any{key, lo, hi}}
	}
	return int(n), nil
}

// boolField reads a JSON boolean or the strings "true" and "false". null
// (which json would leave as false) is refused.
func boolField(raw map[string]json.RawMessage, key string) (bool, error) {
	var b bool
	if v := bytes.TrimSpace(raw[key]); len(v) > 0 && !bytes.Equal(v, []byte("null")) && json.Unmarshal(v, &b) == nil {
		return b, nil
	}
	var s string
	if err := json.Unmarshal(raw[key], &s); err == nil {
		if v, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
			return v, nil
		}
	}
	return false, &rejection{Reason: reasonWrongType, Key: "err.field", Args: []any{key}}
}

// speedField reads "0.5", "1" or "2", as a string or a number.
func speedField(raw map[string]json.RawMessage, key string) (sim.Speed, error) {
	var s string
	if err := json.Unmarshal(raw[key], &s); err != nil {
		var f float64
		if err := json.Unmarshal(raw[key], &f); err != nil {
			return 0, &rejection{Reason: reasonWrongType, Key: "err.field", Args: []any{key}}
		}
		s = string(bytes.TrimSpace(raw[key]))
	}
	sp, err := sim.ParseSpeed(s)
	if err != nil {
		return 0, &rejection{Reason: reasonOutOfRange, Key: "err.field", Args: []any{key}}
	}
	return sp, nil
}
