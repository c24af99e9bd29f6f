// Package static holds the browser assets, embedded in the binary: htmx and
// its WebSocket extension (vendored from the npm pins in web/package.json by
// `make vendor`; `make test` fails if they differ; pages get them with
// app.js in one file, site.min.js, which the server joins), and our scripts and
// stylesheets: app.js and app.css, which every page links, and those only
// some pages link (what a page does not show, it does not load; see app.js
// and app.css).
package static

import "embed"

// FS holds every asset by its file name.
//
//go:embed *.js *.css
var FS embed.FS
