package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// errNotLoopback refuses any address that is not this machine.
var errNotLoopback = errors.New("not a loopback address: loadgen only loads this machine")

// checkLoopbackURL parses the server URL and refuses it unless its host is
// loopback: an IP in 127.0.0.0/8, ::1, or the name localhost.
func checkLoopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("-url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("-url %q: scheme must be http or https", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("-url %q: no user info, please", raw)
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("-url %q: host %q is %w", raw, u.Hostname(), errNotLoopback)
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	return u, nil
}

// isLoopbackHost reports whether host (without port or brackets) names this
// machine's loopback interface.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if i := strings.IndexByte(host, '%'); i >= 0 { // fe80::1%lo: zones are never loopback
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackDialer dials TCP and refuses, before connecting, any address that
// is not loopback: a second fence behind checkLoopbackURL, which also covers
// what "localhost" resolves to and any redirect.
func loopbackDialer() *net.Dialer {
	return &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("dial %s: %w", address, errNotLoopback)
			}
			return nil
		},
	}
}
