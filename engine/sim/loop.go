package sim

// Loop is what the loop demos share beside their engine: the timeline, the
// controller switch and the log. A demo embeds one, so pause, speed and the
// switch behave, and log, alike in every demo.
type Loop struct {
	Timeline
	Log Log
	on  bool
}

// NewLoop returns a loop on clock c with the controller on or off; a
// controller that starts on logs that it started watching.
func NewLoop(c Clock, opt Options, on bool) Loop {
	opt = opt.WithDefaults()
	l := Loop{Timeline: NewTimeline(c, opt.Cadence), Log: NewLog(opt.LogSize)}
	l.SetController(on)
	return l
}

// Controller reports whether the controller is on.
func (l *Loop) Controller() bool { return l.on }

// SetController switches the controller on or off, and logs the change.
func (l *Loop) SetController(on bool) {
	if l.on == on {
		return
	}
	l.on = on
	if on {
		l.Note(Event{Kind: EventWatchStart})
	} else {
		l.Note(Event{Kind: EventWatchStop})
	}
}

// Note logs e at the current virtual time.
func (l *Loop) Note(e Event) { l.Log.Add(l.now, e) }
