package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// tokKind classifies condition tokens.
type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokString
	tokDot
	tokLParen
	tokRParen
	tokNot
	tokAnd
	tokOr
	tokCmp
)

type token struct {
	kind tokKind
	text string
	pos  int // 1-based column
}

// stepRef is a step id named by a condition, with its column.
type stepRef struct {
	id  string
	pos int
}

type parsedCond struct {
	root condNode
	refs []stepRef
}

// condParser is a recursive-descent parser over the token list:
//
//	or    = and { ("||" | "or") and }
//	and   = unary { ("&&" | "and") unary }
//	unary = ("!" | "not") unary | "(" or ")" | "always" | "never" | term
//	term  = id "." field [ "contains" string | cmp number ]
type condParser struct {
	expr string
	toks []token
	i    int
	refs []stepRef
	// depth counts the negations and parentheses open around the token
	// being parsed; MaxConditionDepth bounds it, so that parsing and
	// evaluating cannot recurse without end.
	depth int
}

func parseCondition(expr string) (parsedCond, error) {
	if len(expr) > MaxConditionBytes {
		return parsedCond{}, &ConditionError{Expr: TruncateBytes(expr, 64), Pos: MaxConditionBytes + 1,
			Msg: fmt.Sprintf("condition is %d bytes: at most %d", len(expr), MaxConditionBytes)}
	}
	toks, err := lexCondition(expr)
	if err != nil {
		return parsedCond{}, err
	}
	p := &condParser{expr: expr, toks: toks}
	if p.peek().kind == tokEOF {
		return parsedCond{}, p.fail(p.peek(), "empty condition")
	}
	root, err := p.or()
	if err != nil {
		return parsedCond{}, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return parsedCond{}, p.fail(t, fmt.Sprintf("unexpected %q", t.text))
	}
	return parsedCond{root: root, refs: p.refs}, nil
}

func (p *condParser) peek() token { return p.toks[p.i] }

func (p *condParser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *condParser) fail(t token, msg string) error {
	return &ConditionError{Expr: p.expr, Pos: t.pos, Msg: msg}
}

func (p *condParser) or() (condNode, error) {
	l, err := p.and()
	for err == nil && p.peek().kind == tokOr {
		p.next()
		var r condNode
		if r, err = p.and(); err == nil {
			l = binNode{l: l, r: r}
		}
	}
	return l, err
}

func (p *condParser) and() (condNode, error) {
	l, err := p.unary()
	for err == nil && p.peek().kind == tokAnd {
		p.next()
		var r condNode
		if r, err = p.unary(); err == nil {
			l = binNode{and: true, l: l, r: r}
		}
	}
	return l, err
}

func (p *condParser) unary() (condNode, error) {
	t := p.next()
	if t.kind == tokNot || t.kind == tokLParen {
		if p.depth == MaxConditionDepth {
			return nil, p.fail(t, fmt.Sprintf("nested deeper than %d", MaxConditionDepth))
		}
		p.depth++
		defer func() { p.depth-- }()
	}
	switch {
	case t.kind == tokNot:
		x, err := p.unary()
		return notNode{x}, err
	case t.kind == tokLParen:
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tokRParen {
			return nil, p.fail(c, "missing )")
		}
		return x, nil
	case t.kind == tokIdent && p.peek().kind != tokDot && (t.text == "always" || t.text == "never"):
		return constNode(t.text == "always"), nil
	case t.kind == tokIdent:
		return p.term(t)
	case t.kind == tokEOF:
		return nil, p.fail(t, "unexpected end of condition")
	}
	return nil, p.fail(t, fmt.Sprintf("unexpected %q", t.text))
}

// term parses what follows a step id.
func (p *condParser) term(id token) (condNode, error) {
	if d := p.next(); d.kind != tokDot {
		return nil, p.fail(d, fmt.Sprintf("expected .field after %q", id.text))
	}
	f := p.next()
	n := stepNode{id: id.text, field: f.text}
	p.refs = append(p.refs, stepRef{id: id.text, pos: id.pos})
	switch f.text {
	case "completed", "failed", "skipped", "cancelled", "done", "succeeded":
		return n, nil
	case "output":
		if c := p.next(); c.kind != tokIdent || c.text != "contains" {
			return nil, p.fail(c, "expected contains after output")
		}
		s := p.next()
		if s.kind != tokString {
			return nil, p.fail(s, "expected a quoted string after contains")
		}
		n.text = s.text
		return n, nil
	case "filesChanged":
		op := p.next()
		if op.kind != tokCmp {
			return nil, p.fail(op, "expected >, >=, <, <=, == or != after filesChanged")
		}
		num := p.next()
		v, err := strconv.Atoi(num.text)
		if num.kind != tokIdent || err != nil {
			return nil, p.fail(num, "expected a whole number")
		}
		n.op, n.n = op.text, v
		return n, nil
	}
	return nil, p.fail(f, fmt.Sprintf("unknown field %q", f.text))
}

// lexCondition splits expr into tokens; keywords are identifiers the
// parser recognises, except and/or/not which become operators.
func lexCondition(expr string) ([]token, error) {
	var toks []token
	for i := 0; i < len(expr); {
		c := expr[i]
		pos := i + 1
		two := ""
		if i+1 < len(expr) {
			two = expr[i : i+2]
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case two == "&&", two == "||", two == ">=", two == "<=", two == "==", two == "!=":
			toks = append(toks, token{kind: opKind(two), text: two, pos: pos})
			i += 2
		case strings.IndexByte(".()!<>", c) >= 0:
			toks = append(toks, token{kind: opKind(string(c)), text: string(c), pos: pos})
			i++
		case c == '"':
			s, n, err := lexString(expr, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tokString, text: s, pos: pos})
			i += n
		case isIdentByte(c):
			j := i
			for j < len(expr) && isIdentByte(expr[j]) {
				j++
			}
			toks = append(toks, identToken(expr[i:j], pos))
			i = j
		default:
			return nil, &ConditionError{Expr: expr, Pos: pos, Msg: fmt.Sprintf("unexpected character %q", c)}
		}
	}
	return append(toks, token{kind: tokEOF, text: "end", pos: len(expr) + 1}), nil
}

func opKind(s string) tokKind {
	switch s {
	case "&&":
		return tokAnd
	case "||":
		return tokOr
	case "!":
		return tokNot
	case ".":
		return tokDot
	case "(":
		return tokLParen
	case ")":
		return tokRParen
	}
	return tokCmp
}

func identToken(s string, pos int) token {
	switch s {
	case "and":
		return token{kind: tokAnd, text: s, pos: pos}
	case "or":
		return token{kind: tokOr, text: s, pos: pos}
	case "not":
		return token{kind: tokNot, text: s, pos: pos}
	}
	return token{kind: tokIdent, text: s, pos: pos}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// lexString reads a double-quoted string starting at expr[i], with \" and
// \\ escapes, and returns its text and length in bytes.
func lexString(expr string, i int) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(expr); j++ {
		switch expr[j] {
		case '\\':
			if j+1 < len(expr) {
				j++
				b.WriteByte(expr[j])
			}
		case '"':
			return b.String(), j - i + 1, nil
		default:
			b.WriteByte(expr[j])
		}
	}
	return "", 0, &ConditionError{Expr: expr, Pos: i + 1, Msg: "unterminated string"}
}
