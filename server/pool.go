package server

import "sync"

// websocketPool shares write buffers between sockets: a socket holds one
// only while it writes, so thousands of idle sockets cost no buffer each.
type websocketPool struct{ p sync.Pool }

func (w *websocketPool) Get() any  { return w.p.Get() }
func (w *websocketPool) Put(x any) { w.p.Put(x) }
