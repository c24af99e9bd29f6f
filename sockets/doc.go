// Package sockets is one browser's WebSocket as the server and the rooms
// both use it: the connection (exactly one reader, at most one writer at a
// time), its mailbox of fragments waiting to be written, the close codes
// the pages understand, and the token bucket that paces a socket's
// messages.
//
// Invariants:
//   - Put never blocks: a mailbox holds at most one version of each
//     fragment id (a newer one replaces an unsent one), so its size is
//     bounded by the number of ids a page has, and a slow browser never
//     holds up the goroutine that renders or fans out frames.
//   - The first CloseWith wins; after it, what is pending is written (but
//     not to a peer that sent too much), then the close frame, then
//     nothing.
//   - Only gorilla/websocket and the standard library are imported: the
//     server and the rooms sit above this package, never beside it.
package sockets
