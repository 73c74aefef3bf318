package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/planmode/planmode/planclient"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// choiceValue is a string flag that takes one of a fixed set of values.
// A typo then fails while the flags are parsed, naming the valid values,
// instead of reaching Temporal as a filter that silently matches nothing.
type choiceValue struct {
	target  *string
	choices []string
}

// newChoice returns a flag value that stores into target and accepts only
// choices.
func newChoice[T ~string](target *string, choices ...T) *choiceValue {
	c := &choiceValue{target: target, choices: make([]string, len(choices))}
	for i, v := range choices {
		c.choices[i] = string(v)
	}
	return c
}

// Set stores s when it is one of the choices; pflag reports the error as
// `invalid argument "s" for "--flag" flag: want one of …`.
func (c *choiceValue) Set(s string) error {
	if !slices.Contains(c.choices, s) {
		return fmt.Errorf("want one of %s", c.list())
	}
	*c.target = s
	return nil
}

func (c *choiceValue) String() string { return *c.target }

// Type names the value in the help, where "string" reads better than the
// Go type.
func (c *choiceValue) Type() string { return "string" }

// list is the choices as the help and the errors show them.
func (c *choiceValue) list() string { return strings.Join(c.choices, ", ") }

// choiceVar defines a choice flag on fs whose usage ends with the valid
// values, so that --help and the error name the same list.
func choiceVar[T ~string](fs *pflag.FlagSet, target *string, name, usage string, choices ...T) {
	v := newChoice(target, choices...)
	fs.Var(v, name, usage+": "+v.list())
}

// rejectArgs makes a positional-argument check's failure a rejection of
// the input (exit 4, as a bad flag is), with the command's usage line.
func rejectArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return rejectf(fmt.Sprintf("%v; usage: %s", err, cmd.UseLine()))
		}
		return nil
	}
}

// isUsageError reports whether err is the flag parser's refusal of the
// command line: an unknown flag, a flag without its value, a value the
// flag does not take, or a malformed flag.
func isUsageError(err error) bool {
	var notExist *pflag.NotExistError
	var noValue *pflag.ValueRequiredError
	var badValue *pflag.InvalidValueError
	var badSyntax *pflag.InvalidSyntaxError
	return errors.As(err, &notExist) || errors.As(err, &noValue) || errors.As(err, &badValue) || errors.As(err, &badSyntax)
}

// queryTimeoutFlag adds --query-timeout to cmd, stored into target: how
// long show and watch wait for a plan to answer a query before they
// answer from its search attributes.
func queryTimeoutFlag(cmd *cobra.Command, target *time.Duration) {
	cmd.Flags().DurationVar(target, "query-timeout", planclient.DefaultQueryTimeout,
		"how long to wait for the plan to answer a query before answering from its search attributes")
}

// checkQueryTimeout refuses a --query-timeout that leaves no time.
func checkQueryTimeout(timeout time.Duration) error {
	if timeout <= 0 {
		return fmt.Errorf("--query-timeout %s: must be more than zero", timeout)
	}
	return nil
}
