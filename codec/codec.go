// Package codec encrypts Temporal payloads with AES-256-GCM, so that
// workflow history, memos and query answers hold only ciphertext, and
// serves Temporal's remote codec protocol so that the Web UI and the
// `temporal` CLI can show them decrypted to whoever may read them.
//
// # Keys
//
// Keys come from a key file ([LoadKeyFile]) of lines keyID:base64key, each
// key 32 random bytes (`openssl rand -base64 32`). The first line's key
// encrypts; every line's key decrypts. To rotate, put a new line first and
// keep the old ones as long as any history written with them is read.
//
// # Format
//
// An encrypted payload has the metadata encoding [EncodingEncrypted] and
// the id of its key under [MetadataKeyID]; its data is the 12-byte GCM
// nonce followed by the sealed bytes of the original payload (a protobuf
// Payload, its own metadata included). This is the layout of the Temporal
// samples' encryption codec.
//
// # Use
//
// [NewDataConverter] wraps the SDK's default converter; put it in
// client.Options.DataConverter of every client, the worker's included.
// Workers created from that client, and planmode's typed client
// (planclient.New), which wraps a client.Client, use it without more
// setup. [NewHTTPHandler] is the codec server.
package codec

import (
	"crypto/rand"
	"errors"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// Metadata of an encrypted payload.
const (
	// EncodingEncrypted is the metadata encoding of an encrypted payload.
	EncodingEncrypted = "binary/encrypted"
	// MetadataKeyID names the key an encrypted payload was sealed with.
	MetadataKeyID = "encryption-key-id"
)

// ErrUnknownKey is returned when a payload was encrypted with a key the
// ring does not hold.
var ErrUnknownKey = errors.New("unknown encryption key")

// Codec is a converter.PayloadCodec that encrypts with a [Keyring].
type Codec struct {
	keys *Keyring
}

var _ converter.PayloadCodec = (*Codec)(nil)

// New returns a Codec over keys.
func New(keys *Keyring) *Codec { return &Codec{keys: keys} }

// NewDataConverter returns the SDK's default data converter with c
// applied to every payload it produces and reads.
func NewDataConverter(c *Codec) converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
}

// Keys returns the codec's key ring.
func (c *Codec) Keys() *Keyring { return c.keys }

// Encode encrypts every payload with the ring's first key. A payload that
// is already encrypted is kept as it is, so that encoding twice (a codec
// server behind a client that encrypts itself) does not wrap it again.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	id := c.keys.EncryptingKeyID()
	aead, _ := c.keys.aead(id)
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if isEncrypted(p) {
			out[i] = p
			continue
		}
		plain, err := p.Marshal()
		if err != nil {
			return nil, fmt.Errorf("encrypt payload: %w", err)
		}
		nonce := make([]byte, aead.NonceSize())
		if _, err := rand.Read(nonce); err != nil {
			return nil, fmt.Errorf("encrypt payload: nonce: %w", err)
		}
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				converter.MetadataEncoding: []byte(EncodingEncrypted),
				MetadataKeyID:              []byte(id),
			},
			Data: aead.Seal(nonce, nonce, plain, nil),
		}
	}
	return out, nil
}

// Decode decrypts every encrypted payload and passes the others through
// unchanged: history written before encryption was turned on, and
// payloads of clients without the codec, stay readable. It returns an
// error when a payload names no key, a key the ring does not hold
// ([ErrUnknownKey]), or does not authenticate under its key.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if !isEncrypted(p) {
			out[i] = p
			continue
		}
		d, err := c.decrypt(p)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// decrypt opens one encrypted payload.
func (c *Codec) decrypt(p *commonpb.Payload) (*commonpb.Payload, error) {
	id := string(p.GetMetadata()[MetadataKeyID])
	if id == "" {
		return nil, errors.New("decrypt payload: no encryption key id in its metadata")
	}
	aead, ok := c.keys.aead(id)
	if !ok {
		return nil, fmt.Errorf("decrypt payload: %w %q; add it to codec.keyFile", ErrUnknownKey, id)
	}
	data := p.GetData()
	if len(data) < aead.NonceSize()+aead.Overhead() {
		return nil, fmt.Errorf("decrypt payload with key %q: ciphertext too short", id)
	}
	nonce, sealed := data[:aead.NonceSize()], data[aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, sealed, nil)
	if err != nil {
		return nil, fmt.Errorf("decrypt payload with key %q: %w", id, err)
	}
	var out commonpb.Payload
	if err := out.Unmarshal(plain); err != nil {
		return nil, fmt.Errorf("decrypt payload with key %q: decode: %w", id, err)
	}
	return &out, nil
}

// isEncrypted reports whether p carries this codec's encoding.
func isEncrypted(p *commonpb.Payload) bool {
	return string(p.GetMetadata()[converter.MetadataEncoding]) == EncodingEncrypted
}
