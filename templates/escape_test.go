package templates

import (
	"bufio"
	"bytes"
	"context"
	"html"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/a-h/templ"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestTextEscapesAsTempl: Text writes what templ's { s } writes
// (html.EscapeString), whatever the string.
func TestTextEscapesAsTempl(t *testing.T) {
	for _, s := range []string{"", "plain", `<a href="x">&'</a>`, "&&", `"`, "tail<", ">head", "日本語 & 調整 <b>", `{"a":"b<c>"}`} {
		var b strings.Builder
		if err := Text(s).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		if got, want := b.String(), html.EscapeString(s); got != want {
			t.Errorf("Text(%q) = %q, want %q", s, got, want)
		}
		// Into a buffer's spare room, after what it holds, and through
		// templ's bufio.Writer.
		var buf bytes.Buffer
		buf.WriteString("held|")
		bw := bufio.NewWriterSize(&buf, 16)
		for _, w := range []io.Writer{&buf, bw} {
			if err := Text(s).Render(context.Background(), w); err != nil {
				t.Fatal(err)
			}
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := buf.String(), "held|"+html.EscapeString(s)+html.EscapeString(s); got != want {
			t.Errorf("Text(%q) into a bytes.Buffer and a bufio.Writer = %q, want %q", s, got, want)
		}
		var plain strings.Builder // through a writer without WriteString
		if err := Text(s).Render(context.Background(), struct{ io.Writer }{&plain}); err != nil {
			t.Fatal(err)
		}
		if got, want := plain.String(), html.EscapeString(s); got != want {
			t.Errorf("Text(%q) to a plain writer = %q, want %q", s, got, want)
		}
	}
}

func FuzzText(f *testing.F) {
	f.Add(`<a href="x">&'</a>`)
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		_ = Text(s).Render(context.Background(), &b)
		if b.String() != html.EscapeString(s) {
			t.Fatalf("Text(%q) = %q, want %q", s, b.String(), html.EscapeString(s))
		}
		var buf bytes.Buffer
		_ = Text(s).Render(context.Background(), &buf)
		if buf.String() != html.EscapeString(s) {
			t.Fatalf("Text(%q) into a bytes.Buffer = %q, want %q", s, buf.String(), html.EscapeString(s))
		}
	})
}

// TestSnapshotElement: the hand-written snapshot element in its three
// forms, its attributes escaped as templ escapes them but the state's, in
// single quotes, where only & and ' are.
func TestSnapshotElement(t *testing.T) {
	for _, c := range []struct{ json, timeline, want string }{
		{"", "", `<div id="rc-snapshot" hidden></div>`},
		{`{"a":"<b>"}`, "", `<div id="rc-snapshot" hidden data-sid="s&amp;" data-snapshot='{"a":"<b>"}'></div>`},
		{`{"n":"it's & <that>"}`, "", `<div id="rc-snapshot" hidden data-sid="s&amp;" data-snapshot='{"n":"it&#39;s &amp; <that>"}'></div>`},
		{`{}`, "AB'C", `<div id="rc-snapshot" hidden data-sid="s&amp;" data-snapshot='{}' data-timeline="AB&#39;C"></div>`},
	} {
		var b strings.Builder
		if err := Snapshot("rc", "s&", c.json, c.timeline).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("Snapshot(%q, %q) = %s, want %s", c.json, c.timeline, b.String(), c.want)
		}
	}
}

// FuzzSnapshotAttr: whatever the state's JSON holds, a browser's parser
// (x/net/html's) reads back exactly that JSON from the element, written
// whole (Snapshot) or in pieces (SnapshotTo), and the element ends where
// it should.
func FuzzSnapshotAttr(f *testing.F) {
	f.Add(`{"a":"<b>","c":"it's & that'"}`, 3)
	f.Add(`'&&''&#34;`, 1)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if s == "" || !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\r") {
			return // no state, no element (TestSnapshotElement); JSON is UTF-8, with no raw NUL or CR (a parser replaces both)
		}
		pieces := func(w io.Writer) error {
			n := 1 + (cut%7+7)%7
			for i := 0; i < len(s); i += n {
				if _, err := io.WriteString(w, s[i:min(i+n, len(s))]); err != nil {
					return err
				}
			}
			return nil
		}
		for _, c := range []templ.Component{Snapshot("rc", "s", s, "t"), SnapshotTo("rc", "s", pieces, "t")} {
			var b strings.Builder
			if err := c.Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			nodes, err := xhtml.ParseFragment(strings.NewReader(b.String()+"<p>after</p>"), &xhtml.Node{Type: xhtml.ElementNode, Data: "body", DataAtom: atom.Body})
			if err != nil || len(nodes) != 2 {
				t.Fatalf("%s: parsed into %d nodes (%v)", b.String(), len(nodes), err)
			}
			got := map[string]string{}
			for _, a := range nodes[0].Attr {
				got[a.Key] = a.Val
			}
			if got["data-snapshot"] != s || got["data-timeline"] != "t" {
				t.Fatalf("%s: read back %q and %q", b.String(), got["data-snapshot"], got["data-timeline"])
			}
		}
	})
}
