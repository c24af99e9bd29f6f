package templates

// PodRow is one pod of a demo's observed pods, as WritePod writes it.
type PodRow struct {
	Name      string
	Phase     string // as the engine spells it: "Running"
	PhaseText string // as the page says it
	ETA       *ETA   // while Pending: when it starts
	IDPrefix  string // its id is <IDPrefix>-pod-<Name>, its kill button's <IDPrefix>-kill-<Name>
	KillLabel string // the button's accessible name
	Kill      string // the button's text
}

// WritePod writes a pod's row by hand, as the demos' templates wrote it:
//
//	<li id="…" class="pod pod-running" data-testid="pod" data-name="…" data-phase="…"><span class="pod-icon" aria-hidden="true">●</span> <span class="pod-name">…</span> <span class="pod-phase">…</span> [countdown]<button type="button" id="…" class="btn btn-kill" data-testid="kill" data-pod="…" aria-label="…" [disabled] ws-send hx-vals="…">…</button></li>
//
// A list of pods is written whenever one of them changes (every action and
// every pod that starts): templ's attribute expressions, its spread class
// and the countdown component made a fifth of a frame's garbage.
func WritePod(h *HTML, p *PodRow) {
	h.Raw(`<li id="`)
	h.Text(p.IDPrefix)
	h.Raw(`-pod-`)
	h.Text(p.Name)
	h.Raw(`" class="pod pod-`)
	h.Text(Lower(p.Phase))
	h.Raw(`" data-testid="pod" data-name="`)
	h.Text(p.Name)
	h.Raw(`" data-phase="`)
	h.Text(p.Phase)
	h.Raw(`"><span class="pod-icon" aria-hidden="true">`)
	h.Text(PhaseIcon(p.Phase))
	h.Raw(`</span> <span class="pod-name">`)
	h.Text(p.Name)
	h.Raw(`</span> <span class="pod-phase">`)
	h.Text(p.PhaseText)
	h.Raw(`</span> `)
	if p.ETA != nil {
		h.Countdown("pod-eta", p.ETA)
	}
	h.Raw(`<button type="button" id="`)
	h.Text(p.IDPrefix)
	h.Raw(`-kill-`)
	h.Text(p.Name)
	h.Raw(`" class="btn btn-kill" data-testid="kill" data-pod="`)
	h.Text(p.Name)
	h.Raw(`" aria-label="`)
	h.Text(p.KillLabel)
	h.Raw(`"`)
	if p.Phase == "Failed" {
		h.Raw(` disabled`)
	}
	h.Raw(` ws-send hx-vals="`)
	h.Text(Vals("action", "kill", "pod", p.Name))
	h.Raw(`">`)
	h.Text(p.Kill)
	h.Raw(`</button></li>`)
}
