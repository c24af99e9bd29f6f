package main

import (
	"bytes"

	"github.com/reconcile-demo/reconcile-demo/demos"
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
)

// demoShape is what the generator needs to know of a demo: the page it is
// served on, the steps it cycles through (each answered by the first frame
// that shows its Expect), and the fragment that shows a refused action.
type demoShape struct {
	page    string
	steps   []demo.LoadStep
	errorID string
}

// shapeOf returns the shape of a registered demo kind, and false for any
// other name.
func shapeOf(kind string) (demoShape, bool) {
	for _, k := range demos.All() {
		if k.Name == kind && len(k.Load) >= 2 {
			return demoShape{page: "/" + k.Name, steps: k.Load, errorID: k.Prefix + "-error"}, true
		}
	}
	return demoShape{}, false
}

// kindNames lists the registered demo kinds, for the -demo flag's help.
func kindNames() []string {
	var out []string
	for _, k := range demos.All() {
		out = append(out, k.Name)
	}
	return out
}

// actionMessage is the JSON a browser sends for step i, as htmx-ext-ws
// sends it: the action's values and a HEADERS object.
func (d demoShape) actionMessage(i int) []byte {
	send := bytes.TrimSpace([]byte(d.steps[i].Send))
	msg := append([]byte{}, send[:len(send)-1]...)
	return append(msg, []byte(`,"HEADERS":{"HX-Request":"true","HX-Trigger":null,"HX-Trigger-Name":null}}`)...)
}

// answers reports whether a frame shows step i done.
func (d demoShape) answers(i int, frame []byte) bool {
	return bytes.Contains(frame, []byte(d.steps[i].Expect))
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
