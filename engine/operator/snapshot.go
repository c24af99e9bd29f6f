package operator

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxMembers bounds Spec.Members and a restored world.
const MaxMembers = 7

// MaxSeq bounds the sequence number a restored world may carry, as
// reconcile.MaxSeq does.
const MaxSeq = 1 << 50

// RestoreWorld rebuilds a world from its members, the sequence number of the
// last member created, and its present backups. Every member name must be
// prefix-N with 1 <= N <= seq and unique. It returns an error and no world
// when any of that does not hold.
func RestoreWorld(prefix string, members []Member, seq int, backups []string) (*World, error) {
	if seq < 0 || seq > MaxSeq {
		return nil, fmt.Errorf("restore world: seq %d out of range", seq)
	}
	if len(members) > 4*MaxMembers {
		return nil, fmt.Errorf("restore world: %d members, at most %d", len(members), 4*MaxMembers)
	}
	w := NewWorld(backups...)
	w.seq = seq
	for _, m := range members {
		n, ok := strings.CutPrefix(m.Name, prefix+"-")
		if !ok {
			return nil, fmt.Errorf("restore world: bad member name %q", m.Name)
		}
		i, err := strconv.Atoi(n)
		if err != nil || i < 1 || i > seq || strconv.Itoa(i) != n {
			return nil, fmt.Errorf("restore world: bad member name %q", m.Name)
		}
		if _, dup := w.members[m.Name]; dup {
			return nil, fmt.Errorf("restore world: duplicate member %s", m.Name)
		}
		w.members[m.Name] = &Member{Name: m.Name, Ready: m.Ready}
	}
	return w, nil
}

// Backups returns the names of the present backups, sorted.
func (w *World) Backups() []string {
	out := make([]string, 0, len(w.backups))
	for b := range w.backups {
		out = append(out, b)
	}
	sortStrings(out)
	return out
}
