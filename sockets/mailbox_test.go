package sockets

import "testing"

type count int

func (c *count) Inc() { *c++ }

// TestMailboxKeepsNewest: a newer version of a fragment replaces the unsent
// one, and the writer takes everything as one frame.
func TestMailboxKeepsNewest(t *testing.T) {
	var coalesced count
	b := &Mailbox{coalesced: &coalesced}
	b.Put([]Frag{{"a", []byte("<p id=a>1</p>")}, {"b", []byte("<p id=b>1</p>")}})
	b.Put([]Frag{{"a", []byte("<p id=a>2</p>")}})
	b.Put([]Frag{{"c", []byte("<p id=c>1</p>")}, {"a", []byte("<p id=a>3</p>")}})
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
	c.Put([]Frag{{"a", []byte("<p id=a></p>")}})
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
