package templates

import (
	"time"

	"github.com/a-h/templ"
)

// Props are plain structs: each demo builds them from its engine's state
// and the components only lay them out.

// PageProps is what every full page needs.
type PageProps struct {
	Lang    Lang
	Title   string
	Path    string // the route, for the language and mode links
	Present bool   // projector mode
	Embed   bool   // chrome-less, for an iframe
	Nav     []NavItem
	Index   []IndexEntry      // the chapters' index, on the home page only
	Demos   []templ.Component // each demo's section, rendered by its package
	Styles  []string          // the stylesheets it links beside app.css, by file name under /static/
	Scripts []string          // the scripts it links after site.min.js (htmx and app.js), by file name under /static/
	Banner  *BannerProps      // on a room's follower page: whose demo it is
	// TimeScale is the server's test-only time scale (Config.TimeScale) as
	// the page's clocks read it; "" when time runs as its speed says.
	TimeScale string
	// Asset returns the URL of a static file by its name ("app.css"): its
	// content-hashed name, cached for good. Nil: /static/<name>.
	Asset func(name string) string
}

// asset is the URL of a static file.
func (p PageProps) asset(name string) string {
	if p.Asset == nil {
		return "/static/" + name
	}
	return p.Asset(name)
}

// NavItem is one link of the site header.
type NavItem struct {
	Path  string
	Label string
}

// IndexEntry is one demo on the chapters' index.
type IndexEntry struct {
	Kind    string // the demo kind, also its path
	Chapter string // the chapters it serves, as they are numbered
	Title   string
	Summary string // one line of what it shows
	Live    bool   // it runs further down the same page
}

// DemoProps is what the frame around every demo needs: which demo, its
// session and socket, and its title.
type DemoProps struct {
	Kind   string // "reconcile": data-testid="reconcile-demo", data-demo="reconcile"
	Prefix string // "rc": the id prefix of its fragments
	Lang   Lang
	SID    string
	WSURL  string
	Title  string
	Intro  string
	Clock  ClockProps
	Role   string // "owner" or "follower" (a room's reader); "" is owner
	Kills  bool   // k kills a pod (or member): the help lists it even while none is there
	// Moment and MomentAt are set on a page opened from a link to a moment:
	// the page hands them to its socket, which starts the demo there.
	Moment, MomentAt string
}

// ClockProps is a demo's virtual clock at the moment a frame was rendered:
// the page runs it on from there, at Speed, unless Paused.
type ClockProps struct {
	Prefix string
	Ms     int64 // virtual milliseconds
	Paused bool
	Speed  string // "0.5", "1", "2"
}

// ControlProps is the state of the pace controls every demo shares.
type ControlProps struct {
	Prefix        string // the demo's id prefix
	HasController bool   // the demo has one controller switch
	Controller    bool
	Paused        bool
	Speed         string // "0.5", "1", "2"
	StepKey       string // catalog key of the step button
	StepText      string // its text, in the page's language
	HasReset      bool
	Disabled      bool // a room's follower watches but cannot act
}

// LogShown is how many of a log's newest lines a page shows: the panel
// shows about ten at once, and every line is in the frames that change it.
const LogShown = 24

// Newest returns the last LogShown of a log's entries: a demo says only
// the lines its page shows.
func Newest[T any](entries []T) []T { return entries[max(0, len(entries)-LogShown):] }

// LogLine is one line of a log.
type LogLine struct {
	Seq  int
	At   string
	Kind string
	Text string
}

// ETA is a countdown the page runs: "starts in 1.1 s" until virtual time At.
type ETA struct {
	At     int64  // virtual milliseconds when it ends
	Format string // the sentence, with %.1f for the seconds left
	Text   string // the sentence at the frame's time
}

// StartsIn is the countdown of something that starts in virtual time in,
// seen at virtual time now: 「起動まで 1.1 秒」.
func StartsIn(l Lang, now, in time.Duration) *ETA {
	return &ETA{At: (now + in).Milliseconds(), Format: T(l, "eta.startsin"), Text: F(l, "eta.startsin", in.Seconds())}
}
