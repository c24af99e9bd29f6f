package operator

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Member is one member of the cluster the operator builds. It starts not
// ready and becomes ready when the world starts it (StartPending or Start).
type Member struct {
	Name  string
	Ready bool
}

// World is the reality the operator reconciles against: which backups exist
// and which members are running. The chapter leaves World open; this one
// names members <Spec.Name>-<n> from a sequence that never reuses a number,
// as the reconcile chapter names pods pod-N.
type World struct {
	backups map[string]bool
	members map[string]*Member
	seq     int
}

// NewWorld returns a world with the named backups present and no members.
func NewWorld(backups ...string) *World {
	w := &World{backups: map[string]bool{}, members: map[string]*Member{}}
	for _, b := range backups {
		w.backups[b] = true
	}
	return w
}

// SetBackup makes the named backup present or missing.
func (w *World) SetBackup(name string, present bool) {
	if present {
		w.backups[name] = true
	} else {
		delete(w.backups, name)
	}
}

// HasBackup reports whether the named backup is present.
func (w *World) HasBackup(name string) bool { return w.backups[name] }

// Kill removes the named member: it is gone, ready or not. Unknown names are
// ignored.
func (w *World) Kill(name string) { delete(w.members, name) }

// Members returns every member, ready or not, sorted by name.
func (w *World) Members() []Member {
	out := make([]Member, 0, len(w.members))
	for _, m := range w.members {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// StartPending makes every member that is not ready ready.
func (w *World) StartPending() {
	for _, m := range w.members {
		m.Ready = true
	}
}

// Start makes the named member ready and reports whether it was not before.
func (w *World) Start(name string) bool {
	m, ok := w.members[name]
	if !ok || m.Ready {
		return false
	}
	m.Ready = true
	return true
}

// Seq returns the number of the last member created.
func (w *World) Seq() int { return w.seq }

// create adds a member that is not ready yet, named prefix-<n>.
func (w *World) create(prefix string) Member {
	w.seq++
	m := &Member{Name: prefix + "-" + strconv.Itoa(w.seq)}
	w.members[m.Name] = m
	return *m
}

// readyMembers returns the ready members sorted by name.
func (w *World) readyMembers() []Member {
	var out []Member
	for _, m := range w.Members() {
		if m.Ready {
			out = append(out, m)
		}
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }

func itoa(n int) string { return strconv.Itoa(n) }
