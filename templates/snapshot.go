package templates

import (
	"context"
	"io"
	"strings"
	"unsafe"

	"github.com/a-h/templ"
)

// Snapshot owns <prefix>-snapshot: the demo's state for the page to keep and
// send back after a reconnect to another server process, with its timeline
// (the log of actions, "" while there is none) so the timeline survives too.
// With no state ("", a fresh demo's page) there is nothing to keep yet:
// the first frame brings it.
//
// It is written by hand, as templ would write <div id="…" hidden
// data-sid="…" data-snapshot='…' data-timeline="…">, each attribute escaped
// as templ escapes it but the state's JSON, the largest attribute of any
// frame: it is in single quotes, so its own quotes stay as they are (templ
// wrote each as &#34;, five bytes, and it has one every few bytes), and
// only & and ' are escaped, as they are written.
func Snapshot(prefix, sid, json, timeline string) templ.Component {
	if json == "" {
		return snapshot(prefix, sid, nil, timeline)
	}
	return snapshot(prefix, sid, func(w io.Writer) error { return escapeQuoted(w, json) }, timeline)
}

// SnapshotTo is Snapshot with the state's JSON written by write, escaped
// as it is written: no string of it is made.
func SnapshotTo(prefix, sid string, write func(w io.Writer) error, timeline string) templ.Component {
	return snapshot(prefix, sid, func(w io.Writer) error { return write(quotedEscaper{w}) }, timeline)
}

// snapshot writes the element; value writes the state's JSON escaped, or
// is nil when there is no state.
func snapshot(prefix, sid string, value func(w io.Writer) error, timeline string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		if err := openTag(w, `<div id="`, prefix, `-snapshot" hidden`); err != nil {
			return err
		}
		if value != nil {
			if err := attr(w, ` data-sid="`, sid); err != nil {
				return err
			}
			if _, err := io.WriteString(w, ` data-snapshot='`); err != nil {
				return err
			}
			if err := value(w); err != nil {
				return err
			}
			if _, err := io.WriteString(w, `'`); err != nil {
				return err
			}
			if timeline != "" {
				if err := attr(w, ` data-timeline="`, timeline); err != nil {
					return err
				}
			}
		}
		_, err := io.WriteString(w, `></div>`)
		return err
	})
}

// quotedEscaper writes what is written to it as escapeQuoted does.
type quotedEscaper struct{ w io.Writer }

func (e quotedEscaper) Write(p []byte) (int, error) {
	if err := escapeQuoted(e.w, unsafe.String(unsafe.SliceData(p), len(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeQuoted writes s as the value of an attribute in single quotes: &
// and ' as escape writes them, the rest as it is (a value in quotes ends
// only at its quote; & starts a character reference). JSON seldom has
// either, so s is mostly written whole after two vectorized searches.
func escapeQuoted(w io.Writer, s string) error {
	if strings.IndexByte(s, '&') < 0 && strings.IndexByte(s, '\'') < 0 {
		_, err := io.WriteString(w, s)
		return err
	}
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '&' && s[i] != '\'' {
			continue
		}
		if _, err := io.WriteString(w, s[last:i]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, entities[s[i]]); err != nil {
			return err
		}
		last = i + 1
	}
	_, err := io.WriteString(w, s[last:])
	return err
}

// openTag writes head, escaped id, tail.
func openTag(w io.Writer, head, id, tail string) error {
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	if err := escape(w, id); err != nil {
		return err
	}
	_, err := io.WriteString(w, tail)
	return err
}

// attr writes head (` name="`), the escaped value and the closing quote.
func attr(w io.Writer, head, value string) error {
	return openTag(w, head, value, `"`)
}
