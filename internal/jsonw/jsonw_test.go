package jsonw_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/reconcile-demo/reconcile-demo/internal/jsonw"
)

// TestStringAsMarshal: a snapshot's strings are written as json.Marshal
// writes them, whether or not they need escaping.
func TestStringAsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []string{"", "pod-1", "dropped", `a"b`, `a\b`, "<x>", "a&b", "tab\there", "日本", "\u2028", "\x7f", "\xff"}
	for range 500 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := jsonw.String([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("String(%q) = %s, json.Marshal %s", s, got[1:], want)
		}
	}
}

// TestFieldsAsMarshal: fields written one after another, the omitted ones
// left out, make the object json.Marshal makes of a struct with those tags.
func TestFieldsAsMarshal(t *testing.T) {
	type v struct {
		A int64  `json:"a,omitempty"`
		B string `json:"b"`
		C bool   `json:"c,omitempty"`
		D string `json:"d,omitempty"`
		E int64  `json:"e"`
		F bool   `json:"f"`
	}
	for _, x := range []v{{}, {A: 1, B: "x", C: true, D: "<", E: -3, F: true}, {A: -9, D: "d"}} {
		b := []byte{'{'}
		b = jsonw.OmitInt(b, "a", x.A)
		b = jsonw.StringField(b, "b", x.B)
		b = jsonw.OmitBool(b, "c", x.C)
		b = jsonw.OmitString(b, "d", x.D)
		b = jsonw.IntField(b, "e", x.E)
		b = append(jsonw.BoolField(b, "f", x.F), '}')
		if want, _ := json.Marshal(x); string(b) != string(want) {
			t.Errorf("%+v: %s, json.Marshal %s", x, b, want)
		}
	}
	// An omitted first field leaves the next one without a comma.
	b := jsonw.OmitInt([]byte{'{'}, "a", 0)
	if b = append(jsonw.IntField(b, "e", 1), '}'); string(b) != `{"e":1}` {
		t.Errorf("after an omitted first field: %s", b)
	}
	if b := jsonw.Comma([]byte{'['}); string(b) != "[" {
		t.Errorf("Comma after [: %s", b)
	}
	if b := jsonw.Comma([]byte("[1")); string(b) != "[1," {
		t.Errorf("Comma after an element: %s", b)
	}
}

// TestOmitArrayAsMarshal: an array field is left out when empty and
// written with its elements otherwise, as json.Marshal writes omitempty.
func TestOmitArrayAsMarshal(t *testing.T) {
	type v struct {
		A []string `json:"a,omitempty"`
		N int64    `json:"n"`
	}
	for _, x := range []v{{}, {A: []string{"x"}}, {A: []string{"x", `"y"`, ""}, N: 2}} {
		b := jsonw.OmitArray([]byte{'{'}, "a", x.A, func(b []byte, s string) []byte { return jsonw.String(b, s) })
		b = append(jsonw.IntField(b, "n", x.N), '}')
		if want, _ := json.Marshal(x); string(b) != string(want) {
			t.Errorf("%+v: %s, json.Marshal %s", x, b, want)
		}
	}
}
