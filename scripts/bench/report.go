package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// row is one figure of the table: a metric of a case of a section.
type row struct {
	Section string  `json:"section"`
	Case    string  `json:"case"`
	Metric  string  `json:"metric"`
	Value   float64 `json:"value"`
	// Note says what to compare the value with, or what it is made of.
	Note string `json:"note,omitempty"`
}

// machine is where the figures were taken.
type machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	MemoryGiB string `json:"memoryGiB"`
	GoVersion string `json:"goVersion"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
}

// report is the whole output.
type report struct {
	Machine machine `json:"machine"`
	Sizes   sizes   `json:"sizes"`
	Rows    []row   `json:"rows"`
}

func newReport(sz sizes) *report {
	return &report{Machine: describeMachine(), Sizes: sz}
}

// add appends a row.
func (r *report) add(section, kase, metric string, value float64, note string) {
	r.Rows = append(r.Rows, row{Section: section, Case: kase, Metric: metric, Value: value, Note: note})
}

// print writes the machine line and the table: text columns aligned on
// the left, values on the right.
func (r *report) print(w io.Writer) {
	m := r.Machine
	mode := "full"
	if r.Sizes.Quick {
		mode = "quick"
	}
	fmt.Fprintf(w, "planmode bench (%s) at %s on %s: %d CPUs (%s), %s GiB RAM, %s\n\n",
		mode, m.Commit, m.Date, m.CPUs, m.CPUModel, m.MemoryGiB, m.GoVersion)
	cells := [][]string{{"section", "case", "metric", "value", "note"}}
	for _, x := range r.Rows {
		cells = append(cells, []string{x.Section, x.Case, x.Metric, formatValue(x.Value), x.Note})
	}
	width := make([]int, 5)
	for _, c := range cells {
		for i, s := range c {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	for _, c := range cells {
		line := fmt.Sprintf("%s  %s  %s  %s  %s", pad(c[0], width[0], false), pad(c[1], width[1], false),
			pad(c[2], width[2], false), pad(c[3], width[3], true), c[4])
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// pad fills s with spaces to width runes, on the left when right.
func pad(s string, width int, right bool) string {
	fill := strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
	if right {
		return fill + s
	}
	return s + fill
}

// formatValue prints a figure with the precision its size deserves.
func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case a >= 1000 || v == math.Trunc(v):
		return thousands(int64(math.Round(v)))
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// thousands prints n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// describeMachine reads the CPU model and memory from /proc and the
// commit from git; what cannot be read is "?".
func describeMachine() machine {
	m := machine{CPUs: runtime.NumCPU(), CPUModel: "?", MemoryGiB: "?", GoVersion: runtime.Version(), Commit: "?",
		Date: time.Now().UTC().Format("2006-01-02")}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if kb, err := procField("/proc/meminfo", "MemTotal"); err == nil {
		m.MemoryGiB = strconv.FormatFloat(float64(kb)/(1<<20), 'f', 1, 64)
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			m.Commit += "+changes"
		}
	}
	return m
}

// procField returns the kB value of field in a /proc file of "Field:
// value kB" lines (status, meminfo).
func procField(path, field string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != field {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			break
		}
		return strconv.ParseInt(f[0], 10, 64)
	}
	return 0, fmt.Errorf("%s: no %s", path, field)
}
