package sockets

import "testing"

type count int

func (c *count) Inc() { *c++ }

// TestMailboxKeepsNewest: a newer version of a fragment replaces the unsent
// one, and the writer takes everything as one frame.
func TestMailboxKeepsNewest(t *testing.T) {
	var coalesced count
	b := &Mailbox{coalesced: &coalesced}
	b.Put([]Frag{{ID: "a", HTML: []byte("<p id=a>1</p>")}, {ID: "b", HTML: []byte("<p id=b>1</p>")}})
	b.Put([]Frag{{ID: "a", HTML: []byte("<p id=a>2</p>")}})
	b.Put([]Frag{{ID: "c", HTML: []byte("<p id=c>1</p>")}, {ID: "a", HTML: []byte("<p id=a>3</p>")}})
	if got, want := string(b.Take()), "<p id=a>3</p><p id=b>1</p><p id=c>1</p>"; got != want {
		t.Errorf("take = %q, want %q", got, want)
	}
	if got := b.Take(); got != nil {
		t.Errorf("second take = %q, want nil", got)
	}
	if coalesced != 2 {
		t.Errorf("frames coalesced = %v, want 2", coalesced)
	}
}

// TestDetachedRemembersItsClose: a connection without a socket collects
// frames and says how it was closed; the first close wins.
func TestDetachedRemembersItsClose(t *testing.T) {
	c := Detached()
	c.Put([]Frag{{ID: "a", HTML: []byte("<p id=a></p>")}})
	c.CloseWith(CloseServiceRestart, "restart")
	c.CloseWith(CloseNormal, "")
	<-c.Closed()
	if c.CloseCode() != CloseServiceRestart {
		t.Errorf("close code %d, want 1012", c.CloseCode())
	}
	if string(c.Take()) != "<p id=a></p>" {
		t.Error("the frame put before the close is gone")
	}
	c.Strike()
	c.Strike()
	if n := c.TakeStrikes(); n != 2 || c.TakeStrikes() != 0 {
		t.Errorf("strikes %d, want 2 then 0", n)
	}
}

// TestMailboxAppendsOnlyToWhatWasSent: a fragment that adds to the page's
// goes as it is when nothing of its id waits; when a version waits unsent,
// what it adds to is not on the page, and the whole fragment goes instead.
func TestMailboxAppendsOnlyToWhatWasSent(t *testing.T) {
	whole := func(items string) func() []byte {
		return func() []byte { return []byte("<ol id=m>" + items + "</ol>") }
	}
	add := func(item, all string) Frag {
		return Frag{ID: "m", HTML: []byte(`<ol id=m hx-swap-oob="beforeend">` + item + "</ol>"), Full: whole(all)}
	}
	for _, tc := range []struct {
		name string
		puts [][]Frag
		want string
	}{
		{"alone", [][]Frag{{add("<li>2", "<li>1<li>2")}}, `<ol id=m hx-swap-oob="beforeend"><li>2</ol>`},
		{"after another addition", [][]Frag{{add("<li>2", "<li>1<li>2")}, {add("<li>3", "<li>1<li>2<li>3")}},
			"<ol id=m><li>1<li>2<li>3</ol>"},
		{"after a whole one", [][]Frag{{{ID: "m", HTML: whole("<li>1")()}}, {add("<li>2", "<li>1<li>2")}},
			"<ol id=m><li>1<li>2</ol>"},
		{"a whole one after an addition", [][]Frag{{add("<li>2", "<li>1<li>2")}, {{ID: "m", HTML: whole("<li>9")()}}},
			"<ol id=m><li>9</ol>"},
		{"beside others", [][]Frag{{{ID: "a", HTML: []byte("<p id=a>1</p>")}}, {add("<li>2", "<li>1<li>2")}},
			`<p id=a>1</p><ol id=m hx-swap-oob="beforeend"><li>2</ol>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Mailbox
			for _, p := range tc.puts {
				b.Put(p)
			}
			if got := string(b.Take()); got != tc.want {
				t.Errorf("take = %q, want %q", got, tc.want)
			}
		})
	}
}
