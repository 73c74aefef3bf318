package codec

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// KeySize is the length of every key: AES-256.
const KeySize = 32

// maxKeyIDLen bounds a key id, which travels in every payload's metadata.
const maxKeyIDLen = 64

// Keyring holds the keys of a key file: the first encrypts, all decrypt,
// so that a key can be rotated by putting a new line first and keeping
// the old ones until no history needs them.
type Keyring struct {
	ids   []string
	aeads map[string]cipher.AEAD
	// digestKeys are the keys of SearchDigest, one derived from each
	// encryption key (see digest.go).
	digestKeys map[string][]byte
}

// ErrNoKeys is returned for a key file without a key line.
var ErrNoKeys = errors.New("holds no key; want lines of keyID:base64key")

// LoadKeyFile reads the key file at path (see [ParseKeys]). Errors name
// the file and the line, never a key.
func LoadKeyFile(path string) (*Keyring, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer f.Close()
	ring, err := ParseKeys(f)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return ring, nil
}

// ParseKeys reads lines of the form keyID:base64key, each key 32 bytes
// once decoded (standard base64, padding optional). Blank lines and lines
// starting with # are skipped. The first key encrypts. It returns an error
// naming the line number for a malformed line, a key of the wrong size, a
// repeated id, or no key at all; the error never holds key material.
func ParseKeys(r io.Reader) (*Keyring, error) {
	ring := &Keyring{aeads: map[string]cipher.AEAD{}, digestKeys: map[string][]byte{}}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, key, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if _, dup := ring.aeads[id]; dup {
			return nil, fmt.Errorf("line %d: key id %q appears twice", n, id)
		}
		aead, err := newAEAD(key)
		if err != nil {
			return nil, fmt.Errorf("line %d: key %q: %w", n, id, err)
		}
		ring.ids = append(ring.ids, id)
		ring.aeads[id] = aead
		ring.digestKeys[id] = deriveDigestKey(key)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if len(ring.ids) == 0 {
		return nil, ErrNoKeys
	}
	return ring, nil
}

// parseLine turns one keyID:base64key line into its id and key. Its
// errors describe the line's shape without quoting the key.
func parseLine(line string) (string, []byte, error) {
	id, encoded, ok := strings.Cut(line, ":")
	id, encoded = strings.TrimSpace(id), strings.TrimSpace(encoded)
	if !ok || encoded == "" {
		return "", nil, errors.New("want keyID:base64key")
	}
	if err := checkKeyID(id); err != nil {
		return "", nil, err
	}
	key, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		key, err = base64.RawStdEncoding.DecodeString(encoded)
	}
	if err != nil {
		return "", nil, fmt.Errorf("key %q is not valid base64", id)
	}
	if len(key) != KeySize {
		return "", nil, fmt.Errorf("key %q is %d bytes; want %d (AES-256)", id, len(key), KeySize)
	}
	return id, key, nil
}

// newAEAD returns the AES-256-GCM cipher of key.
func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// checkKeyID accepts a short id of printable characters without spaces:
// it is written into every payload's metadata and shown in errors.
func checkKeyID(id string) error {
	if id == "" {
		return errors.New("key id is empty; want keyID:base64key")
	}
	if len(id) > maxKeyIDLen {
		return fmt.Errorf("key id is longer than %d bytes", maxKeyIDLen)
	}
	for _, r := range id {
		if r <= ' ' || r > '~' {
			return errors.New("key id must be printable ASCII without spaces")
		}
	}
	return nil
}

// EncryptingKeyID returns the id of the key that encrypts: the file's
// first.
func (k *Keyring) EncryptingKeyID() string { return k.ids[0] }

// KeyIDs returns the ids of every key, the encrypting one first.
func (k *Keyring) KeyIDs() []string { return append([]string(nil), k.ids...) }

// aead returns the cipher of id, or false when the ring does not hold it.
func (k *Keyring) aead(id string) (cipher.AEAD, bool) {
	a, ok := k.aeads[id]
	return a, ok
}
