package templates

import (
	"context"
	"io"
	"strconv"

	"github.com/a-h/templ"
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
// them, without building the escaped copy. It looks each byte up in a
// table and writes the runs between the ones it replaces: strings.IndexAny
// built its set of five bytes anew on every call, and a snapshot's JSON
// calls it once per quote.
//
// A writer that lends its spare room (a frame's bytes.Buffer, templ's
// bufio.Writer) gets s escaped into it and written once: a snapshot's JSON
// has a quote every few bytes, and two calls through the interface for
// each were a sixth of a triggers frame's CPU (BenchmarkFrames).
func escape(w io.Writer, s string) error {
	if aw, ok := w.(appendWriter); ok {
		_, err := aw.Write(appendEscaped(aw.AvailableBuffer(), s))
		return err
	}
	sw, ok := w.(io.StringWriter)
	if !ok {
		sw = stringWriter{w}
	}
	last := 0
	for i := 0; i < len(s); i++ {
		ent := entities[s[i]]
		if ent == "" {
			continue
		}
		if last < i {
			if _, err := sw.WriteString(s[last:i]); err != nil {
				return err
			}
		}
		if _, err := sw.WriteString(ent); err != nil {
			return err
		}
		last = i + 1
	}
	if last == 0 {
		_, err := sw.WriteString(s)
		return err
	}
	if last < len(s) {
		_, err := sw.WriteString(s[last:])
		return err
	}
	return nil
}

// appendWriter is a writer whose spare room can be appended to and then
// written, as bytes.Buffer's and bufio.Writer's AvailableBuffer say.
type appendWriter interface {
	AvailableBuffer() []byte
	Write(p []byte) (int, error)
}

// appendEscaped appends s to b escaped as escape writes it.
func appendEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		if ent := entities[s[i]]; ent != "" {
			b = append(b, s[last:i]...)
			b = append(b, ent...)
			last = i + 1
		}
	}
	return append(b, s[last:]...)
}

// entities are the replacements escape makes, by byte: "" for the bytes
// written as they are.
var entities = [256]string{'&': "&amp;", '\'': "&#39;", '<': "&lt;", '>': "&gt;", '"': "&#34;"}

// stringWriter is a writer without WriteString, given one.
type stringWriter struct{ w io.Writer }

func (s stringWriter) WriteString(v string) (int, error) { return io.WriteString(s.w, v) }

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

// Int64 writes n in decimal.
func (h *HTML) Int64(n int64) {
	if h.err == nil {
		_, h.err = h.w.Write(strconv.AppendInt(h.num[:0], n, 10))
	}
}

// Float1 writes f with one decimal, as strconv.FormatFloat(f, 'f', 1, 64).
func (h *HTML) Float1(f float64) {
	if h.err == nil {
		_, h.err = h.w.Write(strconv.AppendFloat(h.num[:0], f, 'f', 1, 64))
	}
}

// Bool writes true or false.
func (h *HTML) Bool(b bool) { h.Raw(strconv.FormatBool(b)) }

// Err is the first error a write met.
func (h *HTML) Err() error { return h.err }

// logLines writes a log's lines by hand, as templ wrote them:
//
//	<li class="log-line" data-kind="…" data-seq="…"><time>…</time> <span>…</span></li>
//
// Every frame that adds to a log writes its new lines, and a frame that
// writes a log whole writes them all: templ resolved and escaped both
// attributes of each line into copies (the demos' goldens hold the lines).
func logLines(lines []LogLine) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := NewHTML(w)
		for i := range lines {
			ln := &lines[i]
			h.Raw(`<li class="log-line" data-kind="`)
			h.Text(ln.Kind)
			h.Raw(`" data-seq="`)
			h.Int(ln.Seq)
			h.Raw(`"><time>`)
			h.Text(ln.At)
			h.Raw(`</time> <span>`)
			h.Text(ln.Text)
			h.Raw(`</span></li>`)
		}
		return h.Err()
	})
}

// Countdown is a sentence with seconds left until a virtual time, which the
// page counts down as its clock runs (HTML.Countdown).
func Countdown(class string, e ETA) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := NewHTML(w)
		h.Countdown(class, &e)
		return h.Err()
	})
}

// Countdown writes a countdown the page runs:
// <span class="…" data-eta="…" data-eta-format="…">…</span>.
func (h *HTML) Countdown(class string, e *ETA) {
	h.Raw(`<span class="`)
	h.Text(class)
	h.Raw(`" data-eta="`)
	h.Int64(e.At)
	h.Raw(`" data-eta-format="`)
	h.Text(e.Format)
	h.Raw(`">`)
	h.Text(e.Text)
	h.Raw(`</span>`)
}
