package templates

import (
	"fmt"
	"strings"
)

// Lang is a language the page speaks. Japanese is the default: the chapters
// are Japanese.
type Lang string

// The languages of the catalog.
const (
	Ja Lang = "ja"
	En Lang = "en"
)

// ParseLang returns the language named by s, and Japanese for anything else.
func ParseLang(s string) Lang {
	if s == string(En) {
		return En
	}
	return Ja
}

// T returns the catalog's text for key in l. A key missing from the catalog
// is a bug; TestCatalogComplete keeps every key in both languages, and the
// key itself is shown rather than an empty string.
func T(l Lang, key string) string {
	m, ok := catalog[key]
	if !ok {
		return key
	}
	if l == En {
		return m.en
	}
	return m.ja
}

// F formats the catalog's text for key in l with args, as fmt.Sprintf.
func F(l Lang, key string, args ...any) string { return fmt.Sprintf(T(l, key), args...) }

// Keys returns every key of the catalog (for tests).
func Keys() []string {
	out := make([]string, 0, len(catalog))
	for k := range catalog {
		out = append(out, k)
	}
	return out
}

// List joins items as the language lists them: 「a、b」 or "a, b".
func List(l Lang, items []string) string {
	if l == En {
		return strings.Join(items, ", ")
	}
	return strings.Join(items, "、")
}

type msg struct{ ja, en string }

// catalog holds every user-facing string. Japanese wording follows the
// chapters (desired state, observed state, 調整, 差あり, 一致, …).
var catalog = map[string]msg{
	// page
	"site.title":        {"調整ループと Operator パターン — 動かして学ぶ", "The reconcile loop and the Operator pattern — a live demo"},
	"site.short":        {"Kubernetes 調整ループ デモ", "Kubernetes reconcile loop demo"},
	"site.lead":         {"宣言した状態(desired state)と今ある状態(observed state)を見比べ、差を埋める。Pod を落とし、数を変え、コントローラを止めて、調整ループを確かめる。", "Compare what you declared (desired state) with what exists (observed state), and close the gap. Kill pods, change the count, stop the controller, and watch the reconcile loop."},
	"nav.both":          {"両方", "Both"},
	"nav.reconcile":     {"調整ループ", "Reconcile loop"},
	"nav.operator":      {"Operator", "Operator"},
	"nav.lang":          {"English", "Japanese"},
	"nav.lang.label":    {"言語を切り替え", "Switch language"},
	"nav.present":       {"投影モード", "Projector mode"},
	"nav.present.label": {"投影モード(大きな文字・高コントラスト)", "Projector mode (large type, high contrast)"},
	"nav.help":          {"ショートカット", "Shortcuts"},
	"nav.skip":          {"デモへ移動", "Skip to the demo"},
	"conn.connecting":   {"接続中…", "Connecting…"},
	"conn.open":         {"接続済み", "Connected"},
	"conn.closed":       {"切断(再接続を待っています)", "Disconnected (waiting to reconnect)"},
	"conn.label":        {"サーバとの接続", "Connection to the server"},
	"footer.note":       {"状態はサーバ上のあなた専用のシミュレーションにあり、WebSocket で届きます。時間は仮想時間です。", "The state lives in a simulation of your own on the server and arrives over WebSocket. Times are virtual."},
	"busy.title":        {"ただいま混み合っています", "The demo is busy right now"},
	"busy.body":         {"同時に開かれているデモが上限に達しました。少し待ってから再読み込みしてください。", "Too many demos are open at once. Please wait a moment and reload."},
	"notfound.title":    {"ページが見つかりません", "Page not found"},
	"help.title":        {"キーボードショートカット", "Keyboard shortcuts"},
	"help.close":        {"閉じる", "Close"},
	"help.plusminus":    {"レプリカ数(Operator ではメンバー数)を増やす / 減らす", "More / fewer replicas (members in the Operator demo)"},
	"help.k":            {"Pod(メンバー)を1つ落とす", "Kill a pod (member)"},
	"help.c":            {"コントローラ オン / オフ", "Controller on / off"},
	"help.s":            {"1回調整", "Reconcile once"},
	"help.space":        {"一時停止 / 再開", "Pause / resume"},
	"help.r":            {"リセット", "Reset"},
	"help.q":            {"このヘルプ", "This help"},
	"help.scope":        {"ショートカットは、最後に触ったデモ(最初は上のデモ)に効きます。入力欄で文字を打っている間は無効です。", "Shortcuts act on the demo you last touched (the first one to begin with). They are off while you type in a field."},
	"key.space":         {"スペース", "Space"},

	// shared controls
	"ctl.controller": {"コントローラ", "Controller"},
	"ctl.on":         {"オン(監視中)", "On (watching)"},
	"ctl.off":        {"オフ(停止中)", "Off (stopped)"},
	"ctl.step":       {"1回調整", "Reconcile once"},
	"ctl.step.op":    {"1回調整する", "Reconcile once"},
	"ctl.pause":      {"一時停止", "Pause"},
	"ctl.resume":     {"再開", "Resume"},
	"ctl.speed":      {"速さ", "Speed"},
	"ctl.reset":      {"リセット", "Reset"},
	"ctl.time":       {"仮想時間", "Virtual time"},
	"ctl.paused":     {"一時停止中", "Paused"},
	"ctl.pace":       {"進み方", "Pace"},
	"err.title":      {"受け付けられない操作", "That action was refused"},
	"err.decode":     {"メッセージを読めませんでした(JSON ではありません)。状態は変わっていません。", "The message could not be read (not JSON). Nothing changed."},
	"err.action":     {"知らない操作です: %s。状態は変わっていません。", "Unknown action: %s. Nothing changed."},
	"err.field":      {"「%s」の値が正しくありません。状態は変わっていません。", "The value of \"%s\" is not valid. Nothing changed."},
	"err.range":      {"%s は %d〜%d の範囲で指定してください。状態は変わっていません。", "%s must be between %d and %d. Nothing changed."},
	"err.pod":        {"%s という Pod はありません(すでに消えたか、落ちています)。", "There is no pod %s to kill (it is gone or already Failed)."},
	"err.member":     {"%s というメンバーはありません(すでに消えています)。", "There is no member %s (it is already gone)."},
	"err.rate":       {"操作が速すぎます。少しゆっくり操作してください。", "Too many actions at once. Please slow down."},
	"err.snapshot":   {"保存された状態を復元できませんでした。新しいデモを始めます。", "The saved demo could not be restored. A new demo starts."},

	// reconcile demo
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
	"rc.startsin":       {"起動まで %.1f 秒", "starts in %.1fs"},
	"rc.diff.converged": {"一致", "In sync"},
	"rc.diff.need":      {"差あり: 調整が必要", "Out of sync: a reconcile is needed"},
	"rc.diff.starting":  {"差あり: Pod の起動を待っています", "Out of sync: waiting for pods to start"},
	"rc.diff.detail":    {"desired %d / 生きている Pod %d / Running %d", "desired %d / alive pods %d / Running %d"},
	"rc.diff.off":       {"コントローラは止まっています。差は誰にも埋められません。「1回調整」を押すと、1回で全部を数え直して埋めます。", "The controller is stopped: nobody closes the gap. Press \"Reconcile once\" and one reconcile recounts everything and repairs it all."},
	"rc.actions":        {"直前の調整の操作", "The last reconcile's actions"},
	"rc.actions.none":   {"(まだ調整していない)", "(no reconcile yet)"},
	"rc.actions.noop":   {"何もしない(差がない・冪等)", "Nothing to do (no difference: idempotent)"},
	"rc.explain":        {"%d あるべきところ %d", "%d desired, %d alive"},
	"rc.explain.failed": {"(Failed %d を掃除)", " (clearing %d Failed)"},
	"rc.explain.create": {"%d つ作る", "create %d"},
	"rc.explain.delete": {"%d つ消す", "delete %d"},
	"rc.explain.noop":   {"何もしない", "do nothing"},
	"rc.trigger.tick":   {"コントローラ", "controller"},
	"rc.trigger.step":   {"1回調整", "single step"},
	"rc.act.create":     {"%s を作成", "create %s"},
	"rc.act.delete":     {"%s を削除", "delete %s"},
	"rc.log":            {"コントローラのログ", "Controller log"},
	"rc.chart":          {"収束のようす(直近1分)", "Convergence (last minute)"},
	"rc.chart.desc":     {"desired と Running・Pending・Failed の数の推移", "desired versus Running, Pending and Failed over time"},
	"rc.live":           {"t=%s、%s: %s → %s。", "t=%s, %s: %s → %s."},
	"phase.Pending":     {"Pending(起動待ち)", "Pending"},
	"phase.Running":     {"Running(稼働中)", "Running"},
	"phase.Failed":      {"Failed(落ちた)", "Failed"},
	"legend.desired":    {"desired", "desired"},

	// log lines
	"log.watch-start":    {"controller: 監視を開始しました", "controller: started watching"},
	"log.watch-stop":     {"controller: 停止しました(誰も差を埋めません)", "controller: stopped (nobody closes the gap)"},
	"log.reset":          {"リセットしました", "reset"},
	"log.restored":       {"保存された状態から復元しました(サーバが入れ替わっても続きから)", "restored from the saved state (a new server carries on)"},
	"log.desired":        {"spec.replicas を %d → %d に変更", "spec.replicas changed %d → %d"},
	"log.kill":           {"%s が落ちた(Failed)", "%s failed"},
	"log.create":         {"controller: %s を作成(desired %d, 生きている %d)", "controller: created %s (desired %d, alive %d)"},
	"log.delete":         {"controller: %s を削除", "controller: deleted %s"},
	"log.running":        {"kubelet: %s が Running", "kubelet: %s is Running"},
	"log.converged":      {"一致: %d 個すべて Running", "in sync: all %d Running"},
	"log.noop":           {"controller: 差なし(desired %d = 生きている %d)、何もしない", "controller: no difference (desired %d = alive %d), nothing to do"},
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

	// operator demo
	"op.title":           {"Operator パターン", "The Operator pattern"},
	"op.intro":           {"Spec には手順でなく状態しか書いていない。「1回調整する」を押すたびに、コントローラは Spec と現実を見比べて、まだ埋まっていない差を1つだけ埋める。", "The Spec holds a state, not a procedure. Each press of \"Reconcile once\" compares the Spec with reality and fills exactly one remaining difference."},
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
	"op.log":             {"コントローラのログ", "Controller log"},
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
	"cond.since":         {"%s から", "since %s"},
}
