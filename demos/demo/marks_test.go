package demo

import "testing"

// TestAdded: how many marks a page that appends and keeps its newest
// `keep` must be sent to show cur, or false when appending cannot make it.
func TestAdded(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sent, cur []uint64
		keep      int
		want      int
		ok        bool
	}{
		{"nothing sent", nil, []uint64{1}, 5, 0, false},
		{"the same", []uint64{1, 2}, []uint64{1, 2}, 5, 0, true},
		{"one more", []uint64{1, 2}, []uint64{1, 2, 3}, 5, 1, true},
		{"two more", []uint64{1, 2}, []uint64{1, 2, 3, 4}, 5, 2, true},
		{"one more, the oldest dropped", []uint64{1, 2, 3}, []uint64{2, 3, 4}, 3, 1, true},
		{"more than it keeps", []uint64{1, 2, 3}, []uint64{4, 5, 6}, 3, 0, false},
		{"one gone from the middle", []uint64{1, 2, 3}, []uint64{1, 3, 4}, 5, 0, false},
		{"cut back (continued from the past)", []uint64{1, 2, 3}, []uint64{1, 2}, 5, 0, false},
		{"a twin of the last", []uint64{1, 2}, []uint64{1, 2, 2}, 5, 1, true},
		{"dropped from the front beyond keep", []uint64{1, 2, 3}, []uint64{3, 4}, 3, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := added(tc.sent, tc.cur, tc.keep)
			if got != tc.want || ok != tc.ok {
				t.Errorf("added(%v, %v, %d) = %d, %v; want %d, %v", tc.sent, tc.cur, tc.keep, got, ok, tc.want, tc.ok)
			}
		})
	}
}
