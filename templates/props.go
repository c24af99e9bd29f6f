package templates

// Props are plain structs: the server builds them from the engine's state
// (server/view.go) and the components only lay them out.

// PageProps is what every full page needs.
type PageProps struct {
	Lang    Lang
	Title   string
	Path    string // the route, for the language and mode links
	Present bool   // projector mode
	Embed   bool   // chrome-less, for an iframe
	Demos   []DemoProps
}

// DemoProps is one demo on a page: which one, its session and its state.
type DemoProps struct {
	Kind      string // "reconcile" or "operator"
	SID       string
	WSURL     string
	Reconcile *ReconcileProps
	Operator  *OperatorProps
}

// ControlProps is the state of the controls both demos share.
type ControlProps struct {
	Prefix     string // "rc" or "op": the demo's id prefix
	Controller bool
	Paused     bool
	Speed      string // "0.5", "1", "2"
	Now        string // virtual time, formatted
	StepKey    string // catalog key of the step button
}

// ReconcileProps is the reconcile demo's state.
type ReconcileProps struct {
	Lang     Lang
	Desired  int
	Max      int
	Pods     []PodProps
	Alive    int
	Running  int
	Pending  int
	Failed   int
	Diff     DiffProps
	Controls ControlProps
	Last     *ReportProps
	Log      []LogLine
	Chart    ChartProps
	Live     string
	Error    string
	Snapshot string // JSON
}

// PodProps is one pod card.
type PodProps struct {
	Name     string
	Phase    string // engine's String()
	StartsIn string // "" unless Pending
}

// DiffProps is the diff line.
type DiffProps struct {
	Converged bool
	Key       string // catalog key of the headline
	Detail    string
	Hint      string // shown when the controller is off and a difference remains
}

// ReportProps is the last reconcile.
type ReportProps struct {
	Explain string
	Trigger string
	At      string
	Actions []ActionProps
}

// ActionProps is one action of a reconcile.
type ActionProps struct {
	Kind   string
	Target string
	Text   string
}

// LogLine is one line of a log.
type LogLine struct {
	Seq  int
	At   string
	Kind string
	Text string
}

// ChartProps is a server-rendered SVG chart: polylines over a fixed box.
type ChartProps struct {
	Title  string
	Desc   string
	Width  int
	Height int
	Lines  []ChartLine
	Bands  []ChartBand
	YTicks []ChartTick
	XTicks []ChartTick
	Legend []ChartLegend
	Max    int
}

// ChartLine is one series, as SVG polyline points.
type ChartLine struct {
	Class  string
	Points string
}

// ChartBand is a coloured span of time (the operator's phase history).
type ChartBand struct {
	Class string
	X, W  float64
	Label string
}

// ChartTick is an axis label.
type ChartTick struct {
	Pos   float64
	Label string
}

// ChartLegend names a series.
type ChartLegend struct {
	Class string
	Label string
}

// OperatorProps is the operator demo's state.
type OperatorProps struct {
	Lang        Lang
	SpecMembers int
	MinMembers  int
	MaxMembers  int
	RestoreFrom string
	Backup      bool
	Phase       string
	Ready       int
	Leader      string
	Restored    bool
	Conditions  []ConditionProps
	Members     []MemberProps
	Next        NextProps
	Controls    ControlProps
	Last        *ReportProps
	Log         []LogLine
	Chart       ChartProps
	Live        string
	Error       string
	Snapshot    string
}

// ConditionProps is one condition row.
type ConditionProps struct {
	Type    string
	Status  string
	Reason  string
	Message string
	Since   string
}

// MemberProps is one member card.
type MemberProps struct {
	Name     string
	Ready    bool
	Leader   bool
	StartsIn string
}

// NextProps is the difference the next reconcile will fill.
type NextProps struct {
	Kind string
	Text string
}
