package templates

import (
	"context"
	"io"
	"strconv"

	"github.com/a-h/templ"
)

// MomentLink is the link to a moment of a demo: Base (the origin and the
// demo's path, "/<kind>" or "/embed/<kind>") with the query at, lang (en
// only) and moment, in the order url.Values encodes them. A moment's
// payload is the largest part of a timeline's frame, and grows with every
// action: the link is written into the page as it is escaped, never built
// as a string to be escaped into another (WriteAttr).
type MomentLink struct {
	Base   string
	At     int64  // virtual ms
	En     bool   // lang=en
	Moment string // the payload: base64url, which neither a query nor HTML escapes
}

// String returns the link.
func (m MomentLink) String() string {
	var b []byte
	b = append(b, m.Base...)
	b = append(b, "?at="...)
	b = strconv.AppendInt(b, m.At, 10)
	if m.En {
		b = append(b, "&lang=en"...)
	}
	b = append(b, "&moment="...)
	b = append(b, m.Moment...)
	return string(b)
}

// write writes the link escaped for an attribute's value.
func (m MomentLink) write(w io.Writer) error {
	if err := escape(w, m.Base); err != nil {
		return err
	}
	var num [24]byte
	q := append(num[:0], "?at="...)
	q = strconv.AppendInt(q, m.At, 10)
	if _, err := w.Write(q); err != nil {
		return err
	}
	if m.En {
		if _, err := io.WriteString(w, "&amp;lang=en"); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "&amp;moment="); err != nil {
		return err
	}
	return escape(w, m.Moment) // base64url: written as it is
}

// shareLink is the timeline's link to the moment shown, written by hand as
// templ would write
//
//	<a class="btn btn-small tl-share" id="<prefix>-share" data-testid="share-moment" data-timeline data-value="<link>" target="_blank" rel="noopener"><span aria-hidden="true">⇗</span> <words></a>
//
// with no data-value while the link is to come (ShareSoon).
func shareLink(l Lang, p TimelineProps) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		if err := openTag(w, `<a class="btn btn-small tl-share" id="`, p.Prefix, `-share" data-testid="share-moment" data-timeline`); err != nil {
			return err
		}
		if p.Share.Moment != "" {
			if _, err := io.WriteString(w, ` data-value="`); err != nil {
				return err
			}
			if err := p.Share.write(w); err != nil {
				return err
			}
			if _, err := io.WriteString(w, `"`); err != nil {
				return err
			}
		}
		return openTag(w, ` target="_blank" rel="noopener"><span aria-hidden="true">⇗</span> `, T(l, "tl.share"), `</a>`)
	})
}
