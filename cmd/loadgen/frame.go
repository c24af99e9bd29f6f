package main

import (
	"bytes"
	"strconv"
)

// demoShape is what the generator needs to know of a demo: the page it is
// served on, the action that sets its count, and where a frame shows that
// count (the element id that owns it, and the data-testid inside).
type demoShape struct {
	page      string
	action    string // e.g. set-replicas
	field     string // the action's value field, e.g. replicas
	ownerID   string // top-level fragment id, e.g. rc-desired
	testID    string // data-testid carrying data-value, e.g. desired
	errorID   string // the fragment that shows a refused action, e.g. rc-error
	values    [2]int // alternated, so every action changes the state
	initValue int    // the demo's starting count
}

var shapes = map[string]demoShape{
	"reconcile": {page: "/reconcile", action: "set-replicas", field: "replicas",
		ownerID: "rc-desired", testID: "desired", errorID: "rc-error", values: [2]int{4, 5}, initValue: 3},
	"operator": {page: "/operator", action: "set-members", field: "members",
		ownerID: "op-spec", testID: "spec-members", errorID: "op-error", values: [2]int{4, 5}, initValue: 3},
}

// actionMessage is the htmx-ext-ws JSON a browser sends for the action.
func (d demoShape) actionMessage(v int) []byte {
	return []byte(`{"action":"` + d.action + `","` + d.field + `":"` + strconv.Itoa(v) +
		`","HEADERS":{"HX-Request":"true","HX-Trigger":null,"HX-Trigger-Name":null,"HX-Target":"` +
		d.ownerID + `"}}`)
}

// shownValue returns the count a frame shows: the data-value of the element
// with data-testid=testID inside the fragment with id=ownerID. ok is false
// when the frame does not carry that fragment.
func (d demoShape) shownValue(frame []byte) (v int, ok bool) {
	i := bytes.Index(frame, []byte(`id="`+d.ownerID+`"`))
	if i < 0 {
		return 0, false
	}
	rest := frame[i:]
	j := bytes.Index(rest, []byte(`data-testid="`+d.testID+`"`))
	if j < 0 {
		return 0, false
	}
	// data-value must be an attribute of the same tag.
	tag := rest[j:]
	if end := bytes.IndexByte(tag, '>'); end >= 0 {
		tag = tag[:end]
	}
	const attr = `data-value="`
	k := bytes.Index(tag, []byte(attr))
	if k < 0 {
		// It may precede data-testid in the tag: look back to the tag's start.
		start := bytes.LastIndexByte(rest[:j], '<')
		if start < 0 {
			return 0, false
		}
		tag = rest[start : j+len(tag)]
		if k = bytes.Index(tag, []byte(attr)); k < 0 {
			return 0, false
		}
	}
	val := tag[k+len(attr):]
	end := bytes.IndexByte(val, '"')
	if end < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(string(val[:end]))
	if err != nil {
		return 0, false
	}
	return n, true
}

// shownError reports whether a frame shows the demo's error box, as the
// server does when it refuses an action (data-value="true" on its tag).
func (d demoShape) shownError(frame []byte) bool {
	i := bytes.Index(frame, []byte(`id="`+d.errorID+`"`))
	if i < 0 {
		return false
	}
	tag := frame[i:]
	if end := bytes.IndexByte(tag, '>'); end >= 0 {
		tag = tag[:end]
	}
	return bytes.Contains(tag, []byte(`data-value="true"`))
}
