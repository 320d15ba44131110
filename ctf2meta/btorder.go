package ctf2meta

import (
	"encoding/binary"
	"sort"
)

// BabeltraceMappingOrder returns the names of p.Mappings in the order
// babeltrace2 2.1 keeps them, the order its text sink lists the labels of
// a value that several mappings contain. babeltrace2 stores the mappings of
// an integer field class in a C++ std::unordered_map<std::string, …>
// (libstdc++), inserted in metadata order — for CTF 2 JSON, in the order of
// another such map holding the parsed "mappings" object, itself filled in
// text order — and then lists them by iterating it. That order is
// deterministic: libstdc++'s string hash (MurmurHash2 64-bit, seed
// 0xc70f6907), its prime bucket counts and its insertion at the front of a
// bucket, all reproduced here. tsdl says the metadata was CTF 1.8 TSDL (one
// map, filled in enumerator order); else it was CTF 2 JSON (two maps).
// Without p.MappingOrder (a model built in code) the metadata order is
// taken to be name order.
func BabeltraceMappingOrder(p *IntegerProps, tsdl bool) []string {
	order := unorderedMapOrder(p.metadataOrder())

	if !tsdl {
		order = unorderedMapOrder(order)
	}
	return order
}

// validOrder reports whether MappingOrder names every mapping once.
func (p *IntegerProps) validOrder() bool {
	if len(p.MappingOrder) != len(p.Mappings) || len(p.Mappings) < 2 {
		return false
	}
	seen := make(map[string]bool, len(p.MappingOrder))
	for _, k := range p.MappingOrder {
		if _, ok := p.Mappings[k]; !ok || seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// metadataOrder returns the mapping names in metadata order: MappingOrder
// when it names every mapping once, else name order.
func (p *IntegerProps) metadataOrder() []string {
	if p.validOrder() {
		return p.MappingOrder
	}
	return sortedKeys(p.Mappings)
}

// libstdc++'s std::_Hash_bytes on 64-bit targets (hash_bytes.cc), as
// std::hash<std::string> calls it with seed 0xc70f6907.
func stdHash(s string) uint64 {
	const mul = 0xc6a4a793<<32 | 0x5bd1e995
	shiftMix := func(v uint64) uint64 { return v ^ v>>47 }
	b := []byte(s)
	h := 0xc70f6907 ^ uint64(len(b))*mul
	n := len(b) &^ 7
	for i := 0; i < n; i += 8 {
		d := shiftMix(binary.LittleEndian.Uint64(b[i:])*mul) * mul
		h ^= d
		h *= mul
	}
	if r := len(b) & 7; r != 0 {
		var d uint64
		for i := r - 1; i >= 0; i-- {
			d = d<<8 | uint64(b[n+i])
		}
		h ^= d
		h *= mul
	}
	h = shiftMix(h) * mul
	return shiftMix(h)
}

// libstdc++'s _Prime_rehash_policy bucket counts: __fast_bkt below 14,
// then the first of __prime_list (from its 7th entry, 17, on) not below n:
// the entries of libstdc++ 12's 64-bit __prime_list up to the first above
// 2^32 (no metadata has that many mappings).
var fastBuckets = [14]uint64{2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13}

var bucketPrimes = []uint64{
	17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113, 127,
	137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409,
	439, 467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493,
	1613, 1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087,
	5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411,
	17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201,
	53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733, 107897, 116731, 126271, 136607,
	147793, 159871, 172933, 187091, 202409, 218971, 236897, 256279, 277261, 299951, 324503, 351061,
	379787, 410857, 444487, 480881, 520241, 562841, 608903, 658753, 712697, 771049, 834181, 902483,
	976369, 1056323, 1142821, 1236397, 1337629, 1447153, 1565659, 1693859, 1832561, 1982627, 2144977,
	2320627, 2510653, 2716249, 2938679, 3179303, 3439651, 3721303, 4026031, 4355707, 4712381, 5098259,
	5515729, 5967347, 6456007, 6984629, 7556579, 8175383, 8844859, 9569143, 10352717, 11200489,
	12117689, 13109983, 14183539, 15345007, 16601593, 17961079, 19431899, 21023161, 22744717,
	24607243, 26622317, 28802401, 31160981, 33712729, 36473443, 39460231, 42691603, 46187573,
	49969847, 54061849, 58488943, 63278561, 68460391, 74066549, 80131819, 86693767, 93793069,
	101473717, 109783337, 118773397, 128499677, 139022417, 150406843, 162723577, 176048909, 190465427,
	206062531, 222936881, 241193053, 260944219, 282312799, 305431229, 330442829, 357502601, 386778277,
	418451333, 452718089, 489790921, 529899637, 573292817, 620239453, 671030513, 725980837, 785430967,
	849749479, 919334987, 994618837, 1076067617, 1164186217, 1259520799, 1362662261, 1474249943,
	1594975441, 1725587117, 1866894511, 2019773507, 2185171673, 2364114217, 2557710269, 2767159799,
	2993761039, 3238918481, 3504151727, 3791104843, 4101556399, 4294967291, 6442450933}

func nextBuckets(n uint64) uint64 {
	if n < uint64(len(fastBuckets)) {
		if n == 0 {
			return 1
		}
		return fastBuckets[n]
	}
	i := sort.Search(len(bucketPrimes), func(i int) bool { return bucketPrimes[i] >= n })
	if i == len(bucketPrimes) {
		i--
	}
	return bucketPrimes[i]
}

// unorderedMapOrder returns the iteration order of a libstdc++
// std::unordered_map<std::string, …> (default-constructed, max load factor
// 1) into which keys were inserted in order (duplicates ignored), as its
// _Hashtable does it: a node joins the front of its bucket's run in the
// node list, or the front of the list when its bucket is empty; before an
// insertion that would pass the load factor the table grows (at least
// doubling, to a prime) and re-links the nodes in list order
// (_M_rehash_aux). Linear in the keys but for the rehashes (amortised).
func unorderedMapOrder(keys []string) []string {
	const empty, beforeBegin = -2, -1
	type node struct {
		key  string
		hash uint64
		next int
	}
	nodes := make([]node, 0, len(keys))
	head := -1
	nb := uint64(1)
	before := []int{empty} // per bucket: the node before its run, or beforeBegin
	nextResize := uint64(0)
	link := func(i int) { // _M_insert_bucket_begin
		b := nodes[i].hash % nb
		switch prev := before[b]; prev {
		case empty:
			nodes[i].next, head = head, i
			if n := nodes[i].next; n >= 0 {
				before[nodes[n].hash%nb] = i
			}
			before[b] = beforeBegin
		case beforeBegin:
			nodes[i].next, head = head, i
		default:
			nodes[i].next, nodes[prev].next = nodes[prev].next, i
		}
	}
	rehash := func(n uint64) { // _M_rehash_aux, unique keys
		nb = n
		before = make([]int, n)
		for i := range before {
			before[i] = empty
		}
		p := head
		head = -1
		bbegin := uint64(0)
		for p >= 0 {
			next := nodes[p].next
			b := nodes[p].hash % nb
			switch prev := before[b]; prev {
			case empty:
				nodes[p].next, head = head, p
				before[b] = beforeBegin
				if nodes[p].next >= 0 {
					before[bbegin] = p
				}
				bbegin = b
			case beforeBegin:
				nodes[p].next, head = head, p
			default:
				nodes[p].next, nodes[prev].next = nodes[prev].next, p
			}
			p = next
		}
	}
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		// _Prime_rehash_policy::_M_need_rehash(nb, len(nodes), 1)
		if n := uint64(len(nodes)) + 1; n > nextResize {
			minBuckets := n
			if nextResize == 0 {
				minBuckets = max(n, 11)
			}
			if minBuckets >= nb {
				nextResize = nextBuckets(max(minBuckets+1, nb*2))
				rehash(nextResize)
			} else {
				nextResize = nb
			}
		}
		nodes = append(nodes, node{key: k, hash: stdHash(k), next: -1})
		link(len(nodes) - 1)
	}
	out := make([]string, 0, len(nodes))
	for p := head; p >= 0; p = nodes[p].next {
		out = append(out, nodes[p].key)
	}
	return out
}
