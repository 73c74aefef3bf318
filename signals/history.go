package signals

import (
	"fmt"
	"strings"

	"github.com/planmode/planmode/plan"
)

// historyProblems lists what is wrong with a request's history: an
// unknown role, an empty message, too many messages or too many bytes.
func historyProblems(h []plan.Message) []string {
	var errs []string
	if len(h) > MaxHistoryMessages {
		errs = append(errs, fmt.Sprintf("history has %d messages: at most %d", len(h), MaxHistoryMessages))
	}
	total := 0
	for i, m := range h {
		total += len(m.Content)
		switch m.Role {
		case plan.MessageUser, plan.MessageAssistant, plan.MessageSystem:
		default:
			errs = append(errs, fmt.Sprintf("history[%d].role %q: want user, assistant or system", i, short(string(m.Role))))
		}
		if strings.TrimSpace(m.Content) == "" {
			errs = append(errs, fmt.Sprintf("history[%d].content is empty", i))
		}
	}
	if total > MaxHistoryBytes {
		errs = append(errs, fmt.Sprintf("history holds %d bytes of content: at most %d (32 KiB)", total, MaxHistoryBytes))
	}
	return errs
}
