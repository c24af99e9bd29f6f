package templates

import (
	"bufio"
	"bytes"
	"context"
	"html"
	"io"
	"strings"
	"testing"
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
// forms, its attributes escaped as templ escapes them.
func TestSnapshotElement(t *testing.T) {
	for _, c := range []struct{ json, timeline, want string }{
		{"", "", `<div id="rc-snapshot" hidden></div>`},
		{`{"a":"<b>"}`, "", `<div id="rc-snapshot" hidden data-sid="s&amp;" data-snapshot="{&#34;a&#34;:&#34;&lt;b&gt;&#34;}"></div>`},
		{`{}`, "AB'C", `<div id="rc-snapshot" hidden data-sid="s&amp;" data-snapshot="{}" data-timeline="AB&#39;C"></div>`},
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
