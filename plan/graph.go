package plan

import (
	"fmt"
	"strings"
)

// GraphClass is how a graph draws a step: one class per kind of status.
type GraphClass string

// Graph classes.
const (
	ClassDone      GraphClass = "done"
	ClassRunning   GraphClass = "running"
	ClassFailed    GraphClass = "failed"
	ClassSkipped   GraphClass = "skipped"
	ClassCancelled GraphClass = "cancelled"
	ClassPending   GraphClass = "pending"
)

// graphClasses lists the classes in the order their styles are written.
var graphClasses = []GraphClass{ClassDone, ClassRunning, ClassFailed, ClassSkipped, ClassCancelled, ClassPending}

// classStyle is a class's colours: fill, border, text; dashed draws the
// border dashed (steps that did not run).
type classStyle struct {
	fill, stroke, text string
	dashed             bool
}

var classStyles = map[GraphClass]classStyle{
	ClassDone:      {fill: "#d1fae5", stroke: "#059669", text: "#064e3b"},
	ClassRunning:   {fill: "#dbeafe", stroke: "#2563eb", text: "#1e3a8a"},
	ClassFailed:    {fill: "#fee2e2", stroke: "#dc2626", text: "#7f1d1d"},
	ClassSkipped:   {fill: "#f3f4f6", stroke: "#9ca3af", text: "#4b5563", dashed: true},
	ClassCancelled: {fill: "#fef3c7", stroke: "#d97706", text: "#78350f", dashed: true},
	ClassPending:   {fill: "#ffffff", stroke: "#6b7280", text: "#111827"},
}

// maxLabelRunes caps a step title in a graph, so that one long title does
// not stretch the whole drawing.
const maxLabelRunes = 80

// StepClass is the graph class of a step status: completed is done, running
// and retrying are running, failed, skipped and cancelled are themselves,
// and anything else (pending, unknown) is pending.
func StepClass(s StepStatus) GraphClass {
	switch s {
	case StepCompleted:
		return ClassDone
	case StepRunning, StepRetrying:
		return ClassRunning
	case StepFailed:
		return ClassFailed
	case StepSkipped:
		return ClassSkipped
	case StepCancelled:
		return ClassCancelled
	}
	return ClassPending
}

// graphEdge is one arrow between two steps, by node id.
type graphEdge struct {
	from, to string
	fallback bool
}

// graphNodes returns each step's node id (n1, n2, … by position: step ids
// may hold characters a graph language refuses) and the edges: one per
// dependency, from the step depended on, and one dashed edge from each
// step to its fallback. Dependencies and fallbacks naming no step of p are
// left out.
func graphNodes(p Plan) ([]string, []graphEdge) {
	ids := make([]string, len(p.Steps))
	node := make(map[string]string, len(p.Steps))
	for i, s := range p.Steps {
		ids[i] = fmt.Sprintf("n%d", i+1)
		if _, dup := node[s.ID]; !dup {
			node[s.ID] = ids[i]
		}
	}
	var edges []graphEdge
	for i, s := range p.Steps {
		for _, d := range s.DependsOn {
			if from, ok := node[d]; ok {
				edges = append(edges, graphEdge{from: from, to: ids[i]})
			}
		}
		if to, ok := node[s.FallbackStepID]; ok && s.FallbackStepID != "" {
			edges = append(edges, graphEdge{from: ids[i], to: to, fallback: true})
		}
	}
	return ids, edges
}

// stepLabel is "N. title" on one line, the title cut to maxLabelRunes. N
// is the step's Number, or its position when unnumbered.
func stepLabel(i int, s Step) string {
	n := s.Number
	if n == 0 {
		n = i + 1
	}
	title := strings.Join(strings.Fields(s.Title), " ")
	if r := []rune(title); len(r) > maxLabelRunes {
		title = string(r[:maxLabelRunes-1]) + "…"
	}
	return fmt.Sprintf("%d. %s", n, title)
}

// mermaidEscaper writes characters Mermaid would read as syntax inside a
// quoted label as entity codes; '#' first, since entity codes use it.
var mermaidEscaper = strings.NewReplacer(
	"#", "#35;", `"`, "#quot;", "&", "#amp;", "<", "#lt;", ">", "#gt;",
	"[", "#91;", "]", "#93;", "{", "#123;", "}", "#125;", "`", "#96;",
)

// Mermaid draws p's steps as a Mermaid flowchart, top down: a node per step
// labelled "N. title" with the class of its status (see StepClass), an
// arrow per dependency, a dashed arrow labelled fallback from a step to
// its fallback step, and a classDef per class with its colours. Labels are
// escaped, so any title is safe.
func Mermaid(p Plan) string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	ids, edges := graphNodes(p)
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "    %s[\"%s\"]:::%s\n", ids[i], mermaidEscaper.Replace(stepLabel(i, s)), StepClass(s.Status))
	}
	for _, e := range edges {
		if e.fallback {
			fmt.Fprintf(&b, "    %s -.->|fallback| %s\n", e.from, e.to)
			continue
		}
		fmt.Fprintf(&b, "    %s --> %s\n", e.from, e.to)
	}
	for _, c := range graphClasses {
		st := classStyles[c]
		fmt.Fprintf(&b, "    classDef %s fill:%s,stroke:%s,color:%s", c, st.fill, st.stroke, st.text)
		if st.dashed {
			b.WriteString(",stroke-dasharray:4 3")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// dotEscaper escapes a DOT quoted string: backslashes (which would start
// label escapes such as \N) and quotes.
var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// DOT draws p's steps as a Graphviz digraph named after the plan id, top
// down, with the same nodes, classes and edges as Mermaid: each node
// carries its class (for SVG output) and that class's colours, steps that
// did not run have dashed borders, fallback edges are dashed and labelled.
func DOT(p Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph \"%s\" {\n", dotEscaper.Replace(p.ID))
	b.WriteString("    rankdir=TB;\n")
	b.WriteString("    node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n")
	b.WriteString("    edge [fontname=\"Helvetica\", fontsize=10];\n")
	ids, edges := graphNodes(p)
	for i, s := range p.Steps {
		c := StepClass(s.Status)
		st := classStyles[c]
		style := "rounded,filled"
		if st.dashed {
			style += ",dashed"
		}
		fmt.Fprintf(&b, "    %s [label=\"%s\", class=\"%s\", style=\"%s\", fillcolor=\"%s\", color=\"%s\", fontcolor=\"%s\"];\n",
			ids[i], dotEscaper.Replace(stepLabel(i, s)), c, style, st.fill, st.stroke, st.text)
	}
	for _, e := range edges {
		if e.fallback {
			fmt.Fprintf(&b, "    %s -> %s [style=dashed, label=\"fallback\"];\n", e.from, e.to)
			continue
		}
		fmt.Fprintf(&b, "    %s -> %s;\n", e.from, e.to)
	}
	b.WriteString("}\n")
	return b.String()
}
