package triggers

import (
	"strconv"
	"strings"
)

// PodID is the N of a pod named pod-N (N >= 1); 0 is no pod. Events and
// actions carry it instead of the name so that they hold no pointer. It is
// as wide as the clusters' counters of created pods, ints (at most
// reconcile.MaxSeq in a snapshot, and growing from there): no pod's number
// overflows it.
type PodID uint64

// String returns the pod's name, pod-N, and "" for no pod.
func (p PodID) String() string {
	if p == 0 {
		return ""
	}
	if p < namedPods {
		return podText[podEnds[p-1]:podEnds[p]]
	}
	return "pod-" + strconv.FormatUint(uint64(p), 10)
}

// namedPods bounds the pods whose names String slices out of podText
// instead of allocating them: every frame spells the pods of the events and
// log entries it shows, and of the snapshot it writes. A session seldom
// numbers its pods that far.
const namedPods = 1 << 12

// podText is pod-1 … pod-(namedPods-1) back to back: pod-N is
// podText[podEnds[N-1]:podEnds[N]].
var podText, podEnds = func() (string, [namedPods]uint32) {
	var b strings.Builder
	var ends [namedPods]uint32
	for n := 1; n < namedPods; n++ {
		b.WriteString("pod-")
		b.WriteString(strconv.Itoa(n))
		ends[n] = uint32(b.Len())
	}
	return b.String(), ends
}()

// ParsePod returns the id of the pod named name: pod-N, N >= 1 written as
// strconv writes it. It is false for any other name.
func ParsePod(name string) (PodID, bool) {
	s, ok := strings.CutPrefix(name, "pod-")
	if !ok || s == "" || s[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return PodID(n), true
}

// podOf returns the id of a name one of the clusters gave a pod.
func podOf(name string) PodID {
	id, _ := ParsePod(name)
	return id
}
