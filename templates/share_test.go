package templates

import (
	"bytes"
	"encoding/base64"
	"html"
	"io"
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"

	"github.com/a-h/templ"
)

// TestMomentLinkAsEncoded: a moment's link is the query url.Values would
// encode (at, lang, moment, in that order), and the page's attribute holds
// it as html.EscapeString would escape it, for any payload, time and
// language.
func TestMomentLinkAsEncoded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		payload := make([]byte, r.IntN(3000))
		for j := range payload {
			payload[j] = byte(r.Uint32())
		}
		m := MomentLink{
			Base:   []string{"", "https://demo.example", "http://127.0.0.1:8080"}[i%3] + []string{"/reconcile", "/embed/triggers"}[i%2],
			At:     r.Int64N(1 << 40),
			En:     i%4 == 0,
			Moment: base64.RawURLEncoding.EncodeToString(payload),
		}
		q := url.Values{"moment": {m.Moment}, "at": {strconv.FormatInt(m.At, 10)}}
		if m.En {
			q.Set("lang", "en")
		}
		want := m.Base + "?" + q.Encode()
		if got := m.String(); got != want {
			t.Fatalf("link %q, want %q", got, want)
		}
		var b bytes.Buffer
		if err := m.write(&b); err != nil {
			t.Fatal(err)
		}
		if got, want := b.String(), html.EscapeString(want); got != want {
			t.Fatalf("attribute %q, want %q", got, want)
		}
	}
}

// TestShareLinkInTimeline: the timeline's link to the moment, written by
// hand, is the element templ wrote: with its link, or without while the
// link is to come, and none when there is no origin to link from.
func TestShareLinkInTimeline(t *testing.T) {
	link := MomentLink{Base: "/reconcile", At: 5000, Moment: "QUJD"}
	for _, c := range []struct {
		p    TimelineProps
		want string
	}{
		{TimelineProps{Prefix: "rc", Share: link},
			`<span id="rc-timeline-share"><a class="btn btn-small tl-share" id="rc-share" data-testid="share-moment" data-timeline data-value="/reconcile?at=5000&amp;moment=QUJD" target="_blank" rel="noopener"><span aria-hidden="true">⇗</span> この瞬間のリンク</a></span></p>`},
		{TimelineProps{Prefix: "rc", ShareSoon: true},
			`<span id="rc-timeline-share"><a class="btn btn-small tl-share" id="rc-share" data-testid="share-moment" data-timeline target="_blank" rel="noopener"><span aria-hidden="true">⇗</span> この瞬間のリンク</a></span></p>`},
		{TimelineProps{Prefix: "rc"}, `</button> <span id="rc-timeline-share"></span></p>`},
	} {
		// As a page has it: a frame sends the link apart (TimelineShare).
		c.p.InPage = true
		var b bytes.Buffer
		if err := Timeline(Ja, c.p).Render(t.Context(), &b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b.Bytes(), []byte(c.want)) || bytes.Count(b.Bytes(), []byte("tl-share")) > 1 {
			t.Errorf("timeline %+v:\n%s\nwant it to hold\n%s", c.p, b.Bytes(), c.want)
		}
	}
}

// TestClsAsTemplWritesIt: Cls joins a base and the keys that are on as
// templ's class={ base, templ.KV(…), … } does.
func TestClsAsTemplWritesIt(t *testing.T) {
	for _, c := range []struct {
		base string
		on   []templ.KeyValue[string, bool]
	}{
		{"pod", nil},
		{"pod", []templ.KeyValue[string, bool]{templ.KV("pod-dying", false)}},
		{"pod", []templ.KeyValue[string, bool]{templ.KV("pod-dying", true), templ.KV("pod-new", false), templ.KV("pod-hot", true)}},
		{"panel cp-seq cp-seq-live", []templ.KeyValue[string, bool]{templ.KV("x", true)}},
	} {
		items := []any{c.base}
		for _, kv := range c.on {
			items = append(items, kv)
		}
		if got, want := string(Cls(c.base, c.on...)), templ.CSSClasses(items).String(); got != want {
			t.Errorf("Cls(%q, %v) = %q, templ writes %q", c.base, c.on, got, want)
		}
	}
}

// TestSnapshotToAsSnapshot: the snapshot written as it is encoded is the
// element Snapshot writes from the string.
func TestSnapshotToAsSnapshot(t *testing.T) {
	json := `{"v":1,"kind":"reconcile","note":"<b>&'x'</b>","now":5}`
	for _, timeline := range []string{"", "QUJD-_"} {
		var a, b bytes.Buffer
		if err := Snapshot("rc", "sid-1", json, timeline).Render(t.Context(), &a); err != nil {
			t.Fatal(err)
		}
		write := func(w io.Writer) error { _, err := io.WriteString(w, json); return err }
		if err := SnapshotTo("rc", "sid-1", write, timeline).Render(t.Context(), &b); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("SnapshotTo wrote\n%s\nSnapshot\n%s", b.String(), a.String())
		}
	}
}
