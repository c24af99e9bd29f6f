// Package static holds the browser assets, embedded in the binary: htmx and
// its WebSocket extension (vendored from the npm pins in web/package.json by
// `make vendor`; `make test` fails if they differ), the stylesheet and the
// page's small script.
package static

import "embed"

// FS holds every asset by its file name.
//
//go:embed htmx.min.js ws.min.js app.css app.js
var FS embed.FS
