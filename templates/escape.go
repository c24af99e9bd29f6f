package templates

import (
	"context"
	"io"
	"strconv"
	"strings"
)

// Text is a string as a component: its text, escaped as templ escapes
// { s } (html.EscapeString), written as it is read. templ's { s } copies
// the string (fmt.Sprint) and escapes it into another copy before writing
// it: log lines and their times were the most of those copies in a frame.
type Text string

// Render writes t escaped.
func (t Text) Render(_ context.Context, w io.Writer) error {
	return escape(w, string(t))
}

// escape writes s to w with &, ', <, > and " as html.EscapeString writes
// them, without building the escaped copy.
func escape(w io.Writer, s string) error {
	for {
		i := strings.IndexAny(s, `&'<>"`)
		if i < 0 {
			_, err := io.WriteString(w, s)
			return err
		}
		if _, err := io.WriteString(w, s[:i]); err != nil {
			return err
		}
		var ent string
		switch s[i] {
		case '&':
			ent = "&amp;"
		case '\'':
			ent = "&#39;"
		case '<':
			ent = "&lt;"
		case '>':
			ent = "&gt;"
		default:
			ent = "&#34;"
		}
		if _, err := io.WriteString(w, ent); err != nil {
			return err
		}
		s = s[i+1:]
	}
}

// HTML writes an element by hand, as templ would write it: what a demo
// renders many times a frame (a stream's rows), where templ boxes and
// escapes every dynamic attribute. The first error stops it; Err reports
// it.
type HTML struct {
	w   io.Writer
	err error
	num [20]byte
}

// NewHTML writes to w.
func NewHTML(w io.Writer) *HTML { return &HTML{w: w} }

// Raw writes s as it is: markup.
func (h *HTML) Raw(s string) {
	if h.err == nil {
		_, h.err = io.WriteString(h.w, s)
	}
}

// Text writes s escaped, as templ escapes text and attribute values.
func (h *HTML) Text(s string) {
	if h.err == nil {
		h.err = escape(h.w, s)
	}
}

// Int writes n in decimal.
func (h *HTML) Int(n int) {
	if h.err == nil {
		_, h.err = h.w.Write(strconv.AppendInt(h.num[:0], int64(n), 10))
	}
}

// Bool writes true or false.
func (h *HTML) Bool(b bool) { h.Raw(strconv.FormatBool(b)) }

// Err is the first error a write met.
func (h *HTML) Err() error { return h.err }
