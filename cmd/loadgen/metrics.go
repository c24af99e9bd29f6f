package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// metrics is one scrape of /metrics: each sample's value by its series
// name, "name" or "name{labels}" with the labels as the server wrote them.
type metrics map[string]float64

// get returns the value of an unlabelled series, or NaN when it is absent.
func (m metrics) get(name string) float64 {
	if v, ok := m[name]; ok {
		return v
	}
	return math.NaN()
}

// first returns the first of names that is present, and which one it was.
func (m metrics) first(names ...string) (float64, string) {
	for _, n := range names {
		if v, ok := m[n]; ok {
			return v, n
		}
	}
	return math.NaN(), ""
}

// parseMetrics reads the Prometheus text exposition format: comments and
// blank lines are skipped; each sample line is a series (name, optional
// {labels} whose quoted values may hold spaces, braces and escapes), a
// value (Go float syntax, NaN, +Inf, -Inf) and an optional timestamp.
func parseMetrics(r io.Reader) (metrics, error) {
	out := metrics{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 0; sc.Scan(); {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		series, rest, err := splitSeries(text)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d: %w", line, err)
		}
		fields := strings.Fields(rest)
		if len(fields) < 1 || len(fields) > 2 {
			return nil, fmt.Errorf("metrics line %d: want a value and an optional timestamp: %q", line, text)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d: value %q: %w", line, fields[0], err)
		}
		out[series] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// splitSeries splits a sample line after its series: the metric name and,
// if present, the {…} label set, honouring quotes and backslash escapes.
func splitSeries(text string) (series, rest string, err error) {
	i := 0
	for i < len(text) && isNameByte(text[i], i == 0) {
		i++
	}
	if i == 0 {
		return "", "", fmt.Errorf("no metric name: %q", text)
	}
	if i == len(text) || text[i] != '{' {
		if i == len(text) {
			return "", "", fmt.Errorf("no value: %q", text)
		}
		return text[:i], text[i:], nil
	}
	inQuote, escaped := false, false
	for j := i + 1; j < len(text); j++ {
		c := text[j]
		switch {
		case escaped:
			escaped = false
		case c == '\\' && inQuote:
			escaped = true
		case c == '"':
			inQuote = !inQuote
		case c == '}' && !inQuote:
			if j == i+1 { // "name{}" is "name"
				return text[:i], text[j+1:], nil
			}
			return text[:j+1], text[j+1:], nil
		}
	}
	return "", "", fmt.Errorf("unterminated label set: %q", text)
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// scraper fetches /metrics from the server under test.
type scraper struct {
	client *http.Client
	url    string
}

func (s *scraper) scrape(ctx context.Context) (metrics, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", s.url, resp.Status)
	}
	return parseMetrics(io.LimitReader(resp.Body, 16<<20))
}
