package operator

import "github.com/reconcile-demo/reconcile-demo/templates"

// words are this demo's sentences in both languages, in chapter 002's words
// (Spec, Status, あるべき姿, 今の姿, 差を1つ埋める, …); the shared ones
// (controls, connection, errors) are in package templates.
var words = templates.Catalog{
	"op.short":           {"Operator", "Operator"},
	"op.summary":         {"手順書を状態の宣言に書き換える。Spec と Status、復元 → メンバー → リーダー、Degraded を1手ずつ。", "A runbook rewritten as a declared state: Spec and Status, restore → members → leader, and Degraded, one move at a time."},
	"op.step":            {"1回調整する", "Reconcile once"},
	"err.member":         {"%s というメンバーはありません(すでに消えています)。", "There is no member %s (it is already gone)."},
	"log.spec-members":   {"spec.members を %d → %d に変更", "spec.members changed %d → %d"},
	"log.backup.on":      {"%s を「ある」にした", "%s is present"},
	"log.backup.off":     {"%s を「見つからない」にした", "%s is missing"},
	"log.kill-member":    {"%s が落ちた", "%s is gone"},
	"log.member-ready":   {"%s が起動した", "%s is ready"},
	"log.op-restore":     {"%s から復元した", "restored from %s"},
	"log.op-create":      {"%s を作成", "created %s"},
	"log.op-elect":       {"%s をリーダーに選出", "elected %s as the leader"},
	"log.op-leader-lost": {"リーダー %s が居なくなった", "the leader %s is gone"},
	"log.op-no-backup":   {"復元元 %s が見つからない", "backup %s not found"},
	"log.op-wait":        {"全員の起動を待つ(%d/%d)", "waiting for every member to start (%d/%d)"},
	"log.op-noop":        {"差が無い → 何もしない", "no difference → nothing to do"},
	"log.op-ready":       {"宣言どおりに揃った(Ready)", "as declared: Ready"},
	"op.title":           {"Operator パターン", "The Operator pattern"},
	"op.intro":           {"Spec には手順でなく状態しか書いていない。「1回調整する」を押すたびに、コントローラーは Spec と現実を見比べて、まだ埋まっていない差を1つだけ埋める。", "The Spec holds a state, not a procedure. Each press of \"Reconcile once\" compares the Spec with reality and fills exactly one remaining difference."},
	"op.spec":            {"Spec(あるべき姿)", "Spec (desired)"},
	"op.spec.members":    {"members", "members"},
	"op.spec.restore":    {"restoreFrom", "restoreFrom"},
	"op.inc":             {"メンバーを増やす", "More members"},
	"op.dec":             {"メンバーを減らす", "Fewer members"},
	"op.backup":          {"バックアップ", "Backup"},
	"op.backup.present":  {"ある", "present"},
	"op.backup.missing":  {"見つからない", "missing"},
	"op.backup.toggle":   {"バックアップを「見つからない」にする", "Make the backup missing"},
	"op.backup.restore":  {"バックアップを「ある」に戻す", "Make the backup present"},
	"op.status":          {"Status(今の姿)", "Status (observed)"},
	"op.status.phase":    {"phase", "phase"},
	"op.status.members":  {"members(起動済み / 宣言)", "members (ready / declared)"},
	"op.status.leader":   {"leader", "leader"},
	"op.status.restored": {"restored", "restored"},
	"op.none":            {"(未選出)", "(none)"},
	"op.yes":             {"済み", "yes"},
	"op.no":              {"まだ", "not yet"},
	"op.conditions":      {"conditions", "conditions"},
	"op.members":         {"メンバー", "Members"},
	"op.nomembers":       {"(メンバーなし)", "(no members)"},
	"op.member.ready":    {"起動済み", "ready"},
	"op.member.starting": {"起動中", "starting"},
	"op.member.leader":   {"リーダー", "leader"},
	"op.kill":            {"落とす", "Kill"},
	"op.kill.label":      {"%s を落とす", "Kill %s"},
	"op.next":            {"次の調整が埋める差", "The difference the next reconcile fills"},
	"op.next.restore":    {"復元済みでない → 復元する", "not restored → restore"},
	"op.next.create":     {"メンバーが足りない → 1つ作る", "too few members → create one"},
	"op.next.wait":       {"全員が立ち上がっていない → まだ進まない", "not every member is up → wait"},
	"op.next.elect":      {"リーダーが居ない → 選ぶ", "no leader → elect one"},
	"op.next.degraded":   {"復元元が見つからない → 止まって Degraded", "backup not found → stop at Degraded"},
	"op.next.noop":       {"差が無い → 何もしない", "no difference → do nothing"},
	"op.last":            {"直前の調整", "The last reconcile"},
	"op.last.none":       {"(まだ調整していない)", "(no reconcile yet)"},
	"op.log":             {"コントローラーのログ", "Controller log"},
	"op.chart":           {"phase の移り変わり(直近1分)", "Phase over time (last minute)"},
	"op.chart.desc":      {"Status.phase の推移", "Status.phase over time"},
	"op.live":            {"t=%s、%s: %s。phase は %s。", "t=%s, %s: %s. Phase is %s."},
	"op.act.restore":     {"%s から復元", "restore from %s"},
	"op.act.create":      {"%s を作成", "create %s"},
	"op.act.elect":       {"%s をリーダーに選出", "elect %s"},
	"op.act.noop":        {"何もしない", "nothing"},
	"opphase.Pending":    {"Pending(未着手)", "Pending"},
	"opphase.Creating":   {"Creating(作成中)", "Creating"},
	"opphase.Restoring":  {"Restoring(復元中)", "Restoring"},
	"opphase.Ready":      {"Ready(揃った)", "Ready"},
	"opphase.Degraded":   {"Degraded(止まっている)", "Degraded"},

	// the notes, where the demo simplifies real Kubernetes (README.md lists them)
	"op.note.crd":        {"Spec と Status はメモリ上の Go の型。実物は CRD で型を登録し、Spec は kubectl で、Status は status サブリソースに書く。", "Spec and Status are a Go type in memory; a real operator registers its type as a CRD, people write the Spec with kubectl, and the controller writes the status subresource."},
	"op.note.world":      {"メンバーとバックアップは作り物で、復元は一瞬、起動は 1.5 秒。", "The members and the backup are stand-ins: a restore is instant, and a member starts in 1.5 s."},
	"op.note.scale-down": {"章の Reconcile は作るだけで、members を減らしても余りは消えない。実物の Operator なら外す。", "The chapter's Reconcile only creates: lowering members removes none. A real operator would retire the extra ones."},
	"op.note.one-move":   {"1 回に 1 手は章の設計。実物の Reconcile は何手打ってもよく、次の呼び出しは現状から始まる。", "One move per reconcile is the chapter's design; a real Reconcile may make several, and the next call starts from what it observes."},
	"op.note.watch":      {"ここでは「1回調整する」か、オンのコントローラーが 1 秒ごとに呼ぶ。実物は informer の知らせで呼ばれ、エラーならバックオフして再試行する。", "Here Reconcile runs when you press \"Reconcile once\", or every second while the controller is on; a real one runs when its informer reports a change, and retries with backoff after an error."},
}

// T returns this demo's text for key in l.
func T(l templates.Lang, key string) string { return words.T(l, key) }

// F formats this demo's text for key in l with args.
func F(l templates.Lang, key string, args ...any) string { return words.F(l, key, args...) }
