package templates

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// A page has one h1. On the index it is the index's title, and each demo
// below it is a section with an h2; on a room's page it is the room's
// banner, above the room's demo (whose section the owner's session
// renders, wherever it runs). A demo alone on its page (/<kind>,
// /embed/<kind>) is the page's subject: its title is the page's h1. The demo's frame learns which it is from the context its page
// renders it in, so a demo's section (and every frame of it) stays the same
// component whatever page holds it.

type headingKey struct{}

// alone renders the page's only demo with its title as the page's h1.
func alone(c templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return c.Render(context.WithValue(ctx, headingKey{}, true), w)
	})
}

// titleIsH1 reports whether the demo rendered in ctx is alone on its page.
func titleIsH1(ctx context.Context) bool {
	v, _ := ctx.Value(headingKey{}).(bool)
	return v
}
