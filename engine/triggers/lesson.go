package triggers

import "time"

// Row names a row of the chapter's table 対照と実例 (手続き的 /
// edge-triggered vs 宣言的 / level-triggered). The row 例 (素朴なスクリプト /
// Kubernetes コントローラ) is the demo itself and is never singled out.
type Row string

// The rows, and what each side of the demo shows of them.
const (
	RowNone Row = ""
	// RowWrites is 人が書くもの: 手順(作れ・消せ) / 状態(3個であれ). The
	// visitor changed desired: the edge controller hears a step to take
	// (create or delete the difference), the level controller a state to
	// reach.
	RowWrites Row = "writes"
	// RowTrigger is 反応の起点: イベント / 現状の数え直し. An event arrived
	// twice or out of order and the edge controller acted on it as it came,
	// while the level controller recounted (the chapter's design note:
	// 取りこぼしも重複も順序入れ替わりも吸収する).
	RowTrigger Row = "trigger"
	// RowMissed is 取りこぼし: 修復されない / 次の調整で追いつく. An event the
	// edge controller acts on (a pod died, desired changed) was lost on its
	// way (dropped, or emitted while the controllers were down): the edge
	// side will never repair it, the level side's next recount catches up.
	RowMissed Row = "missed"
	// RowRecovery is 障害回復: 専用の処理が要る / 同じループが処理. A pod was
	// killed (the edge controller needs its own "pod died" handler, the level
	// controller the same loop), or the controllers restarted (the edge
	// controller would need special code to relearn the world; the level
	// controller just recounts).
	RowRecovery Row = "recovery"
)

// Reason says what made a row matter.
type Reason string

// The reasons. The three losses (RowMissed) share their names with Loss.
const (
	ReasonDesired   Reason = "desired"   // RowWrites: the visitor changed desired
	ReasonKill      Reason = "kill"      // RowRecovery: the visitor killed a pod
	ReasonRestart   Reason = "restart"   // RowRecovery: the controllers restarted, or came back up
	ReasonBlip      Reason = "blip"      // RowMissed: dropped by the drop switch
	ReasonDown      Reason = "down"      // RowMissed: emitted while the controllers were down
	ReasonOverflow  Reason = "overflow"  // RowMissed: dropped because the stream was full
	ReasonDuplicate Reason = "duplicate" // RowTrigger: the edge controller heard the second copy
	ReasonSwap      Reason = "swap"      // RowTrigger: the edge controller heard a swapped event
)

// row returns the row a reason makes matter, and RowNone for no reason.
func (r Reason) row() Row {
	switch r {
	case ReasonDesired:
		return RowWrites
	case ReasonKill, ReasonRestart:
		return RowRecovery
	case ReasonBlip, ReasonDown, ReasonOverflow:
		return RowMissed
	case ReasonDuplicate, ReasonSwap:
		return RowTrigger
	}
	return RowNone
}

// Lesson is the row of the chapter's table that the latest happening made
// matter, for the page to highlight. The latest wins: a kill makes
// RowRecovery matter, and if its event is then dropped on the edge stream
// (at the same instant), RowMissed.
type Lesson struct {
	Row    Row
	Reason Reason
	At     time.Duration // when it began to matter
}

func (w *World) learn(r Reason) { w.lesson = Lesson{Row: r.row(), Reason: r, At: w.now} }

// Mattered returns the row that just mattered; RowNone in a new world.
func (w *World) Mattered() Lesson { return w.lesson }
