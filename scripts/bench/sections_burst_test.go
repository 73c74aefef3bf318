package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestServerLogCountsRefusedUpdatesAcrossWrites(t *testing.T) {
	var out bytes.Buffer
	l := &serverLog{w: &out}
	for _, chunk := range []string{
		`level=ERROR msg="service failures" error="limit on number of concurrent in-flight upd`,
		"ates has been reached (10)\"\nlevel=ERROR error=\"workflow update was aborted\"\n",
		"level=ERROR grpc_code=ResourceExhausted error=\"namespace rate limit exceeded\"\nlevel=ERROR other\n",
		"level=ERROR unfinished in-flight updates line without its end",
	} {
		_, err := l.Write([]byte(chunk))
		assert.NoError(t, err)
	}
	assert.Equal(t, serverRefusals{inFlight: 1, aborted: 1, exhausted: 1}, l.counts(), "whole lines only")
	assert.Contains(t, out.String(), "level=ERROR other", "the log goes on to its writer")
	assert.Equal(t, 3, l.counts().total())
}
