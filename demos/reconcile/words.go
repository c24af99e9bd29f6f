package reconcile

import "github.com/reconcile-demo/reconcile-demo/templates"

// words are this demo's sentences in both languages, in the chapter's words
// (desired state, observed state, 調整, 差あり, 一致, …); the shared ones
// (controls, connection, errors) are in package templates.
var words = templates.Catalog{
	"rc.short":          {"調整ループ", "Reconcile loop"},
	"rc.summary":        {"desired と observed を毎回見比べて差を埋める。Pod を落とし、数を変え、コントローラーを止める。", "Compare desired with observed every time and close the gap: kill pods, change the count, stop the controller."},
	"err.pod":           {"%s という Pod はありません(すでに消えたか、落ちています)。", "There is no pod %s to kill (it is gone or already Failed)."},
	"rc.title":          {"調整ループ(reconciliation)", "The reconcile loop (reconciliation)"},
	"rc.intro":          {"人は「desired = 3」という状態だけを宣言する。調整ループは desired と現状を毎回見比べ、足りなければ作り、多ければ消し、同じなら何もしない(冪等)。", "You declare only a state: \"desired = 3\". The reconcile loop compares desired with what exists every time: too few, it creates; too many, it deletes; equal, it does nothing (idempotent)."},
	"rc.desired":        {"desired state(宣言)", "Desired state (declared)"},
	"rc.replicas":       {"レプリカ", "replicas"},
	"rc.replicas.label": {"レプリカ数", "Replicas"},
	"rc.inc":            {"レプリカを増やす", "More replicas"},
	"rc.dec":            {"レプリカを減らす", "Fewer replicas"},
	"rc.observed":       {"observed state(現状)", "Observed state (actual)"},
	"rc.observed.count": {"%d Pod(Running %d・Pending %d・Failed %d)", "%d pods (Running %d, Pending %d, Failed %d)"},
	"rc.nopods":         {"(Pod なし)", "(no pods)"},
	"rc.kill":           {"落とす", "Kill"},
	"rc.kill.label":     {"%s を落とす", "Kill %s"},
	"rc.diff.converged": {"一致", "In sync"},
	"rc.diff.need":      {"差あり: 調整が必要", "Out of sync: a reconcile is needed"},
	"rc.diff.starting":  {"差あり: Pod の起動を待っています", "Out of sync: waiting for pods to start"},
	"rc.diff.detail":    {"desired %d / 生きている Pod %d / Running %d", "desired %d / alive pods %d / Running %d"},
	"rc.diff.off":       {"コントローラーは止まっています。差は誰にも埋められません。「1回調整」を押すと、1回で全部を数え直して埋めます。", "The controller is stopped: nobody closes the gap. Press \"Reconcile once\" and one reconcile recounts everything and repairs it all."},
	"rc.actions":        {"直前の調整の操作", "The last reconcile's actions"},
	"rc.actions.none":   {"(まだ調整していない)", "(no reconcile yet)"},
	"rc.actions.noop":   {"何もしない(差がない・冪等)", "Nothing to do (no difference: idempotent)"},
	"rc.explain":        {"%d あるべきところ %d", "%d desired, %d alive"},
	"rc.explain.failed": {"(Failed %d を掃除)", " (clearing %d Failed)"},
	"rc.explain.create": {"%d つ作る", "create %d"},
	"rc.explain.delete": {"%d つ消す", "delete %d"},
	"rc.explain.noop":   {"何もしない", "do nothing"},
	"rc.act.create":     {"%s を作成", "create %s"},
	"rc.act.delete":     {"%s を削除", "delete %s"},
	"rc.log":            {"コントローラーのログ", "Controller log"},
	"rc.chart":          {"収束のようす(直近1分)", "Convergence (last minute)"},
	"rc.chart.desc":     {"desired と Running・Pending・Failed の数の推移", "desired versus Running, Pending and Failed over time"},
	"rc.live":           {"t=%s、%s: %s → %s。", "t=%s, %s: %s → %s."},
	"phase.Pending":     {"Pending(起動待ち)", "Pending"},
	"phase.Running":     {"Running(稼働中)", "Running"},
	"phase.Failed":      {"Failed(落ちた)", "Failed"},
	"legend.desired":    {"desired", "desired"},
	"log.desired":       {"spec.replicas を %d → %d に変更", "spec.replicas changed %d → %d"},
	"log.kill":          {"%s が落ちた(Failed)", "%s failed"},
	"log.create":        {"controller: %s を作成(desired %d, 生きている %d)", "controller: created %s (desired %d, alive %d)"},
	"log.delete":        {"controller: %s を削除", "controller: deleted %s"},
	"log.running":       {"kubelet: %s が Running", "kubelet: %s is Running"},
	"log.converged":     {"一致: %d 個すべて Running", "in sync: all %d Running"},
	"log.noop":          {"controller: 差なし(desired %d = 生きている %d)、何もしない", "controller: no difference (desired %d = alive %d), nothing to do"},

	// the timeline's marks of what the demo did on its own (marks.go); a
	// convergence is said as the log says it
	"rc.mark.replaced": {"自己修復: Failed の Pod を作り直した(%d 個)", "self-healing: Failed pods replaced (%d)"},

	// the notes, where the demo simplifies real Kubernetes (README.md lists them)
	"rc.note.failed-pods": {"ここではコントローラーが Failed の Pod を消す(章のコード)。実物の ReplicaSet は数えなくなるだけで、消すのはずっと後の Pod のガベージコレクター。", "Here the controller deletes Failed pods (the chapter's code). A real ReplicaSet only stops counting them; the pod garbage collector removes them much later."},
	"rc.note.scale-down":  {"減らすときは名前順で後ろから消す(章のコード)。実物の ReplicaSet は未スケジュール・Pending・未 Ready の Pod から先に消す。", "Scaling down deletes the last pods in name order (the chapter's code); a real ReplicaSet deletes unscheduled, Pending and not-ready pods first."},
	"rc.note.resync":      {"オンのコントローラーは、差があるときだけ 1 秒ごとに調整する。実物は informer が変更を知らせたとき(と定期の再同期)に調整する。", "While on, the controller reconciles every second, and only when something differs; a real one reconciles when its informer reports a change (and at each periodic resync)."},
}

// T returns this demo's text for key in l.
func T(l templates.Lang, key string) string { return words.T(l, key) }

// F formats this demo's text for key in l with args.
func F(l templates.Lang, key string, args ...any) string { return words.F(l, key, args...) }
