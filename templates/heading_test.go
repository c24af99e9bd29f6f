package templates

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

// TestOneH1 checks that every kind of page has exactly one h1: a demo alone
// on its page (with the site's chrome or embedded) has its title as the
// h1; on the index the index's title is, and each demo's title is an h2;
// on a room's page the room's banner is, and the demo's title is an h2.
// The help dialog, which a page adds when it is first opened, has an h2.
func TestOneH1(t *testing.T) {
	demo := func(prefix string) templ.Component {
		return Demo(DemoProps{Kind: prefix, Prefix: prefix, Lang: Ja, Title: "title of " + prefix})
	}
	for _, tc := range []struct {
		name   string
		p      PageProps
		h1, h2 int
		title  string // the h1's text
	}{
		{"demo page", PageProps{Lang: Ja, Demos: []templ.Component{demo("rc")}}, 1, 0, "title of rc"},
		{"embed", PageProps{Lang: En, Embed: true, Demos: []templ.Component{demo("tr")}}, 1, 0, "title of tr"},
		{"room", PageProps{Lang: Ja, Banner: &BannerProps{Code: "ABCDEF"}, Demos: []templ.Component{demo("op")}}, 1, 1, F(Ja, "room.banner", "ABCDEF")},
		{"index", PageProps{Lang: Ja, Index: []IndexEntry{{Kind: "rc"}}, Demos: []templ.Component{demo("rc"), demo("op")}}, 1, 2, T(Ja, "index.title")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := Page(tc.p).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			html := b.String()
			if n := strings.Count(html, "<h1"); n != tc.h1 {
				t.Errorf("%d h1, want %d", n, tc.h1)
			}
			if n := strings.Count(html, "<h2"); n != tc.h2 {
				t.Errorf("%d h2, want %d", n, tc.h2)
			}
			if i := strings.Index(html, "<h1"); i < 0 || !strings.Contains(html[i:i+strings.Index(html[i:], "</h1>")], tc.title) {
				t.Errorf("the h1 does not say %q", tc.title)
			}
		})
	}
	for _, l := range []Lang{Ja, En} {
		var b strings.Builder
		if err := Help(l).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		if html := b.String(); strings.Count(html, "<h1") != 0 || strings.Count(html, "<h2") != 1 || strings.Count(html, `<h2 id="help-title"`) != 1 {
			t.Errorf("%s: the help dialog's headings: %.200s", l, html)
		}
	}
}
