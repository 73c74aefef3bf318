package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/planmode/planmode/tools"
)

// maxNameLen is the longest function name model providers accept.
const maxNameLen = 64

// hashLen is how many hex digits of a hash end a shortened name.
const hashLen = 8

// PublicName returns the name a server's tool is offered under:
// mcp__<server>__<tool>, every character outside [A-Za-z0-9_-] replaced
// by _, and when that is longer than 64 characters, cut and ended with _
// and a short hash of the whole real name, so that two long names that
// share their start still differ.
func PublicName(server, tool string) string {
	name := tools.MCPPrefix + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= maxNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return name[:maxNameLen-hashLen-1] + "_" + hex.EncodeToString(sum[:])[:hashLen]
}

// sanitize replaces every character a provider refuses in a name by _.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
