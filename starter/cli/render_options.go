package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// titleWidth bounds titles in tables.
const titleWidth = 48

// renderOptions presents each option in full for a person choosing one at
// the terminal, numbered as select asks for them: title (marked when
// recommended), id, score, description, pros, cons, the estimates and the
// risk level.
func renderOptions(w io.Writer, opts []plan.Option) {
	fmt.Fprint(w, "=== Implementation Options ===\n\n")
	for i, o := range opts {
		fmt.Fprintf(w, "Option %d: %s", i+1, o.Title)
		if o.Recommended {
			fmt.Fprint(w, " [RECOMMENDED]")
		}
		fmt.Fprintf(w, "\nID: %s\nScore: %.1f/100\n", o.ID, o.Score)
		if o.Description != "" {
			fmt.Fprintf(w, "Description: %s\n", o.Description)
		}
		fmt.Fprintln(w, "\nPros:")
		for _, p := range o.Pros {
			fmt.Fprintf(w, "  + %s\n", p)
		}
		fmt.Fprintln(w, "\nCons:")
		for _, c := range o.Cons {
			fmt.Fprintf(w, "  - %s\n", c)
		}
		est := o.Plan.Estimates
		fmt.Fprintf(w, "\nSteps: %d\nEstimated Duration: %s\nComplexity: %s\nConfidence: %.0f%%\n",
			len(o.Plan.Steps), est.Duration, orDash(string(est.Complexity)), est.Confidence*100)
		if len(o.Plan.Risks) > 0 {
			fmt.Fprintf(w, "Risk Level: %s\n", plan.RiskLevel(o.Plan.Risks))
		}
		fmt.Fprint(w, "\n---\n\n")
	}
}

// renderOptionsTable prints one line per option.
func renderOptionsTable(w io.Writer, opts []plan.Option) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tID\tTITLE\tSCORE\tSTEPS\tDURATION\tCOMPLEXITY\tCONFIDENCE\t")
	for i, o := range opts {
		est := o.Plan.Estimates
		title := clip(o.Title, titleWidth)
		if o.Recommended {
			title += " *"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.1f\t%d\t%s\t%s\t%.0f%%\t\n", i+1, o.ID, title, o.Score,
			len(o.Plan.Steps), est.Duration, orDash(string(est.Complexity)), est.Confidence*100)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write options: %w", err)
	}
	return nil
}

// renderComparison prints the comparison matrix: one row per option, one
// column per criterion, and the summary under it.
func renderComparison(w io.Writer, cmp plan.Comparison) error {
	if len(cmp.Rows) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := append([]string{"OPTION"}, cmp.Criteria...)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(header, "\t"))+"\t")
	for _, row := range cmp.Rows {
		cells := make(map[string]string, len(row.Cells))
		for _, c := range row.Cells {
			cells[c.Criterion] = c.Value
		}
		line := []string{clip(row.Title, titleWidth)}
		for _, crit := range cmp.Criteria {
			line = append(line, orDash(cells[crit]))
		}
		fmt.Fprintln(tw, strings.Join(line, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	if cmp.Summary != "" {
		fmt.Fprintf(w, "\n%s\n", cmp.Summary)
	}
	return nil
}

// renderOptionsView prints the options table, the comparison matrix and
// what was selected or recommended.
func renderOptionsView(w io.Writer, v signals.OptionsView) error {
	if len(v.Options) == 0 {
		_, err := fmt.Fprintln(w, "No options yet.")
		return err
	}
	fmt.Fprintf(w, "Options (revision %d):\n", v.Revision)
	if err := renderOptionsTable(w, v.Options); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nComparison:")
	if err := renderComparison(w, v.Comparison); err != nil {
		return err
	}
	if v.SelectedID != "" {
		fmt.Fprintf(w, "Selected: %s\n", v.SelectedID)
	}
	for _, d := range v.Dropped {
		fmt.Fprintf(w, "Dropped %q: %s\n", d.Title, d.Reason)
	}
	return nil
}

// cellSpaces turns the tabs and line breaks of a table cell into spaces,
// so that they cannot break the table's columns.
var cellSpaces = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// clip shortens s to n runes with an ellipsis, on one line.
func clip(s string, n int) string {
	return plan.Truncate(strings.TrimSpace(cellSpaces.Replace(s)), n)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
