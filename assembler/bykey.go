package assembler

import (
	"iter"

	iradix "github.com/hashicorp/go-immutable-radix/v2"
)

// ByKey is an immutable map from OverrideKey to V. With and Without
// return a new ByKey that shares all but the path to the key with the old
// one (a persistent radix tree), so the operator state changed by one
// override costs the same at 10 overrides as at 10,000, and the old map
// stays whole for whoever still reads it. The zero ByKey is empty. It is
// safe for concurrent reads. All and ID list in key order: by id, then by
// locale key, byte order.
type ByKey[V any] struct{ t *iradix.Tree[keyed[V]] }

// keyed is an entry with its key, so that listing needs no decoding.
type keyed[V any] struct {
	k OverrideKey
	v V
}

// keyPath is k in the tree: the id, a zero byte (which no id or locale
// contains), the locale key; so the entries of one id share the prefix
// of idPath.
func keyPath(k OverrideKey) []byte {
	b := make([]byte, 0, len(k.ID)+1+len(k.Locale))
	return append(idPath(b, k.ID), k.Locale...)
}

func idPath(b []byte, id string) []byte { return append(append(b, id...), 0) }

// CollectByKey is the ByKey of every pair of seq (a later pair of the
// same key wins).
func CollectByKey[V any](seq iter.Seq2[OverrideKey, V]) ByKey[V] {
	txn := iradix.New[keyed[V]]().Txn()
	for k, v := range seq {
		txn.Insert(keyPath(k), keyed[V]{k, v})
	}
	return ByKey[V]{txn.CommitOnly()}
}

// Get returns the value of k; ok is false when there is none.
func (m ByKey[V]) Get(k OverrideKey) (v V, ok bool) {
	if m.t == nil {
		return v, false
	}
	e, ok := m.t.Get(keyPath(k))
	return e.v, ok
}

// Len is the number of keys.
func (m ByKey[V]) Len() int {
	if m.t == nil {
		return 0
	}
	return m.t.Len()
}

// All lists every key and value in key order.
func (m ByKey[V]) All() iter.Seq2[OverrideKey, V] {
	return func(yield func(OverrideKey, V) bool) {
		if m.t == nil {
			return
		}
		m.t.Root().Walk(func(_ []byte, e keyed[V]) bool { return !yield(e.k, e.v) })
	}
}

// ID lists the keys and values of id (every locale of it) in key order,
// without a pass over the others.
func (m ByKey[V]) ID(id string) iter.Seq2[OverrideKey, V] {
	return func(yield func(OverrideKey, V) bool) {
		if m.t == nil {
			return
		}
		m.t.Root().WalkPrefix(idPath(nil, id), func(_ []byte, e keyed[V]) bool { return !yield(e.k, e.v) })
	}
}

// HasID reports whether id has a key in any locale.
func (m ByKey[V]) HasID(id string) bool {
	for range m.ID(id) {
		return true
	}
	return false
}

// With returns m with k set to v; m is unchanged.
func (m ByKey[V]) With(k OverrideKey, v V) ByKey[V] {
	t := m.t
	if t == nil {
		t = iradix.New[keyed[V]]()
	}
	t, _, _ = t.Insert(keyPath(k), keyed[V]{k, v})
	return ByKey[V]{t}
}

// Without returns m without k; m is unchanged.
func (m ByKey[V]) Without(k OverrideKey) ByKey[V] {
	if m.t == nil {
		return m
	}
	t, _, ok := m.t.Delete(keyPath(k))
	if !ok {
		return m
	}
	return ByKey[V]{t}
}
