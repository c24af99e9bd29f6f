package templates

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

func boolStr(b bool) string { return strconv.FormatBool(b) }

// vals builds an hx-vals JSON object from key, value pairs.
func vals(kv ...any) string {
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

// link returns path with the page's language and mode as query parameters,
// changed by the overrides.
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

func lower(s string) string { return strings.ToLower(s) }

// phaseIcon is the shape of a phase, so that a phase never rests on colour
// alone.
func phaseIcon(phase string) string {
	switch phase {
	case "Running", "Ready":
		return "●"
	case "Pending", "Creating", "Restoring":
		return "◔"
	case "Failed", "Degraded":
		return "✕"
	}
	return "○"
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
