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

// Vals builds an hx-vals JSON object from key, value pairs, as
// encoding/json writes a map of them (keys sorted). Every button of every
// frame has one, so the usual case (a few plain strings, ints and bools) is
// written directly; anything else goes through encoding/json.
func Vals(kv ...any) string {
	if s, ok := plainVals(kv); ok {
		return s
	}
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

// plainVals writes kv as Vals does when it holds at most four pairs of
// distinct plain keys and plain string, int or bool values; ok is false
// otherwise.
func plainVals(kv []any) (string, bool) {
	n := len(kv) / 2
	if len(kv)%2 != 0 || n > 4 {
		return "", false
	}
	var order [4]int // pair indexes, by key
	for i := range n {
		k, ok := kv[2*i].(string)
		if !ok || !plain(k) {
			return "", false
		}
		j := i
		for ; j > 0 && kv[2*order[j-1]].(string) > k; j-- {
			order[j] = order[j-1]
		}
		if j > 0 && kv[2*order[j-1]].(string) == k {
			return "", false
		}
		order[j] = i
	}
	b := make([]byte, 0, 64)
	b = append(b, '{')
	for j := range n {
		i := order[j]
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, kv[2*i].(string)...)
		b = append(b, '"', ':')
		switch v := kv[2*i+1].(type) {
		case string:
			if !plain(v) {
				return "", false
			}
			b = append(b, '"')
			b = append(b, v...)
			b = append(b, '"')
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case bool:
			b = strconv.AppendBool(b, v)
		default:
			return "", false
		}
	}
	b = append(b, '}')
	return string(b), true
}

// plain reports whether s needs no escaping in JSON: ASCII letters, digits
// and a few marks.
func plain(s string) bool {
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == ' ') {
			return false
		}
	}
	return true
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
