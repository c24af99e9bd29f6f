// Package noscan tells whether a type holds a pointer: an array of values
// that hold none is never scanned by the garbage collector, which matters
// for what thousands of sessions keep between frames. Tests use it to hold
// such arrays to that.
package noscan

import "reflect"

// HasPointer reports whether a value of type t holds a pointer the
// collector follows (strings, slices, maps, interfaces, functions and
// channels do).
func HasPointer(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && HasPointer(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if HasPointer(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
