package codec

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// newKey returns a random key, base64-encoded as a key file holds it.
func newKey(t *testing.T) string {
	t.Helper()
	k := make([]byte, KeySize)
	_, err := rand.Read(k)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(k)
}

// ring parses a key file made of lines.
func ring(t *testing.T, lines ...string) *Keyring {
	t.Helper()
	r, err := ParseKeys(strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	return r
}

func TestParseKeys(t *testing.T) {
	good, short := newKey(t), base64.StdEncoding.EncodeToString(make([]byte, 16))
	cases := []struct {
		name    string
		file    string
		wantIDs []string
		wantErr string
	}{
		{name: "one key", file: "k1:" + good, wantIDs: []string{"k1"}},
		{name: "comments, blanks, rotation", file: "# rotated 2026\n\nk2:" + good + "\n  k1 : " + good + "  \n",
			wantIDs: []string{"k2", "k1"}},
		{name: "unpadded base64", file: "k1:" + strings.TrimRight(good, "="), wantIDs: []string{"k1"}},
		{name: "empty", file: "# nothing\n", wantErr: "holds no key"},
		{name: "no colon", file: "k1:" + good + "\n" + good, wantErr: "line 2: want keyID:base64key"},
		{name: "no id", file: ":" + good, wantErr: "line 1: key id is empty"},
		{name: "space in id", file: "my key:" + good, wantErr: "line 1: key id must be printable"},
		{name: "not base64", file: "k1:not*base64", wantErr: `line 1: key "k1" is not valid base64`},
		{name: "16 bytes", file: "k1:" + good + "\n\nk0:" + short, wantErr: `line 3: key "k0" is 16 bytes; want 32`},
		{name: "repeated id", file: "k1:" + good + "\nk1:" + good, wantErr: `line 2: key id "k1" appears twice`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseKeys(strings.NewReader(tc.file))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				assert.NotContains(t, err.Error(), good, "an error never shows a key")
				assert.NotContains(t, err.Error(), short, "an error never shows a key")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantIDs, r.KeyIDs())
			assert.Equal(t, tc.wantIDs[0], r.EncryptingKeyID())
		})
	}
}

func TestLoadKeyFileNamesTheFile(t *testing.T) {
	path := t.TempDir() + "/keys"
	_, err := LoadKeyFile(path)
	require.ErrorContains(t, err, "key file")

	require.NoError(t, os.WriteFile(path, []byte("k1:short"), 0o600))
	_, err = LoadKeyFile(path)
	require.ErrorContains(t, err, "key file "+path+": line 1:")
}

func TestRoundTripHidesThePlaintext(t *testing.T) {
	c := New(ring(t, "k1:"+newKey(t)))
	dc := NewDataConverter(c)
	in := map[string]string{"goal": "Add JWT authentication"}
	p, err := dc.ToPayload(in)
	require.NoError(t, err)

	assert.Equal(t, EncodingEncrypted, string(p.GetMetadata()[converter.MetadataEncoding]))
	assert.Equal(t, "k1", string(p.GetMetadata()[MetadataKeyID]))
	assert.NotContains(t, string(p.GetData()), "JWT")
	assert.NotContains(t, fmt.Sprint(p.GetMetadata()), "json", "the inner encoding is sealed too")

	var out map[string]string
	require.NoError(t, dc.FromPayload(p, &out))
	assert.Equal(t, in, out)
}

func TestEncodeUsesAFreshNonce(t *testing.T) {
	c := New(ring(t, "k1:"+newKey(t)))
	plain := []*commonpb.Payload{{Data: []byte("same")}, {Data: []byte("same")}}
	enc, err := c.Encode(plain)
	require.NoError(t, err)
	assert.NotEqual(t, enc[0].GetData(), enc[1].GetData())
}

func TestRotationDecryptsWithEveryKey(t *testing.T) {
	oldKey, newK := newKey(t), newKey(t)
	before := New(ring(t, "old:"+oldKey))
	after := New(ring(t, "new:"+newK, "old:"+oldKey))

	written, err := before.Encode([]*commonpb.Payload{{Data: []byte("v1")}})
	require.NoError(t, err)
	read, err := after.Decode(written)
	require.NoError(t, err)
	assert.Equal(t, "v1", string(read[0].GetData()))

	fresh, err := after.Encode([]*commonpb.Payload{{Data: []byte("v2")}})
	require.NoError(t, err)
	assert.Equal(t, "new", string(fresh[0].GetMetadata()[MetadataKeyID]), "the first line encrypts")

	_, err = before.Decode(fresh)
	require.ErrorIs(t, err, ErrUnknownKey)
	assert.ErrorContains(t, err, `"new"`)
}

func TestPlainAndEncryptedPayloadsPassThrough(t *testing.T) {
	c := New(ring(t, "k1:"+newKey(t)))
	plain := &commonpb.Payload{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte("json/plain")},
		Data:     []byte(`"hello"`),
	}
	dec, err := c.Decode([]*commonpb.Payload{plain})
	require.NoError(t, err)
	assert.Same(t, plain, dec[0], "history written before encryption stays readable")

	once, err := c.Encode([]*commonpb.Payload{plain})
	require.NoError(t, err)
	twice, err := c.Encode(once)
	require.NoError(t, err)
	assert.Same(t, once[0], twice[0], "an encrypted payload is not wrapped again")

	back, err := c.Decode(twice)
	require.NoError(t, err)
	assert.Equal(t, `"hello"`, string(back[0].GetData()))
	assert.Equal(t, "json/plain", string(back[0].GetMetadata()[converter.MetadataEncoding]))
}

func TestDecodeRefusesBadCiphertext(t *testing.T) {
	c := New(ring(t, "k1:"+newKey(t)))
	enc, err := c.Encode([]*commonpb.Payload{{Data: []byte("secret")}})
	require.NoError(t, err)
	meta := enc[0].GetMetadata()

	tampered := append([]byte(nil), enc[0].GetData()...)
	tampered[len(tampered)-1] ^= 1
	noID := map[string][]byte{converter.MetadataEncoding: []byte(EncodingEncrypted)}
	cases := map[string]*commonpb.Payload{
		"tampered":  {Metadata: meta, Data: tampered},
		"too short": {Metadata: meta, Data: []byte("x")},
		"no key id": {Metadata: noID, Data: enc[0].GetData()},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := c.Decode([]*commonpb.Payload{p})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "decrypt payload")
		})
	}
	other := New(ring(t, "k1:"+newKey(t)))
	_, err = other.Decode(enc)
	require.ErrorContains(t, err, "message authentication failed", "same id, other key")
}
