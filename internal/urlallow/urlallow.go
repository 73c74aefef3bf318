// Package urlallow decides whether a URL is on an allow-list of URLs and
// URL prefixes: the one check behind notify.allowedURLs (where a plan may
// send its webhooks) and mcp.allowedURLs (where HTTP MCP servers may be).
package urlallow

import (
	"net/url"
	"path"
	"strings"
)

// Allowed reports whether target matches an entry of allowed: equal to
// it, or under it when the entry ends in "/". Both are compared cleaned
// (scheme and host lower-cased, the path cleaned), so "/hooks/../admin"
// does not pass for "/hooks/"; a URL that is not plain http(s), or
// carries credentials, matches nothing.
func Allowed(target string, allowed []string) bool {
	t, ok := clean(target)
	if !ok {
		return false
	}
	for _, entry := range allowed {
		e, ok := clean(entry)
		switch {
		case !ok:
			continue
		case t == e:
			return true
		case strings.HasSuffix(entry, "/") && strings.HasPrefix(t, strings.TrimSuffix(e, "/")+"/"):
			return true
		}
	}
	return false
}

// clean is u as scheme://host/path?query with the path cleaned, or false
// for a URL that is not plain http(s) without credentials.
func clean(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil {
		return "", false
	}
	q := ""
	if p.RawQuery != "" {
		q = "?" + p.RawQuery
	}
	return strings.ToLower(p.Scheme) + "://" + strings.ToLower(p.Host) + path.Clean("/"+p.Path) + q, true
}
