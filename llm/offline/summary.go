package offline

import (
	"fmt"
	"regexp"
	"strings"
)

// summaryStepLine is one step of the summarize prompt's list:
// "- s1 [completed] Title: digest". Any line of that shape counts, under
// whatever heading.
var summaryStepLine = regexp.MustCompile(`(?m)^\s*- (\S+) \[(\w+)\] (.+?)\s*$`)

// summaryGroups are the sections of the summary, in order, and the step
// statuses each collects.
var summaryGroups = []struct {
	heading  string
	statuses []string
}{
	{"Completed", []string{"completed"}},
	{"Failed", []string{"failed"}},
	{"Skipped", []string{"skipped"}},
	{"Not run", []string{"cancelled", "pending", "running", "retrying"}},
}

// summarize answers the summarize phase with a markdown report listing
// the steps by outcome.
func (b *OfflineBrain) summarize(v view) Reply {
	goal := v.field("goal")
	status, _, _ := strings.Cut(v.field("run status", "status"), " (")
	groups := map[string][]string{}
	for _, m := range summaryStepLine.FindAllStringSubmatch(v.user, -1) {
		for _, g := range summaryGroups {
			if contains(g.statuses, strings.ToLower(m[2])) {
				groups[g.heading] = append(groups[g.heading], "- "+m[1]+" "+m[3])
			}
		}
	}
	var out strings.Builder
	out.WriteString("# Summary\n\n")
	if goal != "" {
		fmt.Fprintf(&out, "**Goal:** %s\n\n", goal)
	}
	if status != "" {
		fmt.Fprintf(&out, "**Status:** %s\n\n", status)
	}
	if strings.Contains(v.user, "the run did not finish") {
		out.WriteString("This is a partial summary: the run did not finish.\n\n")
	}
	listed := false
	for _, g := range summaryGroups {
		if items := groups[g.heading]; len(items) > 0 {
			fmt.Fprintf(&out, "## %s (%d)\n\n%s\n\n", g.heading, len(items), strings.Join(items, "\n"))
			listed = true
		}
	}
	if !listed {
		out.WriteString("The request listed no steps.\n\n")
	}
	out.WriteString("_" + OfflineNotice + "_\n")
	return Reply{Content: out.String()}
}
