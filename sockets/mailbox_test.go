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

// chunkOf renders htmls into one chunk, as a session's frame does, and
// returns the fragments pointing into it (ids a, b, …), the chunk holding
// their references and its maker's.
func chunkOf(htmls ...string) (*Chunk, []Frag) {
	c := GetChunk()
	ends := make([]int, len(htmls))
	for i, h := range htmls {
		c.Buf.WriteString(h)
		ends[i] = c.Buf.Len()
	}
	frags, start := make([]Frag, len(htmls)), 0
	for i, end := range ends {
		frags[i] = Frag{ID: string(rune('a' + i)), HTML: c.Buf.Bytes()[start:end], Chunk: c}
		start = end
	}
	c.Hold(len(frags))
	return c, frags
}

// TestMailboxGivesChunksBack: a fragment's chunk reference is given back
// when the writer has written it, when a newer version replaces it, when a
// version that adds is taken whole instead (Full), and when a held
// connection drops it; never before its bytes are copied. Chunks given
// back are poisoned, so a read after Done shows in what is written.
func TestMailboxGivesChunksBack(t *testing.T) {
	poison = true
	t.Cleanup(func() { poison = false })

	c := Detached()
	c1, f1 := chunkOf("<p id=a>1</p>", "<p id=b>1</p>")
	c.Put(f1)
	c1.Done() // the maker's
	if got := c1.refs.Load(); got != 2 {
		t.Fatalf("after put: %d references, want 2 (one per fragment)", got)
	}
	c2, f2 := chunkOf("<p id=a>2</p>", "<i>added</i>")
	f2[1].Full = func() []byte { return []byte("<p id=b>whole</p>") }
	c.Put(f2)
	c2.Done()
	if got := c1.refs.Load(); got != 0 {
		t.Errorf("both of the first chunk's fragments replaced: %d references left, want 0", got)
	}
	if got := c2.refs.Load(); got != 1 {
		t.Errorf("second chunk: %d references, want 1 (a; b was taken whole)", got)
	}
	if got, want := string(c.Take()), "<p id=a>2</p><p id=b>whole</p>"; got != want {
		t.Errorf("written %q, want %q", got, want)
	}
	if got := c2.refs.Load(); got != 0 {
		t.Errorf("after the write: %d references left, want 0", got)
	}

	// A held connection lets one id through and gives the others back.
	c.Hold("b")
	c3, f3 := chunkOf("<p id=a>3</p>", "<p id=b>3</p>")
	c.Put(f3)
	c3.Done()
	if got := c3.refs.Load(); got != 1 {
		t.Errorf("held: %d references, want 1 (b's)", got)
	}
	if got, want := string(c.Take()), "<p id=b>3</p>"; got != want {
		t.Errorf("held: written %q, want %q", got, want)
	}
	if got := c3.refs.Load(); got != 0 {
		t.Errorf("held, after the write: %d references left, want 0", got)
	}
}

// TestChunkDoneTooOftenPanics: a reference given back twice would let two
// frames share bytes; it panics instead.
func TestChunkDoneTooOftenPanics(t *testing.T) {
	c := GetChunk()
	c.Done()
	defer func() {
		if recover() == nil {
			t.Error("a second Done did not panic")
		}
	}()
	c.Done()
}
