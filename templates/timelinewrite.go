package templates

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// Timeline owns <prefix>-timeline: its range over the demo's virtual time
// with the marks (TimelineTrack), and, while it shows the past, what that
// means and the way back ("now") or on ("continue from here"); the link
// to the moment shown (TimelineShare). The page keeps the range's max and
// value at its own clock while it shows the present (static/app.js), as
// it runs the clock.
//
// It is written by hand, as templ wrote it (testdata/timeline.golden and
// the demos' goldens hold it): an owner's timeline was written with every
// action, and templ's attribute expressions (eleven, and the class
// spread) made a twelfth of a pipeline action's garbage. Its range and
// link, which change with every action, are fragments of their own: the
// panel is sent only when what it says changes (the past shown, a
// follower's room timeline).
func Timeline(l Lang, p TimelineProps) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		h := NewHTML(w)
		mode := p.mode()
		h.Raw(`<section id="`)
		h.Text(p.Prefix)
		h.Raw(`-timeline" class="panel timeline`)
		if p.Past {
			h.Raw(` timeline-past`)
		}
		h.Raw(`" data-testid="timeline-panel" data-mode="`)
		h.Raw(mode)
		h.Raw(`" aria-labelledby="`)
		h.Text(p.Prefix)
		h.Raw(`-timeline-title"`)
		if p.Follower {
			h.Raw(` data-moment="`)
			h.Text(p.Moment)
			h.Raw(`" data-kind="`)
			h.Text(p.Kind)
			h.Raw(`"`)
		}
		h.Raw(`><h3 id="`)
		h.Text(p.Prefix)
		h.Raw(`-timeline-title">`)
		h.Text(T(l, "tl.title"))
		h.Raw(`</h3>`)
		if p.InPage {
			writeTrack(h, l, p)
		} else {
			h.Raw(`<div id="`)
			h.Text(p.Prefix)
			h.Raw(`-timeline-track" class="tl-track" hx-preserve></div>`)
		}
		h.Raw(`<div class="tl-bar">`)
		if p.Past {
			h.Raw(`<p class="tl-state tl-state-past" role="status"><strong>`)
			h.Text(F(l, "tl.past", clockMs(p.Value)))
			h.Raw(`</strong> `)
			h.Text(T(l, "tl.past.hint"))
			h.Raw(`</p>`)
		} else {
			h.Raw(`<p class="tl-state" role="status">`)
			h.Text(T(l, "tl.live"))
			h.Raw(`</p>`)
		}
		off := ``
		if !p.Past {
			off = ` disabled`
		}
		h.Raw(`<p class="tl-buttons"><button type="button" id="`)
		h.Text(p.Prefix)
		h.Raw(`-timeline-live" class="btn btn-small" data-testid="timeline-live" data-timeline`)
		h.Raw(off)
		h.Raw(` ws-send hx-vals="{&#34;action&#34;:&#34;timeline-live&#34;}"><span aria-hidden="true">⇥</span> `)
		h.Text(T(l, "tl.now"))
		h.Raw(`</button> <button type="button" id="`)
		h.Text(p.Prefix)
		h.Raw(`-timeline-continue" class="btn btn-small" data-testid="timeline-continue" data-timeline`)
		if p.Follower {
			h.Raw(` data-fork-moment`)
			h.Raw(off)
		} else {
			h.Raw(off)
			h.Raw(` ws-send hx-vals="{&#34;action&#34;:&#34;timeline-continue&#34;}"`)
		}
		h.Raw(`><span aria-hidden="true">▶</span> `)
		h.Text(T(l, "tl.continue"))
		h.Raw(`</button> `)
		if p.InPage {
			writeShare(h, l, p)
		} else {
			h.Raw(`<span id="`)
			h.Text(p.Prefix)
			h.Raw(`-timeline-share" hx-preserve></span>`)
		}
		h.Raw(`</p></div></section>`)
		return h.Err()
	})
}

// TimelineTrack owns <prefix>-timeline-track: the timeline's range, and its
// marks (the page's, kept: hx-preserve, unless InPage).
func TimelineTrack(l Lang, p TimelineProps) templ.Component {
	return handWritten(func(h *HTML) { writeTrack(h, l, p) })
}

// handWritten is the component that write writes by hand.
func handWritten(write func(h *HTML)) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := NewHTML(w)
		write(h)
		return h.Err()
	})
}

func writeTrack(h *HTML, l Lang, p TimelineProps) {
	mode := p.mode()
	h.Raw(`<div id="`)
	h.Text(p.Prefix)
	h.Raw(`-timeline-track" class="tl-track"><input type="range" id="`)
	h.Text(p.Prefix)
	h.Raw(`-timeline-range" name="at" class="tl-range" data-testid="timeline" data-timeline min="`)
	h.Int64(p.Min)
	h.Raw(`" max="`)
	h.Int64(p.Max)
	h.Raw(`" step="1" value="`)
	h.Int64(p.Value)
	h.Raw(`" data-value="`)
	h.Int64(p.Value)
	h.Raw(`" data-max="`)
	h.Int64(p.Max)
	h.Raw(`" data-mode="`)
	h.Raw(mode)
	h.Raw(`" aria-label="`)
	h.Text(T(l, "tl.label"))
	h.Raw(`" aria-valuetext="`)
	h.Text(clockMs(p.Value))
	h.Raw(`" ws-send hx-vals="{&#34;action&#34;:&#34;timeline&#34;}">`)
	if h.err == nil {
		h.err = timelineMarks(p.Prefix, p.Marks, !p.InPage).Render(context.Background(), h.w)
	}
	h.Raw(`</div>`)
}

// TimelineShare owns <prefix>-timeline-share: the link to the moment shown,
// once there is one (shareLink).
func TimelineShare(l Lang, p TimelineProps) templ.Component {
	return handWritten(func(h *HTML) { writeShare(h, l, p) })
}

func writeShare(h *HTML, l Lang, p TimelineProps) {
	h.Raw(`<span id="`)
	h.Text(p.Prefix)
	h.Raw(`-timeline-share">`)
	if h.err == nil && (p.Share.Moment != "" || p.ShareSoon) {
		h.err = shareLink(l, p).Render(context.Background(), h.w)
	}
	h.Raw(`</span>`)
}
