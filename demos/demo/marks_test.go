package demo

import "testing"

// TestAdded: what a page that shows sent must drop from its start and add
// at its end to show cur, or false when that cannot make it.
func TestAdded(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sent, cur  []uint64
		drop, adds int
		ok         bool
	}{
		{"nothing sent", nil, []uint64{1}, 0, 0, false},
		{"the same", []uint64{1, 2}, []uint64{1, 2}, 0, 0, true},
		{"one more", []uint64{1, 2}, []uint64{1, 2, 3}, 0, 1, true},
		{"two more", []uint64{1, 2}, []uint64{1, 2, 3, 4}, 0, 2, true},
		{"one more, the oldest gone", []uint64{1, 2, 3}, []uint64{2, 3, 4}, 1, 1, true},
		{"one more, the two oldest gone", []uint64{1, 2, 3}, []uint64{3, 4}, 2, 1, true},
		{"the oldest gone, nothing new", []uint64{1, 2, 3}, []uint64{2, 3}, 1, 0, true},
		{"all new", []uint64{1, 2, 3}, []uint64{4, 5, 6}, 0, 0, false},
		{"one gone from the middle", []uint64{1, 2, 3}, []uint64{1, 3, 4}, 0, 0, false},
		{"one before the last sent", []uint64{1, 3}, []uint64{1, 2, 3}, 0, 0, false},
		{"cut back (continued from the past)", []uint64{1, 2, 3}, []uint64{1, 2}, 0, 0, false},
		{"a twin of the last", []uint64{1, 2}, []uint64{1, 2, 2}, 0, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			drop, adds, ok := added(tc.sent, tc.cur)
			if drop != tc.drop || adds != tc.adds || ok != tc.ok {
				t.Errorf("added(%v, %v) = %d, %d, %v; want %d, %d, %v", tc.sent, tc.cur, drop, adds, ok, tc.drop, tc.adds, tc.ok)
			}
		})
	}
}

// TestPrepended: what a page that shows sent must drop from its end and
// add at its start to show cur (a list's other end: demo.List), or false
// when that cannot make it.
func TestPrepended(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sent, cur  []uint64
		drop, adds int
		ok         bool
	}{
		{"nothing sent", nil, []uint64{1}, 0, 0, false},
		{"the same", []uint64{1, 2}, []uint64{1, 2}, 0, 0, true},
		{"the last gone", []uint64{1, 2, 3}, []uint64{1, 2}, 1, 0, true},
		{"the two last gone", []uint64{1, 2, 3}, []uint64{1}, 2, 0, true},
		{"one before the first", []uint64{2, 3}, []uint64{1, 2, 3}, 0, 1, true},
		{"one before, the last gone", []uint64{2, 3, 4}, []uint64{1, 2, 3}, 1, 1, true},
		{"all gone", []uint64{1, 2}, nil, 0, 0, false},
		{"one gone from the middle", []uint64{1, 2, 3}, []uint64{1, 3}, 0, 0, false},
		{"one more at the end", []uint64{1, 2}, []uint64{1, 2, 3}, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			drop, adds, ok := prepended(tc.sent, tc.cur)
			if drop != tc.drop || adds != tc.adds || ok != tc.ok {
				t.Errorf("prepended(%v, %v) = %d, %d, %v; want %d, %d, %v", tc.sent, tc.cur, drop, adds, ok, tc.drop, tc.adds, tc.ok)
			}
		})
	}
}
