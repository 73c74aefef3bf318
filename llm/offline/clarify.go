package offline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/planmode/planmode/llm/reply"
)

// questionWords start a plain question the offline brain answers directly
// rather than plan for.
var questionWords = []string{
	"what", "who", "whom", "whose", "when", "where", "which",
	"how much", "how many", "how long", "how old", "how far",
}

// maxQuestionWords is the longest goal still treated as a plain question.
const maxQuestionWords = 12

// politePrefixes are dropped from the start of a goal so that it reads as
// an imperative sentence.
var politePrefixes = []string{
	"please ", "can you ", "could you ", "would you ", "will you ",
	"i want you to ", "i would like you to ", "i'd like you to ",
	"i want to ", "i would like to ", "i'd like to ", "i need to ", "we need to ",
	"we should ", "let's ", "lets ", "help me ", "go ahead and ",
}

// questionsAllowed matches a statement that questions may be asked; a
// "not" before "allowed" denies it.
var questionsAllowed = regexp.MustCompile(`(?i)questions\s+(?:are\s+)?(not\s+)?allowed`)

// answeredMarker is how the clarify prompt introduces earlier answers.
var answeredMarker = regexp.MustCompile(`(?im)answered earlier questions|^\s*-\s*Q:`)

// clarify answers the clarify phase.
func (b *OfflineBrain) clarify(v view) Reply {
	raw := v.field("request", "goal", "task")
	if raw == "" {
		raw = firstLine(v.prompt)
	}
	goal := cleanGoal(raw)
	if isPlainQuestion(goal) {
		return JSONReply(reply.Clarify{Goal: goal, NeedsPlan: false, DirectAnswer: directAnswer(goal)})
	}
	out := reply.Clarify{Goal: goal, NeedsPlan: true}
	if mayAsk(v) && len(strings.Fields(goal)) < 4 && !hasAnswers(v) {
		topic := strings.TrimSuffix(goal, ".")
		out.Questions = []string{
			"What should the result of “" + topic + "” look like when it is done?",
			"Which files or parts of the workspace does it concern?",
			"Are there constraints to respect, such as a deadline, tools or style?",
		}
	}
	return JSONReply(out)
}

// cleanGoal trims a goal, drops polite openings and makes it a sentence
// that starts with a capital letter and ends with a full stop (a question
// keeps its question mark).
func cleanGoal(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Trim(s, "\"'“”")
	polite := false
	for changed := true; changed; {
		changed = false
		low := strings.ToLower(s)
		for _, p := range politePrefixes {
			if strings.HasPrefix(low, p) && len(s) > len(p) {
				s, changed, polite = s[len(p):], true, true
				break
			}
		}
	}
	if s == "" {
		return "Carry out the task."
	}
	r, size := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[size:]
	if polite {
		// "Can you add a README?" asks a favour, not a question.
		s = strings.TrimSuffix(s, "?")
	}
	s = strings.TrimRight(s, " .!;:,")
	if !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

// isQuestionStart reports whether s starts with a question word.
func isQuestionStart(s string) bool {
	low := strings.ToLower(s)
	for _, w := range questionWords {
		if low == w || strings.HasPrefix(low, w+" ") || strings.HasPrefix(low, w+"'") {
			return true
		}
	}
	return false
}

// isPlainQuestion reports whether goal is a short question that needs an
// answer, not a plan.
func isPlainQuestion(goal string) bool {
	return strings.HasSuffix(goal, "?") && isQuestionStart(goal) && len(strings.Fields(goal)) <= maxQuestionWords
}

// directAnswer is the offline brain's honest answer to a plain question.
func directAnswer(question string) string {
	return "The offline model cannot look things up, so it cannot answer “" + question + "” itself. " +
		"To get an answer, configure an LLM provider (llm.baseURL, llm.apiKey and llm.model) and ask again, " +
		"or rephrase the question as a task to plan, such as “Find out " + lowerFirst(strings.TrimSuffix(question, "?")) +
		" and write it down.”\n\n" + OfflineNotice
}

// mayAsk reports whether the request allows clarifying questions: the
// clarify prompt's "questions allowed: yes|no" line, a JSON askQuestions
// flag or a sentence saying so.
func mayAsk(v view) bool {
	if s := labelled(v.user, "questions allowed"); s != "" {
		return yes(s)
	}
	if b, ok := v.boolField("askQuestions"); ok {
		return b
	}
	m := questionsAllowed.FindStringSubmatch(v.text())
	return m != nil && m[1] == ""
}

// hasAnswers reports whether the request carries answers to earlier
// questions.
func hasAnswers(v view) bool {
	if val, ok := jsonLookup(v.objects, "answers"); ok {
		if m, ok := val.(map[string]any); ok && len(m) > 0 {
			return true
		}
	}
	return v.field("answers") != "" || answeredMarker.MatchString(v.user)
}

// yes reports whether s says yes.
func yes(s string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(s), ".!")) {
	case "yes", "y", "true", "allowed", "on", "1":
		return true
	}
	return false
}

// firstLine returns the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// lowerFirst lowers the first letter of s.
func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}
