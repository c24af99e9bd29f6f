package templates

import (
	"context"
	"io"
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
