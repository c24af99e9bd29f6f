package apiserver

import (
	"fmt"
	"slices"
	"strings"
)

// validate checks what the API server's validation would: names, the App's
// schema, finalizers, owner references and conditions.
func validate(o Object) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s %q: %s: %w", o.Kind, o.Name, fmt.Sprintf(format, a...), ErrInvalid)
	}
	switch o.Kind {
	case KindApp, KindConfigMap, KindSecret:
	default:
		return fmt.Errorf("kind %q: %w", o.Kind, ErrInvalid)
	}
	if !ValidName(o.Name) {
		return bad("not a DNS label")
	}
	if len(o.Finalizers) > MaxFinalizers {
		return bad("%d finalizers, at most %d", len(o.Finalizers), MaxFinalizers)
	}
	for i, f := range o.Finalizers {
		if !validFinalizer(f) || slices.Contains(o.Finalizers[:i], f) {
			return bad("finalizer %q", f)
		}
	}
	if o.Owner != (OwnerRef{}) && (o.Owner.Kind != KindApp || !ValidName(o.Owner.Name) || o.Owner.UID < 1) {
		return bad("owner reference %+v", o.Owner)
	}
	if !o.DeletionTimestamp.Set && o.DeletionTimestamp.At != 0 || o.DeletionTimestamp.At < 0 {
		return bad("deletionTimestamp")
	}
	if o.Kind == KindApp {
		if !slices.Contains(LogLevels[:], o.Spec.LogLevel) {
			return bad("spec.logLevel %q not one of %v", o.Spec.LogLevel, LogLevels)
		}
		return validateStatus(o.Status, bad)
	}
	if o.Kind == KindConfigMap && (len(o.Data.LogLevel) > 16 || !isLower(o.Data.LogLevel)) {
		return bad("data.logLevel %q", o.Data.LogLevel)
	}
	return nil
}

func validateStatus(st AppStatus, bad func(string, ...any) error) error {
	if st.ObservedGeneration < 0 {
		return bad("status.observedGeneration %d", st.ObservedGeneration)
	}
	if lr := st.LastReconcileTime; !lr.Set && lr.At != 0 || lr.At < 0 {
		return bad("status.lastReconcileTime")
	}
	if len(st.Conditions) > MaxConditions {
		return bad("%d conditions, at most %d", len(st.Conditions), MaxConditions)
	}
	for i, c := range st.Conditions {
		if !isWord(c.Type, 32) || !isWord(c.Reason, 64) || c.LastTransitionTime < 0 {
			return bad("condition %+v", c)
		}
		if c.Status != "True" && c.Status != "False" && c.Status != "Unknown" {
			return bad("condition %s status %q", c.Type, c.Status)
		}
		for _, d := range st.Conditions[:i] {
			if d.Type == c.Type {
				return bad("condition %s twice", c.Type)
			}
		}
	}
	return nil
}

// ValidName reports whether name is a DNS label: 1 to 63 lowercase letters,
// digits and dashes, starting and ending with a letter or digit.
func ValidName(name string) bool {
	if name == "" || len(name) > 63 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// validFinalizer accepts a qualified name: a DNS-ish prefix, a slash, a
// name ("demo.example/cleanup").
func validFinalizer(f string) bool {
	prefix, name, ok := strings.Cut(f, "/")
	if !ok || len(f) > 63 || !ValidName(name) || prefix == "" {
		return false
	}
	for _, part := range strings.Split(prefix, ".") {
		if !ValidName(part) {
			return false
		}
	}
	return true
}

func isWord(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func isLower(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}
