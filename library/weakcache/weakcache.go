// Package weakcache is the one rule of the caches keyed by a value that
// other code owns (a module, a library snapshot): an entry lives as long
// as its owner and no longer. Library reloads and override updates
// replace modules all the time, and a cache that kept the old ones, or
// their entries, alive would grow without end.
package weakcache

import (
	"runtime"
	"sync"
)

// Store stores key → v in cache, unless key is there already, and
// deletes it once owner is garbage. key must not refer to owner strongly
// (a weak.Pointer to it does not), or owner never becomes garbage.
func Store[T any, K comparable](owner *T, cache *sync.Map, key K, v any) {
	if _, loaded := cache.LoadOrStore(key, v); !loaded {
		runtime.AddCleanup(owner, func(k K) { cache.Delete(k) }, key)
	}
}
