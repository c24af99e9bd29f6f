package noscan

import (
	"reflect"
	"testing"
	"time"
)

func TestHasPointer(t *testing.T) {
	type flat struct {
		a int
		b [3]float64
		c time.Duration
		d struct{ e bool }
	}
	type deep struct {
		a int
		b [2]struct{ s string }
	}
	for _, tc := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[int](), false},
		{reflect.TypeFor[flat](), false},
		{reflect.TypeFor[[0]*int](), false},
		{reflect.TypeFor[string](), true},
		{reflect.TypeFor[[]byte](), true},
		{reflect.TypeFor[*int](), true},
		{reflect.TypeFor[map[int]int](), true},
		{reflect.TypeFor[any](), true},
		{reflect.TypeFor[func()](), true},
		{reflect.TypeFor[chan int](), true},
		{reflect.TypeFor[deep](), true},
		{reflect.TypeFor[[4]*int](), true},
	} {
		if got := HasPointer(tc.t); got != tc.want {
			t.Errorf("HasPointer(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
}
