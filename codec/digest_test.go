package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSearchDigestIsHMACUnderADerivedKey pins the digest to a value
// computed apart (Python's hmac): every worker and CLI build must agree,
// or list --goal stops finding plans.
func TestSearchDigestIsHMACUnderADerivedKey(t *testing.T) {
	r := ring(t, "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
	assert.Equal(t, "hmac:53fda74d63f0a681bcef0555f13d6ad7", r.SearchDigest("Add JWT authentication"))
}

func TestSearchDigestHidesTheValue(t *testing.T) {
	key := newKey(t)
	r := ring(t, "k1:"+key)
	const goal = "Migrate the billing database"
	d := r.SearchDigest(goal)
	assert.Equal(t, d, r.SearchDigest(goal), "equal values, equal digests")
	assert.NotEqual(t, d, r.SearchDigest(goal+"!"))
	assert.True(t, strings.HasPrefix(d, DigestPrefix))
	assert.Len(t, d, len(DigestPrefix)+digestHexLen)
	for _, word := range strings.Fields(goal) {
		assert.NotContains(t, strings.ToLower(d), strings.ToLower(word))
	}
	assert.NotEqual(t, d, ring(t, "k1:"+newKey(t)).SearchDigest(goal), "another key, another digest")
	assert.Equal(t, d, ring(t, "other-id:"+key).SearchDigest(goal), "the digest depends on the key, not its id")
}

func TestSearchDigestsCoverEveryKey(t *testing.T) {
	oldKey, newKeyLine := "k1:"+newKey(t), "k2:"+newKey(t)
	before := ring(t, oldKey)
	after := ring(t, newKeyLine, oldKey)
	const goal = "Rotate the keys"
	assert.Equal(t, []string{after.SearchDigest(goal), before.SearchDigest(goal)}, after.SearchDigests(goal),
		"the encrypting key's digest first, then the older keys'")
}
