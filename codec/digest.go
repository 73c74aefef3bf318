package codec

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// DigestPrefix starts every value [Keyring.SearchDigest] returns, so that
// a reader tells a digest from text.
const DigestPrefix = "hmac:"

// digestHexLen is how much of the HMAC a digest keeps: 128 bits, as hex.
const digestHexLen = 32

// digestLabel derives the digest key from an encryption key, so that the
// key that seals payloads is never used for anything else and a digest
// says nothing about it.
const digestLabel = "planmode search attribute digest v1"

// deriveDigestKey returns the digest key of an encryption key:
// HMAC-SHA256 of digestLabel under it.
func deriveDigestKey(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(digestLabel))
	return m.Sum(nil)
}

// SearchDigest returns a keyed digest of value for a search attribute:
// [DigestPrefix] and the first 32 hex digits of HMAC-SHA256 of value under
// a key derived from the encrypting key. Equal values have equal digests,
// so a client holding the key file finds a value by its digest, while the
// server, and whoever reads its visibility store, can neither read the
// value nor confirm a guess without the key.
func (k *Keyring) SearchDigest(value string) string {
	return digest(k.digestKeys[k.ids[0]], value)
}

// SearchDigests returns value's digest under every key of the ring, the
// encrypting key's first: a value written before a rotation holds the
// digest of the key that encrypted then.
func (k *Keyring) SearchDigests(value string) []string {
	out := make([]string, len(k.ids))
	for i, id := range k.ids {
		out[i] = digest(k.digestKeys[id], value)
	}
	return out
}

// digest is value's digest under key.
func digest(key []byte, value string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(value))
	return DigestPrefix + hex.EncodeToString(m.Sum(nil))[:digestHexLen]
}
