package triggers

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

// Cluster is the edge side's cluster: the same world as reconcile.Cluster
// (pods named pod-1, pod-2, … in creation order and never reused, phases
// reconcile.Pending / Running / Failed), but one the edge controller can act
// on from this package. Besides, it refuses to hold more than MaxPods pods,
// as a ResourceQuota would: an edge controller gone wild cannot grow it
// without limit.
type Cluster struct {
	pods map[string]*reconcile.Pod
	seq  int // the number of the last pod created
}

func newCluster() *Cluster { return &Cluster{pods: map[string]*reconcile.Pod{}} }

// create は Pending の Pod を 1 つ足し、その名前を返す(連番で決定的)。
// MaxPods 個あるとき(クォータ超過)は作らず false を返す。
func (c *Cluster) create() (string, bool) {
	if len(c.pods) >= MaxPods || c.seq >= reconcile.MaxSeq {
		return "", false
	}
	c.seq++
	name := "pod-" + strconv.Itoa(c.seq)
	c.pods[name] = &reconcile.Pod{Name: name, Phase: reconcile.Pending}
	return name, true
}

// delete は Pod を消し、あったかどうかを返す(無ければ NotFound)。
func (c *Cluster) delete(name string) bool {
	_, ok := c.pods[name]
	delete(c.pods, name)
	return ok
}

// start makes a Pending pod Running and reports whether it did.
func (c *Cluster) start(name string) bool {
	p, ok := c.pods[name]
	if !ok || p.Phase != reconcile.Pending {
		return false
	}
	p.Phase = reconcile.Running
	return true
}

// fail makes an alive pod Failed and reports whether it did.
func (c *Cluster) fail(name string) bool {
	p, ok := c.pods[name]
	if !ok || p.Phase == reconcile.Failed {
		return false
	}
	p.Phase = reconcile.Failed
	return true
}

// Pods returns the pods sorted by name, as reconcile.Cluster.Pods does.
func (c *Cluster) Pods() []reconcile.Pod {
	return c.AppendPods(make([]reconcile.Pod, 0, len(c.pods)))
}

// AppendPods appends Pods to dst, as reconcile.Cluster.AppendPods does.
func (c *Cluster) AppendPods(dst []reconcile.Pod) []reconcile.Pod {
	n := len(dst)
	for _, p := range c.pods {
		dst = append(dst, *p)
	}
	slices.SortFunc(dst[n:], func(a, b reconcile.Pod) int { return strings.Compare(a.Name, b.Name) })
	return dst
}

// Seq returns the number used by the last pod created: the next pod is
// pod-(Seq()+1).
func (c *Cluster) Seq() int { return c.seq }

// ActionKind names what a controller did to its cluster: a number, not its
// spelling, so that a log entry holds no pointer. The zero value is no
// action's.
type ActionKind uint8

// The actions of both controllers. The level side only ever creates and
// deletes (chapter 000's Action kinds); the other three are the edge side's
// naive moves that went nowhere.
const (
	ActCreate        ActionKind = iota + 1 // created Pod
	ActDelete                              // deleted Pod
	ActDeleteGone                          // tried to delete Pod, already gone (NotFound), and carried on
	ActDeleteUnknown                       // wanted to delete one more pod but knew of none
	ActCreateRefused                       // wanted to create a pod; the cluster held MaxPods (quota)
)

// actionKinds spells the actions, as the words catalog's keys do.
var actionKinds = [...]string{ActCreate: "create", ActDelete: "delete", ActDeleteGone: "delete-gone",
	ActDeleteUnknown: "delete-unknown", ActCreateRefused: "create-refused"}

// String returns the action's spelling, "" for the zero value.
func (k ActionKind) String() string { return spell(actionKinds[:], k) }

// Action is one thing a controller did, for the page to explain.
type Action struct {
	Kind ActionKind
	Pod  PodID // 0 for ActDeleteUnknown and ActCreateRefused
}

// EdgeController は素朴なイベント駆動(edge-triggered)のコントローラ。
// 章の ③ が「素朴には、こう書きたくなる」と言う書き方そのもの:
// 「Pod が死んだ」と聞いたら 1 つ作り、「desired が変わった」と聞いたら
// 差のぶんだけ作るか消す。世界を数え直すことはしない(Pod の一覧を取らない)。
// 知っているのは、聞いたイベントと自分で作った Pod だけ。
type EdgeController struct {
	// known は生きていると信じている Pod の名前。聞いたイベント(作成・起動)と
	// 自分の作成で増え、聞いたイベント(死亡・削除)と自分の削除で減る。
	// 高々 MaxKnown 個。
	known map[string]bool
}

// NewEdgeController returns an edge controller that remembers the given
// pods, as if it had heard of their creation.
func NewEdgeController(known ...string) *EdgeController {
	c := &EdgeController{known: map[string]bool{}}
	for _, n := range known {
		c.remember(n)
	}
	return c
}

// Handle は届いたイベント 1 つに反応する。反応するのはこのイベントにだけで、
// クラスタの現状は見ない。だからイベントを取りこぼせばその出来事は永遠に
// 修復されず、同じイベントが 2 回届けば 2 回反応し、順序が入れ替われば
// 古い差分のまま動く。
//
// 戻り値は行った操作の列。作成がクォータで断られたもの(ActCreateRefused)、
// 消そうとした Pod がもう無かったもの(ActDeleteGone)、消したいのに知っている
// Pod が無かったもの(ActDeleteUnknown)も、そのまま返す。
func (c *EdgeController) Handle(ev Event, cl *Cluster) []Action {
	var actions []Action
	switch ev.Kind {
	case PodDied:
		// 「Pod が死んだ」→ 死んだ Pod を消して、1 つ作る。
		// 同じ知らせが 2 回来れば、2 回作る(冪等でない)。
		name := ev.Pod.String()
		c.forget(name)
		actions = append(actions, c.delete(cl, name), c.create(cl))
	case DesiredChanged:
		// 「desired が old → new に変わった」→ 差のぶんだけ作るか消す。
		// 今いくつあるかは数えない。イベントに書いてある差だけを信じる。
		for i := ev.Old; i < ev.New; i++ {
			actions = append(actions, c.create(cl))
		}
		for i := ev.New; i < ev.Old; i++ {
			// 消すのは知っている Pod だけ。名前順で末尾から(章の Reconcile と同じ順)。
			name, ok := c.last()
			if !ok {
				actions = append(actions, Action{Kind: ActDeleteUnknown})
				continue
			}
			c.forget(name)
			actions = append(actions, c.delete(cl, name))
		}
	case PodCreated, PodRunning:
		// 聞いた Pod を覚える(これが edge 側の「世界の見え方」のすべて)。
		c.remember(ev.Pod.String())
	case PodDeleted:
		c.forget(ev.Pod.String())
	}
	return actions
}

// create は Pod を 1 つ作り、自分で作ったものとして覚える。
func (c *EdgeController) create(cl *Cluster) Action {
	name, ok := cl.create()
	if !ok {
		return Action{Kind: ActCreateRefused}
	}
	c.remember(name)
	return Action{Kind: ActCreate, Pod: podOf(name)}
}

// delete は名前で Pod を消す。無かったら(NotFound)そのまま進む。
func (c *EdgeController) delete(cl *Cluster, name string) Action {
	if !cl.delete(name) {
		return Action{Kind: ActDeleteGone, Pod: podOf(name)}
	}
	return Action{Kind: ActDelete, Pod: podOf(name)}
}

// Forget drops everything the controller remembered, as a restart does: an
// edge controller's view of the world lives only in its memory.
func (c *EdgeController) Forget() { clear(c.known) }

// Known returns the pods the controller believes alive, sorted by name.
func (c *EdgeController) Known() []string {
	return c.AppendKnown(make([]string, 0, len(c.known)))
}

// AppendKnown appends Known to dst.
func (c *EdgeController) AppendKnown(dst []string) []string {
	n := len(dst)
	for name := range c.known {
		dst = append(dst, name)
	}
	sort.Strings(dst[n:])
	return dst
}

// remember adds a pod's name unless the memory is full: a controller that
// heard of more pods than MaxKnown forgets the newest, which keeps it
// bounded. Anything but pod-N names no pod and is not remembered, so every
// name it deletes by is a pod's.
func (c *EdgeController) remember(name string) {
	if _, ok := ParsePod(name); ok && len(c.known) < MaxKnown {
		c.known[name] = true
	}
}

func (c *EdgeController) forget(name string) { delete(c.known, name) }

// last returns the known pod last in name order.
func (c *EdgeController) last() (string, bool) {
	best, ok := "", false
	for n := range c.known {
		if !ok || n > best {
			best, ok = n, true
		}
	}
	return best, ok
}
