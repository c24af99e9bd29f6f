package templates

import "github.com/a-h/templ"

func bodyClass(p PageProps) string {
	c := "page"
	if p.Present {
		c += " present"
	}
	if p.Embed {
		c += " embed"
	}
	return c
}

func mainClass(p PageProps) string {
	if len(p.Demos) > 1 {
		return "demos demos-2"
	}
	return "demos"
}

// Class is an element's class attribute worked out in Go, spread into its
// tag ({ ui.Cls(…)... }): templ's class={ … } merges its classes through
// two maps and a slice of interfaces for every element it writes, which
// was a tenth of what a frame allocated. It writes the same attribute.
type Class string

// Items is the class attribute.
func (c Class) Items() []templ.KeyValue[string, any] {
	return []templ.KeyValue[string, any]{{Key: "class", Value: string(c)}}
}

// Cls is the class base, with each of on's keys whose value is true after
// it, separated by spaces, as class={ base, templ.KV(key, true), … } writes
// it.
func Cls(base string, on ...templ.KeyValue[string, bool]) Class {
	n := len(base)
	for _, kv := range on {
		if kv.Value {
			n += 1 + len(kv.Key)
		}
	}
	if n == len(base) {
		return Class(base)
	}
	b := make([]byte, 0, n)
	b = append(b, base...)
	for _, kv := range on {
		if kv.Value {
			b = append(b, ' ')
			b = append(b, kv.Key...)
		}
	}
	return Class(b)
}
