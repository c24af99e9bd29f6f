package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/static"
)

// asset is one static file, compressed once at start-up.
type asset struct {
	body, gzipped []byte
	etag, ctype   string
}

// loadAssets reads the embedded static files. Only these names can ever be
// served: a request names a map key, never a path, so nothing outside
// static/ is reachable.
func loadAssets(kinds []demo.Kind) (map[string]*asset, error) {
	out := map[string]*asset{}
	err := fs.WalkDir(static.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(static.FS, p)
		if err != nil {
			return err
		}
		out[p], err = newAsset(p, body)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load static assets: %w", err)
	}
	for i := range kinds {
		if k := &kinds[i]; k.CSS != nil {
			if out[cssName(k)], err = newAsset(cssName(k), k.CSS); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// cssName is the file name a demo's own stylesheet is served under.
func cssName(k *demo.Kind) string { return "demo-" + k.Name + ".css" }

func newAsset(name string, body []byte) (*asset, error) {
	sum := sha256.Sum256(body)
	a := &asset{body: body, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: mime.TypeByExtension(path.Ext(name))}
	if a.ctype == "" {
		a.ctype = "application/octet-stream"
	}
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	gz.Write(body)
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("compress %s: %w", name, err)
	}
	if buf.Len() < len(body) {
		a.gzipped = buf.Bytes()
	}
	return a, nil
}

// serveStatic serves /static/{name} with an ETag, revalidated on every use
// (no-cache), so a new release is picked up at once and an unchanged file
// costs a 304.
func (s *Server) serveStatic(w http.ResponseWriter, r *http.Request) {
	a, ok := s.assets[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "public, max-age=0, must-revalidate")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match == a.etag || match == "W/"+a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", a.ctype)
	body := a.body
	if a.gzipped != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = a.gzipped
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.Write(body)
}

func (s *Server) metricsHandler() http.Handler {
	return promHandler(s.metrics)
}
