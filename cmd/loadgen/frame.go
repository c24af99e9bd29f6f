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
	// echo: a bare hub (cmd/barehub), which serves no page and echoes
	// each message: its socket is /ws, and an action's echo answers it.
	echo bool
}

// echoKind drives a bare hub as the demos are driven (-demo echo): the
// yardstick of an acting load, what the transport alone costs per action
// on the same machine. It is not one of kindNames (make capacity's kinds).
const echoKind = "echo"

// echoShape's steps are answered by their own echo, as a demo's are by
// the frame that shows them.
var echoShape = demoShape{echo: true, steps: []demo.LoadStep{
	{Send: `{"action":"echo","n":"1"}`, Expect: `"n":"1",`},
	{Send: `{"action":"echo","n":"2"}`, Expect: `"n":"2",`},
}}

// shapeOf returns the shape of a registered demo kind or of echoKind, and
// false for any other name.
func shapeOf(kind string) (demoShape, bool) {
	if kind == echoKind {
		return echoShape, true
	}
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
	if d.echo {
		return false
	}
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
