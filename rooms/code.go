package rooms

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// codeAlphabet has no look-alikes: no 0/O, 1/I/L, 5/S, 2/Z or 8/B, so a
// code read off a projector is typed right.
const codeAlphabet = "23456789ACDEFGHJKMNPQRTUVWXY"

// CodeLen is the length of a room code: 28^6, about 480 million codes, far
// beyond what the bounded wrong lookups let anyone try.
const CodeLen = 6

// SecretLen is the length of an owner secret: 32 random bytes, base64url
// without padding.
const SecretLen = 43

// newCode returns a random room code.
func newCode() string {
	var b [CodeLen]byte
	rand.Read(b[:]) // never returns an error (crypto/rand, Go 1.24+)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b[:])
}

// ParseCode normalizes a code as a visitor may type it (lower case) and
// reports whether it can be one at all.
func ParseCode(s string) (string, bool) {
	s = strings.ToUpper(s)
	if len(s) != CodeLen {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(codeAlphabet, s[i]) < 0 {
			return "", false
		}
	}
	return s, true
}

// newSecret returns a fresh owner secret.
func newSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ValidSecret reports whether s has the shape of an owner secret.
func ValidSecret(s string) bool {
	if len(s) != SecretLen {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

// seal is what the replicas keep of an owner secret: its SHA-256. The
// secret is 256 random bits, so the seal tells nothing of it, and a claim
// is checked against the seal without the secret ever leaving the page
// that holds it and the replica it talks to.
type seal [sha256.Size]byte

func sealOf(secret string) seal { return sha256.Sum256([]byte(secret)) }

// matches compares in constant time.
func (s seal) matches(o seal) bool { return subtle.ConstantTimeCompare(s[:], o[:]) == 1 }

func (s seal) String() string { return hex.EncodeToString(s[:]) }

func parseSeal(h string) (seal, bool) {
	var s seal
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != len(s) {
		return s, false
	}
	copy(s[:], b)
	return s, true
}

// newEpoch names one owner's tenure on the wire: frames and announces
// carry it, never the owner's session id.
func newEpoch() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
