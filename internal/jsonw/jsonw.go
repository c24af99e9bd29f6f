// Package jsonw appends JSON by hand, byte for byte as encoding/json writes
// it, for the values written on every frame (snapshots) where reflection
// costs more than the value. Each hand-written encoder is tested against
// json.Marshal.
package jsonw

import (
	"encoding/json"
	"strconv"
)

// String appends s as json.Marshal writes it. Most strings a snapshot
// holds (names, phases, kinds) need no escaping and are written as they
// are; anything else is written by json.Marshal.
func String(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// Int appends n.
func Int(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// Bool appends v.
func Bool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// Field appends a field's name and colon, after a comma unless the object
// was just opened: b's last byte is '{'.
func Field(b []byte, name string) []byte {
	if len(b) > 0 && b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// IntField appends "name":n.
func IntField(b []byte, name string, n int64) []byte { return Int(Field(b, name), n) }

// StringField appends "name":"s".
func StringField(b []byte, name, s string) []byte { return String(Field(b, name), s) }

// BoolField appends "name":v.
func BoolField(b []byte, name string, v bool) []byte { return Bool(Field(b, name), v) }

// OmitInt appends "name":n unless n is 0 (omitempty).
func OmitInt(b []byte, name string, n int64) []byte {
	if n == 0 {
		return b
	}
	return IntField(b, name, n)
}

// OmitString appends "name":"s" unless s is empty (omitempty).
func OmitString(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	return StringField(b, name, s)
}

// OmitBool appends "name":true if v (omitempty).
func OmitBool(b []byte, name string, v bool) []byte {
	if !v {
		return b
	}
	return BoolField(b, name, v)
}

// Comma appends a comma before an array's element other than its first:
// b's last byte is not '['.
func Comma(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '[' {
		b = append(b, ',')
	}
	return b
}

// OmitArray appends "name":[…], each element written by elem, unless xs is
// empty (omitempty).
// Each element is passed by value, so that an array on the caller's stack
// stays there.
func OmitArray[T any](b []byte, name string, xs []T, elem func(b []byte, x T) []byte) []byte {
	if len(xs) == 0 {
		return b
	}
	b = append(Field(b, name), '[')
	for _, x := range xs {
		b = elem(Comma(b), x)
	}
	return append(b, ']')
}
