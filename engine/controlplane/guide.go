package controlplane

import (
	"errors"
	"slices"
)

// GuideSteps is the number of messages from the chapter's kubectl apply to
// three pods Running: the chapter's five steps, message by message.
const GuideSteps = 11

// ErrGuide is returned by the live controls while the guide is not over.
var ErrGuide = errors.New("the guided apply is not over: send its messages first")

// Caption says what a guided message changed: Object went from Before to
// After. The words are keys (Caption* constants) the page translates.
type Caption struct {
	Object string // ResDeployment, ResReplicaSet, ResPod or CaptionContainer
	Before string
	After  string
}

// Caption keys.
const (
	CaptionContainer = "Container" // the pods' containers in containerd

	StateNone        = "none"        // 無し
	StateRequested   = "requested"   // 作成要求 (stored after authn, authz, admission)
	StateMissing     = "missing"     // 差分あり: should exist, does not
	StateCreated     = "created"     // 作成済み
	StateUnscheduled = "unscheduled" // Pending, nodeName empty
	StateNoticed     = "noticed"     // the receiving component knows
	StateBound       = "bound"       // nodeName set
	StatePrepared    = "prepared"    // sandbox running, image pulled
	StateRunning     = "running"     // container or pod running
	StatePending     = "pending"     // pod phase Pending
)

// GuideStep is one message of the guide: which of the chapter's five steps
// it belongs to, the arrow, and its caption.
type GuideStep struct {
	N           int // 1..GuideSteps
	ChapterStep int // 1..5: the chapter's numbered list
	From, To    string
	Kind        string
	Verb        string
	Resource    string
	Sub         string
	Reason      string
	Calls       []string
	Caption     Caption
}

var guideSteps = [GuideSteps]GuideStep{
	{1, 1, LaneKubectl, LaneAPIServer, KindWrite, VerbPost, ResDeployment, "", ReasonApply, nil,
		Caption{ResDeployment, StateNone, StateRequested}},
	{2, 2, LaneAPIServer, LaneDeployment, KindWatch, VerbAdded, ResDeployment, "", ReasonApply, nil,
		Caption{ResReplicaSet, StateNone, StateMissing}},
	{3, 2, LaneDeployment, LaneAPIServer, KindWrite, VerbPost, ResReplicaSet, "", ReasonCreateRS, nil,
		Caption{ResReplicaSet, StateNone, StateCreated}},
	{4, 3, LaneAPIServer, LaneReplicaSet, KindWatch, VerbAdded, ResReplicaSet, "", ReasonCreateRS, nil,
		Caption{ResPod, StateNone, StateMissing}},
	{5, 3, LaneReplicaSet, LaneAPIServer, KindWrite, VerbPost, ResPod, "", ReasonCreatePods, nil,
		Caption{ResPod, StateNone, StateUnscheduled}},
	{6, 4, LaneAPIServer, LaneScheduler, KindWatch, VerbAdded, ResPod, "", ReasonCreatePods, nil,
		Caption{ResPod, StateUnscheduled, StateNoticed}},
	{7, 4, LaneScheduler, LaneAPIServer, KindWrite, VerbPost, ResBinding, "", ReasonBind, nil,
		Caption{ResPod, StateUnscheduled, StateBound}},
	{8, 5, LaneAPIServer, LaneKubelet, KindWatch, VerbAdded, ResPod, "", ReasonBind, nil,
		Caption{ResPod, StateBound, StateNoticed}},
	{9, 5, LaneKubelet, LaneContainerd, KindCRI, "", "", "", ReasonStartPod, []string{CallRunPodSandbox, CallPullImage},
		Caption{CaptionContainer, StateNone, StatePrepared}},
	{10, 5, LaneKubelet, LaneContainerd, KindCRI, "", "", "", ReasonStartContainer, []string{CallCreateContainer, CallStartContainer},
		Caption{CaptionContainer, StatePrepared, StateRunning}},
	{11, 5, LaneKubelet, LaneAPIServer, KindWrite, VerbPatch, ResPod, SubStatus, ReasonPodRunning, nil,
		Caption{ResPod, StatePending, StateRunning}},
}

// GuideStepInfo returns guided message n (1..GuideSteps), and false for any
// other n.
func GuideStepInfo(n int) (GuideStep, bool) {
	if n < 1 || n > GuideSteps {
		return GuideStep{}, false
	}
	s := guideSteps[n-1]
	s.Calls = slices.Clone(s.Calls)
	return s, true
}

// GuideState is where the guide is: Step messages of Total sent. Live is
// true once the guide is over and time or a command has moved the cluster
// on; CanBack says whether Back may undo the last message.
type GuideState struct {
	Step    int
	Total   int
	Live    bool
	CanBack bool
}

// Guide returns where the guide is.
func (c *Cluster) Guide() GuideState {
	return GuideState{Step: c.guide, Total: GuideSteps, Live: c.live, CanBack: c.guide > 0 && !c.live}
}

// Next sends the guide's next message: it arrives and takes effect, and the
// one after it is put in flight. It returns the message, and an error (doing
// nothing) once the guide is over. After the GuideSteps-th message the
// cluster is live.
func (c *Cluster) Next() (Message, error) {
	if c.guide >= GuideSteps || len(c.inflight) == 0 {
		return Message{}, errors.New("the guided apply is over")
	}
	m := c.inflight[0]
	c.now = m.Arrive
	c.deliver(m)
	c.guide++
	return m.clone(), nil
}

// Back undoes the last guided message by replaying the ones before it from
// the empty cluster (the same seed gives the same names). It returns an
// error, doing nothing, before the first message or once the cluster is
// live.
func (c *Cluster) Back() error {
	if !c.Guide().CanBack {
		return errors.New("nothing to undo: the guide is at its start or the cluster is live")
	}
	*c = *c.replay(c.guide - 1)
	return nil
}

// FinishGuide sends the guide's remaining messages at once.
func (c *Cluster) FinishGuide() {
	for c.guide < GuideSteps {
		if _, err := c.Next(); err != nil {
			return
		}
	}
}

// Reset brings the cluster back to the guide's start, with the same seed
// and the same runtime stack.
func (c *Cluster) Reset() { *c = *c.replay(0) }

// replay returns the guide after n messages, with c's seed, runtime and test
// hooks.
func (c *Cluster) replay(n int) *Cluster {
	r := New(c.seed)
	r.runtime, r.trace, r.onBind = c.runtime, c.trace, c.onBind
	for range n {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	return r
}
