package plan

import (
	"fmt"
	"slices"
	"strings"
)

// ConditionError says what is wrong with a skip condition and where.
type ConditionError struct {
	Expr string `json:"expr"`
	// Pos is the 1-based column of the offending token.
	Pos int    `json:"pos"`
	Msg string `json:"msg"`
}

// Error renders the message with its column.
func (e *ConditionError) Error() string {
	return fmt.Sprintf("condition %q: column %d: %s", e.Expr, e.Pos, e.Msg)
}

// EvalCondition evaluates a skip condition against the results of p's
// steps. The language is small:
//
//	always, never                  constant true, false
//	<id>.completed                 the step's status is completed
//	<id>.failed, <id>.skipped,     ...failed, skipped, cancelled, or in
//	<id>.cancelled, <id>.done      any final status
//	<id>.succeeded                 the step has a result with success set
//	<id>.output contains "text"    its output holds text, ignoring case
//	<id>.filesChanged > N          files it changed, compared with N by
//	                               >, >=, <, <=, == or !=
//	!x, not x                      negation
//	x && y, x and y                conjunction (binds tighter than or)
//	x || y, x or y                 disjunction
//	( x )                          grouping
//
// Step ids are made of letters, digits, '_' and '-'. A step without a
// result has an empty output and no changed files. A syntax error or an
// id that names no step in p returns a *ConditionError with the column.
func EvalCondition(expr string, p *Plan) (bool, error) {
	c, err := parseCondition(expr)
	if err != nil {
		return false, err
	}
	steps := make(map[string]*Step, len(p.Steps))
	for i := range p.Steps {
		steps[p.Steps[i].ID] = &p.Steps[i]
	}
	for _, r := range c.refs {
		if steps[r.id] == nil {
			return false, &ConditionError{Expr: expr, Pos: r.pos, Msg: fmt.Sprintf("unknown step %q", r.id)}
		}
	}
	return c.root.eval(steps), nil
}

// CheckCondition reports whether expr is a well-formed condition (see
// EvalCondition) whose step ids are all in ids; with a nil ids only the
// syntax is checked. Validate uses it so a plan with a broken skip
// condition is refused before it runs.
func CheckCondition(expr string, ids map[string]bool) error {
	c, err := parseCondition(expr)
	if err != nil {
		return err
	}
	if ids == nil {
		return nil
	}
	for _, r := range c.refs {
		if !ids[r.id] {
			return &ConditionError{Expr: expr, Pos: r.pos, Msg: fmt.Sprintf("unknown step %q", r.id)}
		}
	}
	return nil
}

// ConditionSteps returns the step ids expr names, in order of first
// appearance, or the syntax error.
func ConditionSteps(expr string) ([]string, error) {
	c, err := parseCondition(expr)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range c.refs {
		if !slices.Contains(out, r.id) {
			out = append(out, r.id)
		}
	}
	return out, nil
}

// condNode is one node of a parsed condition.
type condNode interface {
	eval(steps map[string]*Step) bool
}

type constNode bool

func (n constNode) eval(map[string]*Step) bool { return bool(n) }

type notNode struct{ x condNode }

func (n notNode) eval(s map[string]*Step) bool { return !n.x.eval(s) }

type binNode struct {
	and  bool
	l, r condNode
}

func (n binNode) eval(s map[string]*Step) bool {
	if n.and {
		return n.l.eval(s) && n.r.eval(s)
	}
	return n.l.eval(s) || n.r.eval(s)
}

// stepNode tests one property of a step.
type stepNode struct {
	id    string
	field string
	text  string // for contains
	op    string // for filesChanged
	n     int
}

func (n stepNode) eval(steps map[string]*Step) bool {
	s := steps[n.id]
	var r StepResult
	if s.Result != nil {
		r = *s.Result
	}
	switch n.field {
	case "completed":
		return s.Status == StepCompleted
	case "failed":
		return s.Status == StepFailed
	case "skipped":
		return s.Status == StepSkipped
	case "cancelled":
		return s.Status == StepCancelled
	case "done":
		return s.Status.Done()
	case "succeeded":
		return r.Success
	case "output":
		return strings.Contains(strings.ToLower(r.Output), strings.ToLower(n.text))
	}
	return compare(len(r.FilesChanged), n.op, n.n)
}

func compare(a int, op string, b int) bool {
	switch op {
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case "==":
		return a == b
	}
	return a != b
}
