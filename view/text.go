package view

import (
	"fmt"
	"strings"
	"time"

	"github.com/planmode/planmode/plan"
)

// page is the markdown of the current details being written. It formats
// with Sprintf rather than Fprintf, which workflowcheck takes for I/O.
type page struct{ strings.Builder }

// f writes a formatted line fragment.
func (p *page) f(format string, args ...any) {
	p.WriteString(fmt.Sprintf(format, args...))
}

// section starts a titled section after a blank line.
func (p *page) section(title string) {
	p.f("\n\n#### %s\n\n", title)
}

// commands writes a shell code block: a comment line and a command per
// pair, so an operator can copy the command that suits the tool at hand.
func (p *page) commands(pairs ...string) {
	p.WriteString("\n\n```sh")
	for i := 0; i+1 < len(pairs); i += 2 {
		p.f("\n# %s\n%s", pairs[i], pairs[i+1])
	}
	p.WriteString("\n```")
}

// inline makes s safe for one line of markdown prose or a table cell:
// whitespace collapses to single spaces, pipes are escaped so they do not
// split a table row, angle brackets cannot open HTML, and the result is cut
// to n bytes.
func inline(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = plan.TruncateBytes(s, n)
	return cellEscaper.Replace(s)
}

// cellEscaper escapes what would split a table row or open HTML. Built
// once: a Replacer builds its tables on first use, which cost more than
// all the rest of the details when it was made for each cell.
var cellEscaper = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;")

// orDash is s, or a dash for an empty cell.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// stamp formats a deadline in UTC, the same for every reader.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// shortDuration rounds d for a table cell: milliseconds below a second,
// tenths of a second below a minute, whole seconds above.
func shortDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// jsonString is s as a JSON string literal. It is written out by hand, not
// with encoding/json, to keep reflection over maps out of workflow code.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(fmt.Sprintf(`\u%04x`, r))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// shellQuote quotes s for a POSIX shell: as it is when it holds only
// characters no shell treats specially, otherwise in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
