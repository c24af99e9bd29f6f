package templates

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Itoa formats n for an attribute or a text.
func Itoa(n int) string { return strconv.Itoa(n) }

// BoolStr formats b as "true" or "false", as data-* attributes carry it.
func BoolStr(b bool) string { return strconv.FormatBool(b) }

// Vals builds an hx-vals JSON object from key, value pairs.
func Vals(kv ...any) string {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic("templates: hx-vals: " + err.Error()) // only plain values reach here
	}
	return string(b)
}

// Lower lowercases s, for class names made from phases.
func Lower(s string) string { return strings.ToLower(s) }

// PhaseIcon is the shape of a phase, so that a phase never rests on colour
// alone.
func PhaseIcon(phase string) string {
	switch phase {
	case "Running", "Ready":
		return "●"
	case "Pending", "Creating", "Restoring":
		return "◔"
	case "Failed", "Degraded":
		return "✕"
	case "Terminating":
		return "◌"
	}
	return "○"
}

// link returns path with the page's language and mode as query parameters.
func link(path string, lang Lang, present bool) string {
	q := url.Values{}
	if lang == En {
		q.Set("lang", "en")
	}
	if present {
		q.Set("mode", "present")
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

func other(l Lang) Lang {
	if l == En {
		return Ja
	}
	return En
}

func itoa(n int) string { return strconv.Itoa(n) }

func boolStr(b bool) string { return strconv.FormatBool(b) }

func vals(kv ...any) string { return Vals(kv...) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func i64toa(n int64) string { return strconv.FormatInt(n, 10) }

func clockMs(ms int64) string { return ClockText(time.Duration(ms) * time.Millisecond) }

// role is the demo root's data-role: owner unless the page follows a room.
func role(r string) string {
	if r == "" {
		return "owner"
	}
	return r
}
