// Package static holds the browser assets, embedded in the binary: htmx and
// its WebSocket extension (vendored from the npm pins in web/package.json by
// `make vendor`; `make test` fails if they differ), and our scripts and
// stylesheets. Every page links app.css and site.min.js, which the server
// joins from htmx, the extension and app.js; the other files only the
// pages that show what they are for (see app.js and app.css), and help.js
// only inside help-<lang>.js, which the server makes around the dialog.
package static

import "embed"

// FS holds every asset by its file name.
//
//go:embed *.js *.css
var FS embed.FS
