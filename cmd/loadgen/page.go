package main

import (
	"errors"
	"html"
	"net/url"
	"regexp"
)

var (
	// A page names its demos' sessions in its tail (<p id="sids">, in the
	// order of the demos), and their sockets' URLs end with "sid=": the
	// page's script joins them, as this does for the first demo.
	sidsAttr      = regexp.MustCompile(`<p id="sids" hidden>([0-9a-f]{32})`)
	wsConnectAttr = regexp.MustCompile(`ws-connect="([^"]+)"`)
)

// pageSession is what a demo page tells its script: the session id and the
// socket URL to connect to.
type pageSession struct {
	SID   string
	WSURL string // absolute ws:// or wss:// URL
}

// parsePage finds the first demo's session id and socket URL in a page and
// resolves the socket URL against the page's URL.
func parsePage(body []byte, pageURL *url.URL) (pageSession, error) {
	sid := sidsAttr.FindSubmatch(body)
	ws := wsConnectAttr.FindSubmatch(body)
	if sid == nil || ws == nil {
		return pageSession{}, errors.New("page has no session id or ws-connect")
	}
	ref, err := url.Parse(html.UnescapeString(string(ws[1])) + string(sid[1]))
	if err != nil {
		return pageSession{}, err
	}
	u, err := url.Parse(wsURL(pageURL.ResolveReference(ref)))
	if err != nil {
		return pageSession{}, err
	}
	if u.Query().Get("sid") != string(sid[1]) {
		return pageSession{}, errors.New("ws-connect names another session than data-sid")
	}
	return pageSession{SID: string(sid[1]), WSURL: u.String()}, nil
}

// wsURL is u with the WebSocket scheme of its HTTP one.
func wsURL(u *url.URL) string {
	w := *u
	switch w.Scheme {
	case "http":
		w.Scheme = "ws"
	case "https":
		w.Scheme = "wss"
	}
	return w.String()
}

// origin is the page's origin, sent as the socket's Origin header as a
// browser would.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }
