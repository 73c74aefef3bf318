package serve

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// MinTokenBytes is the shortest token the tokens file may hold: a short
// token can be guessed by whoever reaches the server.
const MinTokenBytes = 16

// Caller is who a token speaks for: its identity, which later changes
// made through the server record as their "by", and the tenants whose
// plans it may see (none listed: every plan).
type Caller struct {
	Identity string
	Tenants  []string
}

// mayFollow reports whether the caller may see a plan of tenant.
func (c Caller) mayFollow(tenant string) bool {
	return len(c.Tenants) == 0 || slices.Contains(c.Tenants, tenant)
}

// token is one line of the tokens file. Only the token's digest is kept:
// comparing digests of equal length in constant time tells nothing of
// how much of a guess was right.
type token struct {
	digest [sha256.Size]byte
	caller Caller
}

// Tokens are the tokens of a tokens file.
type Tokens struct{ list []token }

// Len is how many tokens there are.
func (t Tokens) Len() int { return len(t.list) }

// lookup returns the caller of tok. It compares tok's digest with every
// token's, without stopping at a match, so that the time taken does not
// say which token, or whether any, matched.
func (t Tokens) lookup(tok string) (Caller, bool) {
	d := sha256.Sum256([]byte(tok))
	found := -1
	for i := range t.list {
		if subtle.ConstantTimeCompare(d[:], t.list[i].digest[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Caller{}, false
	}
	return t.list[found].caller, true
}

// ReadTokens reads a tokens file: one token a line, as
//
//	TOKEN IDENTITY [TENANT,TENANT,...]
//
// separated by spaces or tabs; blank lines and lines starting with # are
// ignored. A token is at least MinTokenBytes of printable characters and
// appears once. The error names the file and the line.
func ReadTokens(path string) (Tokens, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Tokens{}, fmt.Errorf("tokens file: %w", err)
	}
	toks, err := ParseTokens(b)
	if err != nil {
		return Tokens{}, fmt.Errorf("tokens file %s: %w", path, err)
	}
	return toks, nil
}

// ParseTokens parses the content of a tokens file (see [ReadTokens]).
func ParseTokens(b []byte) (Tokens, error) {
	var toks Tokens
	seen := map[[sha256.Size]byte]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		tok, err := parseTokenLine(line)
		if err != nil {
			return Tokens{}, fmt.Errorf("line %d: %w", n, err)
		}
		if first, ok := seen[tok.digest]; ok {
			return Tokens{}, fmt.Errorf("line %d: the token of line %d again", n, first)
		}
		seen[tok.digest] = n
		toks.list = append(toks.list, tok)
	}
	if err := sc.Err(); err != nil {
		return Tokens{}, err
	}
	return toks, nil
}

// parseTokenLine parses one line of a tokens file. It never quotes the
// token in an error: the message may reach a log.
func parseTokenLine(line string) (token, error) {
	fields := strings.Fields(line)
	if len(fields) < 2 || len(fields) > 3 {
		return token{}, fmt.Errorf("%d fields: want TOKEN IDENTITY [TENANT,...]", len(fields))
	}
	secret, identity := fields[0], fields[1]
	if len(secret) < MinTokenBytes {
		return token{}, fmt.Errorf("the token of %s is %d bytes: at least %d", identity, len(secret), MinTokenBytes)
	}
	for _, f := range fields {
		if strings.IndexFunc(f, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			return token{}, errors.New("a field holds a character that is not printable")
		}
	}
	tok := token{digest: sha256.Sum256([]byte(secret)), caller: Caller{Identity: identity}}
	if len(fields) == 3 {
		for _, t := range strings.Split(fields[2], ",") {
			if t == "" {
				return token{}, fmt.Errorf("the tenants of %s hold an empty name", identity)
			}
			tok.caller.Tenants = append(tok.caller.Tenants, t)
		}
	}
	return tok, nil
}

// tokenFile is the tokens file as the server knows it: read at start and
// again when it changes, looked at no more than once an interval. A file
// that disappears or no longer parses refuses every token until it is
// fixed: a revocation that left the file malformed must not keep the
// revoked token alive.
type tokenFile struct {
	path     string
	interval time.Duration
	now      func() time.Time
	onError  func(error)

	mu      sync.Mutex
	checked time.Time
	stat    os.FileInfo
	tokens  Tokens
}

// load reads the file now, as at start; an error leaves no token valid.
func (f *tokenFile) load() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checked = f.now()
	return f.reload()
}

// reload reads the file and keeps its stat; f.mu is held.
func (f *tokenFile) reload() error {
	// Stat before reading: a change between the two is seen next time.
	st, err := os.Stat(f.path)
	var toks Tokens
	if err == nil {
		toks, err = ReadTokens(f.path)
	}
	if err != nil {
		f.stat, f.tokens = nil, Tokens{}
		return err
	}
	f.stat, f.tokens = st, toks
	return nil
}

// lookup returns the caller of tok after looking at the file again when
// the interval since the last look has passed.
func (f *tokenFile) lookup(tok string) (Caller, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now := f.now(); now.Sub(f.checked) >= f.interval {
		f.checked = now
		if f.changed() {
			if err := f.reload(); err != nil && f.onError != nil {
				f.onError(err)
			}
		}
	}
	return f.tokens.lookup(tok)
}

// changed reports whether the file is not the one last read: another
// size, time of modification or file (a secret volume swaps a symlink).
func (f *tokenFile) changed() bool {
	st, err := os.Stat(f.path)
	if err != nil || f.stat == nil {
		return true
	}
	return !os.SameFile(st, f.stat) || st.Size() != f.stat.Size() || !st.ModTime().Equal(f.stat.ModTime())
}
