package templates

import (
	"fmt"
	"strconv"
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

// Msg is one sentence of a catalog: Japanese first, then English.
type Msg [2]string

// Catalog maps keys to sentences. The shared catalog holds the words every
// page and demo shares; each demo keeps its own words in a Catalog of its
// own, which falls back to the shared one.
type Catalog map[string]Msg

// T returns the text for key in l: from c, else from the shared catalog. A
// key missing from both is a bug that each package's catalog test catches;
// the key itself is shown rather than an empty string.
func (c Catalog) T(l Lang, key string) string {
	m, ok := c[key]
	if !ok {
		if m, ok = shared[key]; !ok {
			return key
		}
	}
	if l == En {
		return m[1]
	}
	return m[0]
}

// F formats the text for key in l with args, as fmt.Sprintf.
func (c Catalog) F(l Lang, key string, args ...any) string { return sprintf(c.T(l, key), args) }

// sprintf is fmt.Sprintf for what the catalogs say most (%s with a string,
// %d with an int, %%), without reflection: a frame formats hundreds of
// sentences. Anything else (a width or precision, another verb, another
// type, too few or too many args) is left to fmt.Sprintf, so the result is
// always fmt's.
func sprintf(format string, args []any) string {
	var stack [256]byte // most sentences fit: the one allocation is the string
	b := stack[:0]
	next := 0
	for i := 0; i < len(format); {
		j := strings.IndexByte(format[i:], '%')
		if j < 0 {
			b = append(b, format[i:]...)
			break
		}
		b = append(b, format[i:i+j]...)
		i += j + 1
		if i >= len(format) {
			return fmt.Sprintf(format, args...)
		}
		verb := format[i]
		i++
		if verb == '%' {
			b = append(b, '%')
			continue
		}
		if next >= len(args) {
			return fmt.Sprintf(format, args...)
		}
		switch v := args[next].(type) {
		case string:
			if verb != 's' {
				return fmt.Sprintf(format, args...)
			}
			b = append(b, v...)
		case int:
			if verb != 'd' {
				return fmt.Sprintf(format, args...)
			}
			b = strconv.AppendInt(b, int64(v), 10)
		default:
			return fmt.Sprintf(format, args...)
		}
		next++
	}
	if next != len(args) {
		return fmt.Sprintf(format, args...)
	}
	return string(b)
}

// Has reports whether key is in c or in the shared catalog.
func (c Catalog) Has(key string) bool {
	_, ok := c[key]
	if !ok {
		_, ok = shared[key]
	}
	return ok
}

// T returns the shared catalog's text for key in l.
func T(l Lang, key string) string { return Catalog(nil).T(l, key) }

// F formats the shared catalog's text for key in l with args.
func F(l Lang, key string, args ...any) string { return sprintf(T(l, key), args) }

// List joins items as the language lists them: 「a、b」 or "a, b".
func List(l Lang, items []string) string {
	if l == En {
		return strings.Join(items, ", ")
	}
	return strings.Join(items, "、")
}

// shared holds the words of the site and of the pieces every demo shares.
// Japanese wording follows the chapters (desired state, observed state, 調整,
// 差あり, 一致, …).
var shared = Catalog{
	// rooms: a class follows the teacher's demo
	"room.open":          {"クラスで共有", "Share with the class"},
	"room.title":         {"クラスで共有中", "Shared with the class"},
	"room.code":          {"ルームコード", "Room code"},
	"room.followers":     {"%d 人が見ています", "%d following"},
	"room.hint":          {"生徒はこの QR コードか URL を開くと、このデモを自分の画面で見られます(操作はできません)。", "Students open this QR code or URL to follow this demo on their own screens (they cannot act on it)."},
	"room.close":         {"共有を終える", "Stop sharing"},
	"room.fold":          {"QR を隠す / 出す", "Hide / show the QR code"},
	"room.qr":            {"参加用 QR コード: %s", "QR code to join: %s"},
	"room.banner":        {"ルーム %s", "Room %s"},
	"room.banner.what":   {"先生の「%s」をそのまま表示しています。見るだけで、操作はできません。", "You are following the teacher's \"%s\" as it happens. You can watch, not act."},
	"room.ended":         {"このルームは終了しました。最後の状態から「自分で試す」ことができます。", "This room has ended. You can still try it yourself from its last state."},
	"room.fork":          {"自分で試す", "Try it yourself"},
	"room.page":          {"ルーム %s — %s", "Room %s — %s"},
	"room.notfound":      {"ルームが見つかりません", "Room not found"},
	"room.notfound.body": {"コード %s のルームはありません(終了したか、コードが違います)。", "There is no room %s (it has ended, or the code is wrong)."},
	"room.busy":          {"このルームは満員です", "This room is full"},
	"room.busy.body":     {"参加している人数が上限に達しました。", "The room has as many followers as it can take."},
	"room.limited":       {"しばらく待ってから試してください", "Please wait before trying again"},
	"room.limited.body":  {"違うコードが続けて入力されました。少し待ってからもう一度試してください。", "Too many wrong codes in a row. Please wait a moment and try again."},
	"err.follower":       {"このページは先生のデモを見るだけです。自分で操作するには「自分で試す」を押してください。", "This page only follows the teacher's demo. Press \"Try it yourself\" to act on your own copy."},
	"err.room":           {"ルームを開けません(同時に開けるルームの上限です)。", "The room could not be opened (too many rooms at once)."},
	"err.room.secret":    {"このルームを取り戻せません(共有を始めたページではありません)。", "This room cannot be taken back: this is not the page that opened it."},
	"err.room.ended":     {"このルームはすでに終了しています。", "This room has already ended."},
	"err.room.claim":     {"このルームを取り戻せません。", "The room could not be taken back."},

	// page
	"nav.index":         {"目次", "Contents"},
	"index.title":       {"目次: 章ごとのデモ", "Contents: a demo for each chapter"},
	"index.chapter":     {"第 %s 章", "Chapter %s"},
	"index.open":        {"%s を開く", "Open %s"},
	"index.live":        {"このページで動いています", "Live on this page"},
	"index.embed":       {"埋め込み用", "For embedding"},
	"site.title":        {"Kubernetes のコントローラー — 動かして学ぶ", "Kubernetes controllers — live demos"},
	"site.short":        {"Kubernetes 調整ループ デモ", "Kubernetes reconcile loop demo"},
	"site.lead":         {"章ごとに 1 つのデモ。desired state と observed state を見比べて差を埋める調整ループから、edge と level、informer とワークキュー、Operator、コントロールプレーン全体まで、動かして確かめる。", "One demo for each chapter: from the reconcile loop that compares desired with observed state and closes the gap, to edge and level triggers, the informer and the workqueue, the Operator, and the whole control plane. Run each one and see."},
	"nav.lang":          {"English", "Japanese"},
	"nav.lang.label":    {"言語を切り替え", "Switch language"},
	"nav.present":       {"投影モード", "Projector mode"},
	"nav.present.label": {"投影モード(大きな文字・高コントラスト)", "Projector mode (large type, high contrast)"},
	"nav.help":          {"ショートカット", "Shortcuts"},
	"nav.skip":          {"デモへ移動", "Skip to the demo"},
	"conn.connecting":   {"接続中…", "Connecting…"},
	"conn.open":         {"接続済み", "Connected"},
	"conn.closed":       {"切断(再接続を待っています)", "Disconnected (waiting to reconnect)"},
	"conn.full":         {"満員(空きが出しだい再接続します)", "Full right now (reconnects when there is room)"},
	"conn.label":        {"サーバーとの接続", "Connection to the server"},
	"footer.note":       {"状態はサーバー上のあなた専用のシミュレーションにあり、WebSocket で届きます。時間は仮想時間です。", "The state lives in a simulation of your own on the server and arrives over WebSocket. Times are virtual."},
	"busy.title":        {"ただいま混み合っています", "The demo is busy right now"},
	"busy.body":         {"同時に開かれているデモが上限に達しました。少し待ってから再読み込みしてください。", "Too many demos are open at once. Please wait a moment and reload."},
	"notfound.title":    {"ページが見つかりません", "Page not found"},
	"help.title":        {"キーボードショートカット", "Keyboard shortcuts"},
	"help.close":        {"閉じる", "Close"},
	"help.plusminus":    {"レプリカ数(Operator ではメンバー数)を増やす / 減らす", "More / fewer replicas (members in the Operator demo)"},
	"help.k":            {"Pod(メンバー)を1つ落とす", "Kill a pod (member)"},
	"help.c":            {"コントローラー オン / オフ", "Controller on / off"},
	"help.s":            {"1回調整", "Reconcile once"},
	"help.space":        {"一時停止 / 再開", "Pause / resume"},
	"help.r":            {"リセット", "Reset"},
	"help.q":            {"このヘルプ", "This help"},
	"help.scope":        {"ショートカットは、最後に触ったデモ(最初は上のデモ)に効きます。入力欄で文字を打っている間は無効です。", "Shortcuts act on the demo you last touched (the first one to begin with). They are off while you type in a field."},
	"key.space":         {"スペース", "Space"},
	"ctl.controller":    {"コントローラー", "Controller"},
	"ctl.on":            {"オン(監視中)", "On (watching)"},
	"ctl.off":           {"オフ(停止中)", "Off (stopped)"},
	"ctl.step":          {"1回調整", "Reconcile once"},
	"ctl.pause":         {"一時停止", "Pause"},
	"ctl.resume":        {"再開", "Resume"},
	"ctl.speed":         {"速さ", "Speed"},
	"ctl.reset":         {"リセット", "Reset"},
	"ctl.time":          {"仮想時間", "Virtual time"},
	"ctl.paused":        {"一時停止中", "Paused"},
	"tl.title":          {"タイムライン", "Timeline"},
	"moment.bad":        {"このリンクは開けません", "This link cannot be opened"},
	"moment.malformed":  {"リンクが途中で切れているか、書き換えられています。共有した人にもう一度リンクをもらってください。", "The link is cut short or was altered. Ask for the link again."},
	"moment.version":    {"このリンクは別の版のデモで作られたため、同じ場面を正しく再現できません。デモを最初から開いてください。", "This link was made by another version of the demo, which this one cannot replay faithfully. Open the demo from the start instead."},
	"moment.replay":     {"このリンクの操作はこのデモでは再生できません(同じ場面を再現できません)。デモを最初から開いてください。", "The actions in this link do not replay on this demo, so the moment cannot be shown. Open the demo from the start instead."},
	"tl.label":          {"タイムライン: 表示する時刻(仮想時間)", "Timeline: the moment shown (virtual time)"},
	"tl.live":           {"いまの状態を表示中。つまみを戻すと、その時刻の状態をそのまま見られます(← → で印から印へ)。", "Showing the present. Drag back to see the demo exactly as it was then (← → jump between marks)."},
	"tl.past":           {"過去(%s)を表示中", "Showing the past (%s)"},
	"tl.past.hint":      {"これは記録を再生した過去の状態です。操作はできません。「いまに戻る」か「ここから続ける」を選んでください。", "This is a past moment, replayed from the record: nothing here can be changed. Go back to now, or continue from here."},
	"tl.now":            {"いまに戻る", "Back to now"},
	"tl.continue":       {"ここから続ける", "Continue from here"},
	"tl.share":          {"この瞬間のリンク", "Link to this moment"},
	"err.past":          {"過去の状態を表示中のため操作できません。「いまに戻る」か「ここから続ける」を押してください。状態は変わっていません。", "The page shows the past, which cannot be changed. Press \"Back to now\" or \"Continue from here\". Nothing changed."},
	"err.moment":        {"タイムラインの範囲(%s〜%s)の時刻を選んでください。", "Pick a moment within the timeline (%s to %s)."},
	"err.replay":        {"その時刻を再生できませんでした。状態は変わっていません。", "That moment could not be replayed. Nothing changed."},
	"ctl.pace":          {"進み方", "Pace"},
	"err.title":         {"受け付けられない操作", "That action was refused"},
	"log.empty":         {"(まだ何も起きていません)", "(nothing has happened yet)"},
	"err.decode":        {"メッセージを読めませんでした(JSON ではありません)。状態は変わっていません。", "The message could not be read (not JSON). Nothing changed."},
	"err.action":        {"知らない操作です: %s。状態は変わっていません。", "Unknown action: %s. Nothing changed."},
	"err.field":         {"「%s」の値が正しくありません。状態は変わっていません。", "The value of \"%s\" is not valid. Nothing changed."},
	"err.range":         {"%s は %d〜%d の範囲で指定してください。状態は変わっていません。", "%s must be between %d and %d. Nothing changed."},
	"err.rate":          {"操作が速すぎます。少しゆっくり操作してください。", "Too many actions at once. Please slow down."},
	"err.snapshot":      {"保存された状態を復元できませんでした。新しいデモを始めます。", "The saved demo could not be restored. A new demo starts."},
	"eta.startsin":      {"起動まで %.1f 秒", "starts in %.1fs"},
	"trigger.tick":      {"コントローラー", "controller"},
	"trigger.step":      {"1回調整", "single step"},
	"log.watch-start":   {"controller: 監視を開始しました", "controller: started watching"},
	"log.watch-stop":    {"controller: 停止しました(誰も差を埋めません)", "controller: stopped (nobody closes the gap)"},
	"log.reset":         {"リセットしました", "reset"},
	"log.restored":      {"保存された状態から復元しました(サーバーが入れ替わっても続きから)", "restored from the saved state (a new server carries on)"},
}

// Shared returns a copy of the shared catalog, for tests.
func Shared() Catalog {
	out := make(Catalog, len(shared))
	for k, m := range shared {
		out[k] = m
	}
	return out
}
