package controlplane

import (
	"hash/fnv"
	"strconv"
	"strings"
)

// Alphabet is the one Kubernetes draws generated names from
// (k8s.io/apimachinery/pkg/util/rand): no vowels and no digits or letters
// that read alike, so that no generated name spells a word.
const Alphabet = "bcdfghjklmnpqrstvwxz2456789"

// SuffixLen is the length of the random suffix the apiserver appends to a
// generateName (rand.String(5)), as in web-7c5ddbdf54-x2kq9.
const SuffixLen = 5

// DeploymentName and Image are the chapter's Deployment: web, nginx:1.29.0.
const (
	DeploymentName = "web"
	Image          = "nginx:1.29.0"
)

// maxNameTries bounds how many random suffixes the apiserver draws before
// it scans for a free one: with at most MaxPods pods among 27^5 names, a
// second draw is already rare.
const maxNameTries = 8

// rng is splitmix64: a small deterministic generator whose every state is
// valid, so a state read back from a snapshot can never make it misbehave.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// suffix draws SuffixLen characters of Alphabet, like rand.String(5).
func (r *rng) suffix() string {
	var b [SuffixLen]byte
	for i := range b {
		b[i] = Alphabet[r.next()%uint64(len(Alphabet))]
	}
	return string(b[:])
}

// safeEncode maps each character of s onto Alphabet as
// rand.SafeEncodeString does: the pod-template-hash is the decimal FNV-32a
// of the template written this way, so it only holds 4-9, b, c, d and f.
func safeEncode(s string) string {
	b := make([]byte, len(s))
	for i := range len(s) {
		b[i] = Alphabet[int(s[i])%len(Alphabet)]
	}
	return string(b)
}

// templateHash returns the pod-template-hash of the chapter's pod template.
// Like the Deployment controller's ComputeHash it is FNV-32a over the
// template, written with safeEncode; the template is hashed from this
// canonical text rather than from Go's object dump, so the value differs from
// the one a real cluster prints for the same YAML.
func templateHash() string {
	h := fnv.New32a()
	h.Write([]byte("labels:app=" + DeploymentName + ";containers:nginx=" + Image))
	return safeEncode(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// ReplicaSetName is the name the Deployment controller gives the ReplicaSet
// of the chapter's Deployment: web-<pod-template-hash>.
func ReplicaSetName() string { return DeploymentName + "-" + templateHash() }

// validPodName reports whether name is <ReplicaSetName>-<SuffixLen chars of
// Alphabet>.
func validPodName(name string) bool {
	s, ok := strings.CutPrefix(name, ReplicaSetName()+"-")
	if !ok || len(s) != SuffixLen {
		return false
	}
	for i := range len(s) {
		if strings.IndexByte(Alphabet, s[i]) < 0 {
			return false
		}
	}
	return true
}

// generateName returns a pod name for generateName "<rs>-" that no pod in
// taken has, as the apiserver does for a POST with generateName: random
// draws first, then (never in practice) the first free suffix in order.
func generateName(r *rng, prefix string, taken func(string) bool) string {
	for range maxNameTries {
		if n := prefix + r.suffix(); !taken(n) {
			return n
		}
	}
	var b [SuffixLen]byte
	for i := 0; ; i++ {
		k := i
		for j := SuffixLen - 1; j >= 0; j-- {
			b[j] = Alphabet[k%len(Alphabet)]
			k /= len(Alphabet)
		}
		if n := prefix + string(b[:]); !taken(n) {
			return n
		}
	}
}
