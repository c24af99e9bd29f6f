package reconcile

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Phase は Pod のライフサイクル状態。
type Phase int

const (
	Pending Phase = iota // 作られたがまだ起動していない
	Running              // 起動して稼働中
	Failed               // 落ちた(ノード障害・クラッシュ)
)

func (p Phase) String() string {
	switch p {
	case Pending:
		return "Pending"
	case Running:
		return "Running"
	case Failed:
		return "Failed"
	}
	return "Unknown"
}

// Pod は 1 つのワークロード実体。observed state を構成する。
type Pod struct {
	Name  string
	Phase Phase
}

// Cluster は実際にある状態(observed state)を保持する世界。
type Cluster struct {
	pods map[string]*Pod
	seq  int
}

// NewCluster は空のクラスタを作る。
func NewCluster() *Cluster { return &Cluster{pods: map[string]*Pod{}} }

// create は Pending の Pod を 1 つ足し、その名前を返す(連番で決定的)。
func (c *Cluster) create() string {
	c.seq++
	name := "pod-" + itoa(c.seq)
	c.pods[name] = &Pod{Name: name, Phase: Pending}
	return name
}

// delete は Pod を消す。
func (c *Cluster) delete(name string) { delete(c.pods, name) }

// Pods は名前順に Pod 一覧を返す(観測用・決定的)。
func (c *Cluster) Pods() []Pod { return c.AppendPods(make([]Pod, 0, len(c.pods))) }

// AppendPods は Pods と同じ並びで dst に Pod を足して返す。毎フレーム読む側が
// 配列を使い回せるように(Pods は呼ぶたびに新しく作る)。
func (c *Cluster) AppendPods(dst []Pod) []Pod {
	n := len(dst)
	for _, p := range c.pods {
		dst = append(dst, *p)
	}
	slices.SortFunc(dst[n:], func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
	return dst
}

// StartPending は Pending の Pod を Running にする(スケジュール後の起動を模す)。
func (c *Cluster) StartPending() {
	for _, p := range c.pods {
		if p.Phase == Pending {
			p.Phase = Running
		}
	}
}

// Fail は name の Pod を Failed にする(ノード障害・クラッシュ)。
func (c *Cluster) Fail(name string) {
	if p, ok := c.pods[name]; ok {
		p.Phase = Failed
	}
}

// alive は生きている(Pending か Running の)Pod 名を名前順で返す。Failed は死。
func (c *Cluster) alive() []string {
	var names []string
	for n, p := range c.pods {
		if p.Phase != Failed {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Action は調整で起こした操作(観測・説明用)。
type Action struct {
	Kind string // "create" / "delete"
	Pod  string
}

// Controller は「Pod を desired 個に保つ」責務を持つ(ReplicaSet 相当)。
type Controller struct{ desired int }

// New は目標レプリカ数 desired のコントローラを作る。
func New(desired int) *Controller {
	if desired < 0 {
		desired = 0
	}
	return &Controller{desired: desired}
}

// SetDesired は目標を宣言的に変更する(スケール)。手順でなく「あるべき数」を書く。
func (c *Controller) SetDesired(n int) {
	if n < 0 {
		n = 0
	}
	c.desired = n
}

// Desired は現在の目標数を返す。
func (c *Controller) Desired() int { return c.desired }

// Reconcile は observed state と desired state を見比べ、差を埋める操作を行う。
// この 1 回の呼び出しが、作成・スケール・障害回復のどれも等しく処理する。
// 何度呼んでも収束先は同じ(冪等)。イベントに反応せず、毎回現状を数え直す
// (level-triggered)ので、取りこぼしやコントローラの再起動に強い。
//
// 戻り値は実際に行った操作の列で、Failed の Pod の削除が先、次に不足分の
// 作成か余剰分の削除が続く。収束していれば空(nil)を返す。
func (c *Controller) Reconcile(cl *Cluster) []Action {
	var actions []Action

	// まず死んだ Pod を掃除する(Failed は生きた数に数えないので、この後で
	// 作り直しの対象になる)。
	for _, p := range cl.Pods() {
		if p.Phase == Failed {
			cl.delete(p.Name)
			actions = append(actions, Action{Kind: "delete", Pod: p.Name})
		}
	}

	alive := cl.alive()
	switch {
	case len(alive) < c.desired:
		// 足りない。差のぶんだけ作る(障害回復もスケールアップもここ)。
		for i := 0; i < c.desired-len(alive); i++ {
			actions = append(actions, Action{Kind: "create", Pod: cl.create()})
		}
	case len(alive) > c.desired:
		// 多い。余りを消す(スケールダウン)。名前順で末尾から。
		excess := alive[c.desired:]
		for _, name := range excess {
			cl.delete(name)
			actions = append(actions, Action{Kind: "delete", Pod: name})
		}
	}
	// 差がなければ actions は空(冪等・何もしない)。
	return actions
}

// Converged は observed が desired に一致し、全 Pod が Running かを返す。
func (c *Controller) Converged(cl *Cluster) bool {
	running := 0
	for _, p := range cl.Pods() {
		if p.Phase == Failed {
			return false
		}
		if p.Phase == Running {
			running++
		}
	}
	return running == c.desired && len(cl.Pods()) == c.desired
}

func itoa(n int) string { return strconv.Itoa(n) }
