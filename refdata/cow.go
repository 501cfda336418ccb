package refdata

// The copy-on-write parts of the city index (cityindex.go), which make a
// patch cost what it changes, not the size of the index.
//
// A snapshot is never written once published: a patch writes a copy
// (cityIndex.clone) that shares all it can with the snapshot and copies
// only what it changes. Two rules keep the shared parts right:
//
//   - Append-only slices (folded names, posting lists, word texts) are
//     shared whole: a copy appends beyond the snapshot's lengths, which
//     the snapshot's readers never read. Only one copy of a snapshot may
//     do so (cityIndex.claimed); a second one is built afresh.
//   - What is written in place (a city's record, a map's entries, a
//     posting list's slice header) is held in fixed-size chunks (cowVec)
//     or shards (cowMap) stamped with the write generation that made them:
//     a write copies the chunk or shard it touches unless its own
//     generation made it, and the spine of chunk pointers once per
//     generation.

import (
	"hash/maphash"
	"maps"
	"slices"
	"sync/atomic"
)

// writeGens numbers write generations: each index being written (a new
// one, or a patch's copy) takes one; 0 is none's.
var writeGens atomic.Uint64

func newGen() uint64 { return writeGens.Add(1) }

const (
	vecBits = 8
	vecLen  = 1 << vecBits // elements in a cowVec chunk
)

// vecChunk is one chunk of a cowVec and the generation that made it.
type vecChunk[T any] struct {
	c   *[vecLen]T
	gen uint64
}

// cowVec is a vector of T in chunks of vecLen, written by copying the
// chunk written (mut) unless the writer's generation made it. Elements
// are appended in place (push): slots past n are read by no one.
type cowVec[T any] struct {
	chunks []vecChunk[T]
	n      int
	gen    uint64 // the generation whose copy chunks is
}

// at returns element i, for reading.
func (v *cowVec[T]) at(i int32) *T { return &v.chunks[i>>vecBits].c[i&(vecLen-1)] }

// own makes the spine gen's own.
func (v *cowVec[T]) own(gen uint64) {
	if v.gen != gen {
		v.chunks = slices.Clone(v.chunks)
		v.gen = gen
	}
}

// mut returns element i for writing by generation gen, copying its chunk
// first unless gen made it.
func (v *cowVec[T]) mut(i int32, gen uint64) *T {
	k := i >> vecBits
	if ch := v.chunks[k]; ch.gen != gen {
		v.own(gen)
		c := *ch.c
		v.chunks[k] = vecChunk[T]{c: &c, gen: gen}
	}
	return &v.chunks[k].c[i&(vecLen-1)]
}

// push appends x and returns its index.
func (v *cowVec[T]) push(x T, gen uint64) int32 {
	i := v.n
	if i&(vecLen-1) == 0 {
		v.own(gen)
		v.chunks = append(v.chunks, vecChunk[T]{c: new([vecLen]T), gen: gen})
	}
	v.chunks[i>>vecBits].c[i&(vecLen-1)] = x // past every reader's n
	v.n++
	return int32(i)
}

// shardLen is the number of entries a cowMap shard holds on average at
// most: more, and the map doubles its shards.
const shardLen = 256

// mapShard is one shard of a cowMap and the generation that made it.
type mapShard[K comparable, V any] struct {
	m   map[K]V
	gen uint64
}

// cowMap is a map in shards (by hash), written by copying the shard
// written unless the writer's generation made it.
type cowMap[K comparable, V any] struct {
	shards []mapShard[K, V]
	bits   uint8 // len(shards) == 1<<bits
	n      int
	gen    uint64
	hash   func(K) uint64
}

var stringSeed = maphash.MakeSeed()

func hashString(s string) uint64 { return maphash.String(stringSeed, s) }
func hashUint64(x uint64) uint64 { return x }

// newCowMap returns an empty map with shards for about n entries.
func newCowMap[K comparable, V any](hash func(K) uint64, n int, gen uint64) cowMap[K, V] {
	m := cowMap[K, V]{hash: hash, gen: gen}
	for 1<<m.bits*shardLen < n {
		m.bits++
	}
	m.shards = make([]mapShard[K, V], 1<<m.bits)
	for i := range m.shards {
		m.shards[i] = mapShard[K, V]{m: make(map[K]V, n>>m.bits), gen: gen}
	}
	return m
}

func (m *cowMap[K, V]) shard(k K) int {
	if m.bits == 0 {
		return 0
	}
	return int((m.hash(k) * 0x9e3779b97f4a7c15) >> (64 - m.bits))
}

func (m *cowMap[K, V]) get(k K) (V, bool) {
	v, ok := m.shards[m.shard(k)].m[k]
	return v, ok
}

// set sets k to v, written by generation gen.
func (m *cowMap[K, V]) set(k K, v V, gen uint64) {
	s := m.shard(k)
	if m.shards[s].gen != gen {
		if m.gen != gen {
			m.shards = slices.Clone(m.shards)
			m.gen = gen
		}
		m.shards[s] = mapShard[K, V]{m: maps.Clone(m.shards[s].m), gen: gen}
	}
	sh := m.shards[s].m
	n := len(sh)
	sh[k] = v
	if len(sh) > n {
		m.n++
		if m.n > shardLen<<m.bits {
			m.grow(gen)
		}
	}
}

// grow doubles the shards: every entry is copied.
func (m *cowMap[K, V]) grow(gen uint64) {
	old := m.shards
	m.bits++
	m.shards = make([]mapShard[K, V], 1<<m.bits)
	for i := range m.shards {
		m.shards[i] = mapShard[K, V]{m: make(map[K]V, shardLen), gen: gen}
	}
	m.gen = gen
	for _, s := range old {
		for k, v := range s.m {
			m.shards[m.shard(k)].m[k] = v
		}
	}
}

// each calls fn with every entry, in no order.
func (m *cowMap[K, V]) each(fn func(K, V)) {
	for _, s := range m.shards {
		for k, v := range s.m {
			fn(k, v)
		}
	}
}
